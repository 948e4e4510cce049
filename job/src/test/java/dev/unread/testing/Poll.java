package dev.unread.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for something another thread or process does: ask again until the answer comes or a
 * deadline passes. A test never sleeps a fixed time hoping the work is done by then.
 */
public final class Poll {

    /**
     * Between two questions: short next to any deadline, long enough to leave the CPU to the work.
     */
    private static final Duration PAUSE = Duration.ofMillis(20);

    private Poll() {}

    /**
     * Calls {@code probe} until it returns non-null and returns that; fails naming {@code what}
     * once {@code timeout} has passed.
     */
    public static <T> T until(String what, Duration timeout, Callable<T> probe) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T answer = probe.call();
            if (answer != null) {
                return answer;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            LockSupport.parkNanos(PAUSE.toNanos());
        }
    }
}
