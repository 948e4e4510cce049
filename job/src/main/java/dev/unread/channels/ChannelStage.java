package dev.unread.channels;

import dev.unread.counter.ThreadSets;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import dev.unread.state.Incarnations;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * A channel's stage, keyed by conversation (docs/contract.md, "Channels"): it keeps everything of
 * the channel C and of each member's part in it, and is the one writer of C's index in Redis, of
 * the members' tracks of C and of their cursors of C. Input 1 is C's records from the
 * conversations' fan-out (messages, deletions, edits, membership events); input 2 the members'
 * facts about C from their counters (reads, thread reads, follows, preferences, mark all read,
 * erasure, idle expiry); the two in any relative order. Every count a reader computes from what it
 * writes is a function of the set of events, duplicates harmless.
 *
 * <p>Writes go to the main output ({@link ChannelWrite}): the index as absolute blocks and
 * idempotent sorted-set changes, so a replay converges; a track only when it changes, and on the
 * first touch of a member by an incarnation of the stage (each open: a start or a restore), since
 * Redis may hold a track from a timeline the restore rolled back (as UnreadCounter does for its
 * counts). Each rise of a member's cursor goes to {@link #CURSORS}, with the member's unread count
 * right after it, and an erasure as ConversationCursor#erasure, then the cursor it keeps (a root
 * the member sent after it).
 *
 * <p>What each record and fact does is {@link ChannelCounting}'s, which the bootstrap drives too,
 * so that a savepoint built from MySQL history holds this stage's own state.
 */
public class ChannelStage
        extends KeyedCoProcessFunction<Long, ConversationEvent, ChatEvent, ChannelWrite> {

    /** Each rise of a member's cursor, and each erasure of a member. */
    public static final OutputTag<ConversationCursor> CURSORS =
            new OutputTag<>("channel-cursors", Types.POJO(ConversationCursor.class));

    /** The default of {@code --max-channel-seq}: 2^28. */
    public static final long DEFAULT_MAX_CHANNEL_SEQ = 1L << 28;

    /** A Redis string holds at most 512 MB: the bitmap's bits. */
    private static final long MAX_BITS = 1L << 32;

    /** Messages past {@code --max-channel-seq}, which count for nobody. */
    public static final String PAST_MAX_SEQ_METRIC = "channelMessagesPastMaxSeq";

    /**
     * Writes of channels' indexes: blocks of the bitmap and members of the sorted sets. About one
     * per message or deletion, whatever the members.
     */
    public static final String INDEX_WRITES_METRIC = "channelIndexWrites";

    /**
     * Members' tracks written: the part of a channel's cost that grows with the members a message
     * touches (its sender, who reads by sending, and each user it names by id), and with the floors
     * late messages raise.
     */
    public static final String TRACK_WRITES_METRIC = "channelTrackWrites";

    private final long maxChannelSeq;
    private final int maxBareThreads;

    private transient ChannelCounting channel;
    private transient Counter pastMaxSeq;
    private transient Counter indexWrites;
    private transient Counter trackWrites;

    public ChannelStage() {
        this(DEFAULT_MAX_CHANNEL_SEQ, ThreadSets.DEFAULT_MAX_BARE_THREADS);
    }

    /**
     * {@code maxChannelSeq} ({@code --max-channel-seq}): a message past it counts for nobody;
     * {@code maxBareThreads} ({@code --max-bare-threads}): per member, the most threads kept only
     * for a thread cursor or an explicit follow.
     */
    public ChannelStage(long maxChannelSeq, int maxBareThreads) {
        if (maxChannelSeq < 1 || maxChannelSeq >= MAX_BITS) {
            throw new IllegalArgumentException(
                    "maxChannelSeq must be from 1 to 2^32 - 1 (the bits of a Redis string), was "
                            + maxChannelSeq);
        }
        if (maxBareThreads < 1) {
            throw new IllegalArgumentException(
                    "maxBareThreads must be at least 1, was " + maxBareThreads);
        }
        this.maxChannelSeq = maxChannelSeq;
        this.maxBareThreads = maxBareThreads;
    }

    @Override
    public void open(OpenContext openContext) {
        channel =
                new ChannelCounting(
                        getRuntimeContext(), Incarnations.next(), maxChannelSeq, maxBareThreads);
        pastMaxSeq = getRuntimeContext().getMetricGroup().counter(PAST_MAX_SEQ_METRIC);
        indexWrites = getRuntimeContext().getMetricGroup().counter(INDEX_WRITES_METRIC);
        trackWrites = getRuntimeContext().getMetricGroup().counter(TRACK_WRITES_METRIC);
    }

    @Override
    public void processElement1(ConversationEvent e, Context ctx, Collector<ChannelWrite> out)
            throws Exception {
        if (!channel.record(e, write -> write(write, out), cursor -> ctx.output(CURSORS, cursor))) {
            pastMaxSeq.inc();
        }
    }

    @Override
    public void processElement2(ChatEvent e, Context ctx, Collector<ChannelWrite> out)
            throws Exception {
        channel.fact(e, write -> write(write, out), cursor -> ctx.output(CURSORS, cursor));
    }

    /** Emits {@code write}, counted by what it writes. */
    private void write(ChannelWrite write, Collector<ChannelWrite> out) {
        switch (write.kind) {
            case TRACK -> trackWrites.inc();
            case BLOCK, SEQ_ADDED, SEQ_REMOVED -> indexWrites.inc();
            case NOTICE -> {}
        }
        out.collect(write);
    }
}
