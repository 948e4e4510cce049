package dev.unread.sinks;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running totals of the Redis sinks of every job in this JVM, for code that runs next to them:
 * the local stack's periodic summary and the benchmark's commands per message. Inside a cluster
 * the writers' metrics ({@code redisCommands}, {@code redisCoalescedUpdates}) say the same per
 * subtask.
 */
public final class RedisTally {
    private static final LongAdder COMMANDS = new LongAdder();
    private static final LongAdder COALESCED = new LongAdder();

    private RedisTally() {}

    /** Redis commands sent and acknowledged. */
    public static long commands() {
        return COMMANDS.sum();
    }

    /** Updates that cost no command: a later update of the same key or field replaced them. */
    public static long coalescedUpdates() {
        return COALESCED.sum();
    }

    static void addCommands(long n) {
        COMMANDS.add(n);
    }

    static void addCoalescedUpdate() {
        COALESCED.increment();
    }
}
