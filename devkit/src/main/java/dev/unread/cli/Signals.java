package dev.unread.cli;

import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * Ctrl-C and SIGTERM as requests to stop. The JVM's default is to run the shutdown hooks and exit
 * with 128 + the signal's number; a command that stops cleanly should exit with 0, so it handles
 * the signals itself and returns from its own main thread.
 */
final class Signals {

    private Signals() {}

    /**
     * Runs {@code stop} on the first of the named signals; a second one ends the process at once
     * (status 130), for a stop that hangs. Returns false where the JVM does not allow handlers (for
     * example with {@code -Xrs}); the shutdown hooks then do the stopping.
     */
    static boolean trap(Runnable stop, String... names) {
        AtomicBoolean stopping = new AtomicBoolean();
        try {
            for (String name : names) {
                Signal.handle(
                        new Signal(name),
                        signal -> {
                            if (stopping.compareAndSet(false, true)) {
                                stop.run();
                            } else {
                                Runtime.getRuntime().halt(130);
                            }
                        });
            }
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return false;
        }
    }
}
