package dev.unread.local;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for something another thread or process does (a Redis process getting somewhere, a job a
 * test started): ask again until the answer comes or a deadline passes, never a fixed sleep.
 */
public final class Await {

    /**
     * What {@link #until} throws once its deadline passed, so that a caller (a test turning it into
     * its own failure) tells it from what the probe threw.
     */
    public static final class TimedOut extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(message);
        }
    }

    /**
     * Between two questions: short next to any deadline, long enough to leave the CPU to the work.
     */
    private static final Duration PAUSE = Duration.ofMillis(20);

    private Await() {}

    /**
     * Calls {@code probe} until it returns non-null and returns that; throws {@link TimedOut}
     * naming {@code what} once {@code timeout} has passed.
     */
    public static <T> T until(String what, Duration timeout, Callable<T> probe) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T answer = probe.call();
            if (answer != null) {
                return answer;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimedOut("not within " + timeout + ": " + what);
            }
            LockSupport.parkNanos(PAUSE.toNanos());
        }
    }
}
