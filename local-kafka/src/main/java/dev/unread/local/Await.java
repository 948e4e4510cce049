package dev.unread.local;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/** Waiting for a Redis process to get somewhere: ask again until it has or a deadline passes. */
final class Await {

    private static final Duration PAUSE = Duration.ofMillis(20);

    private Await() {}

    /**
     * Calls {@code probe} until it returns non-null and returns that; throws naming {@code what}
     * once {@code timeout} has passed.
     */
    static <T> T until(String what, Duration timeout, Callable<T> probe) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T answer = probe.call();
            if (answer != null) {
                return answer;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not within " + timeout + ": " + what);
            }
            LockSupport.parkNanos(PAUSE.toNanos());
        }
    }
}
