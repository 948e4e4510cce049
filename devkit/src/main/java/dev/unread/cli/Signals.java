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
     * (status 130), for a stop that hangs. Each signal is taken where the JVM allows it: not with
     * {@code -Xrs}, and not SIGINT in a process started with SIGINT ignored (a background job of a
     * shell without job control, as {@code cmd &} in a script). Returns false when none could be;
     * the shutdown hooks then do the stopping.
     */
    static boolean trap(Runnable stop, String... names) {
        AtomicBoolean stopping = new AtomicBoolean();
        boolean any = false;
        for (String name : names) {
            try {
                Signal.handle(
                        new Signal(name),
                        signal -> {
                            if (stopping.compareAndSet(false, true)) {
                                stop.run();
                            } else {
                                Runtime.getRuntime().halt(130);
                            }
                        });
                any = true;
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // Ignored from the start, or taken by the JVM: the other signals still stop.
            }
        }
        return any;
    }
}
