package dev.unread.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * An answer being written, failed as soon as it would grow past {@code max} bytes, so that an
 * answer too large is refused before it is all in memory.
 */
final class CappedBuffer extends OutputStream {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final int max;
    private boolean full;

    CappedBuffer(int max) {
        this.max = max;
    }

    /** Whether a write failed for passing the cap (Jackson may wrap that failure). */
    boolean full() {
        return full;
    }

    @Override
    public void write(int b) throws IOException {
        room(1);
        bytes.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        room(len);
        bytes.write(b, off, len);
    }

    private void room(int len) throws IOException {
        if (bytes.size() + (long) len > max) {
            full = true;
            throw new IOException("answer larger than " + max + " bytes");
        }
    }

    byte[] toByteArray() {
        return bytes.toByteArray();
    }
}
