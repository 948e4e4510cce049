package dev.unread.api;

import dev.unread.local.Await;
import java.time.Duration;
import java.util.concurrent.Callable;

/** Waits for a condition with a deadline, polling ({@link Await}): never a fixed sleep. */
final class Poll {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private Poll() {}

    /** Returns once {@code condition} holds; fails the test after 30 s. */
    static void until(Callable<Boolean> condition) throws Exception {
        until(condition, () -> "");
    }

    /** As {@link #until(Callable)}, with {@code state} at the deadline in the failure's message. */
    static void until(Callable<Boolean> condition, Callable<String> state) throws Exception {
        try {
            Await.until("condition met", DEADLINE, () -> condition.call() ? Boolean.TRUE : null);
        } catch (Await.TimedOut e) {
            throw new AssertionError(e.getMessage() + " " + state.call(), e);
        }
    }
}
