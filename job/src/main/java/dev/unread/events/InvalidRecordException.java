package dev.unread.events;

/** A record that breaks the input contract; its message is the dead-letter reason. */
public class InvalidRecordException extends Exception {
    public InvalidRecordException(String reason) {
        super(reason, null, false, false);
    }
}
