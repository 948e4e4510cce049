package dev.unread.api;

/**
 * A request that ends in an error response: the status and a message safe to show to clients (never
 * an exception's own text). Thrown by handlers, turned into JSON in one place.
 */
final class ApiError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final int status;

    ApiError(int status, String message) {
        // No stack trace: these are expected outcomes, not bugs.
        super(message, null, false, false);
        this.status = status;
    }

    static ApiError badRequest(String message) {
        return new ApiError(400, message);
    }
}
