package dev.unread.testing;

import dev.unread.local.Await;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Waiting for something another thread or process does, as a test: {@link Await} failing with an
 * {@link AssertionError}, which callers catch to tell a timeout from other failures.
 */
public final class Poll {

    private Poll() {}

    /**
     * Calls {@code probe} until it returns non-null and returns that; fails naming {@code what}
     * once {@code timeout} has passed.
     */
    public static <T> T until(String what, Duration timeout, Callable<T> probe) throws Exception {
        try {
            return Await.until(what, timeout, probe);
        } catch (Await.TimedOut e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }
}
