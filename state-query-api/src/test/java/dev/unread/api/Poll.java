package dev.unread.api;

import java.util.concurrent.Callable;

/** Waits for a condition with a deadline, polling: never a fixed sleep. */
final class Poll {

    private static final long DEADLINE_MS = 30_000;

    private Poll() {}

    /** Returns once {@code condition} holds; fails the test after 30 s. */
    static void until(Callable<Boolean> condition) throws Exception {
        until(condition, () -> "");
    }

    /** As {@link #until(Callable)}, with {@code state} in the failure's message. */
    static void until(Callable<Boolean> condition, Callable<String> state) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_MS * 1_000_000;
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "condition not met within " + DEADLINE_MS + " ms " + state.call());
            }
            Thread.sleep(20);
        }
    }
}
