package dev.unread.bench;

import dev.unread.minicluster.FlinkRest;
import dev.unread.ops.SavepointBytes;
import dev.unread.ops.SavepointInspect;
import java.util.Map;

/** The job's figures on one workload. */
public record JobFigures(
        Traffic traffic,
        long nanos,
        long redisCommands,
        long redisUnchanged,
        long redisFlushes,
        long redisRoundTrips,
        long mysqlStatements,
        FlinkRest.Checkpoints checkpoints,
        String savepoint,
        long savepointBytes,
        long rawSavepointBytes,
        SavepointInspect.Summary state,
        RedisKeys.Memory badgeKeys,
        RedisKeys.Memory conversationKeys,
        long cpuNanos,
        double stolenShare,
        long compilingMillis,
        double measuredShare,
        long wholeNanos,
        Map<String, Long> commandsBySink,
        Map<String, Long> callsByCommand,
        long redisCpuNanos,
        ChannelWrites channelWrites) {

    /** The channel stage's writes over the run: its indexes' and its members' tracks. */
    record ChannelWrites(long index, long tracks) {}

    /**
     * Over the measured span: the run's messages less those it left out (the first, which pay for
     * what runs once; {@link JobRun#awaitEvents(String, long, long, java.time.Duration)}).
     */
    double messagesPerSecond() {
        return measuredMessages() * 1e9 / nanos;
    }

    /** From the run's first message to its last, the first ones included. */
    double wholeRunMessagesPerSecond() {
        return traffic.messages() * 1e9 / wholeNanos;
    }

    private double measuredMessages() {
        return traffic.messages() * measuredShare;
    }

    /** Per CPU-second of this process (the job, the broker and the bench's polling). */
    double messagesPerCpuSecond() {
        return measuredMessages() * 1e9 / cpuNanos;
    }

    /**
     * The share of the run's CPU the JIT spent compiling: a run that meets code not compiled yet
     * pays for it once, a cost of the run that a longer one spreads thinner, not of each message.
     */
    double compilingShare() {
        return cpuNanos == 0 ? 0 : compilingMillis * 1e6 / cpuNanos;
    }

    double eventsPerSecond() {
        return traffic.validEvents() * measuredShare * 1e9 / nanos;
    }

    double commandsPerMessage() {
        return (double) redisCommands / traffic.messages();
    }

    /** What the sinks' removals named that Redis did not hold (changed nothing), per message. */
    double unchangedPerMessage() {
        return (double) redisUnchanged / traffic.messages();
    }

    /** Redis server CPU per message, in microseconds (0 on a cluster, which is not asked). */
    double redisCpuMicrosPerMessage() {
        return redisCpuNanos / 1e3 / traffic.messages();
    }

    double roundTripsPerFlush() {
        return redisFlushes == 0 ? 0 : (double) redisRoundTrips / redisFlushes;
    }

    double statementsPerReadEvent() {
        return traffic.readEvents() == 0 ? 0 : (double) mysqlStatements / traffic.readEvents();
    }

    /** Savepoint bytes over all entries: a user's inbox, a sender, a conversation. */
    double bytesPerEntry() {
        return entries() == 0 ? 0 : (double) savepointBytes / entries();
    }

    /** The same without snapshot compression ({@link SavepointBytes}). */
    double rawBytesPerEntry() {
        return entries() == 0 ? 0 : (double) rawSavepointBytes / entries();
    }

    /** The counter's state bytes alone over the same entries, which are all the counter's. */
    double counterBytesPerEntry() {
        return entries() == 0 ? 0 : (double) state.bytes().counter() / entries();
    }

    private long entries() {
        return state.users() + state.senders() + state.conversations();
    }
}
