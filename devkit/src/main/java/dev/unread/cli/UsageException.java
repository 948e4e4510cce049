package dev.unread.cli;

/**
 * A command line the CLI cannot run: an unknown command or flag, or a flag's value out of range.
 * {@link Unread} prints its message and exits with status 2, with no stack trace.
 */
public final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
