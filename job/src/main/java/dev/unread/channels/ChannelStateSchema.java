package dev.unread.channels;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Every keyed state of the channel stage (keyed by conversation): as in
 * dev.unread.state.StateSchema, a name here is part of every savepoint. Values are primitive arrays
 * with Flink's own serializers, encoded and decoded by the classes that own them.
 */
public final class ChannelStateSchema {

    private ChannelStateSchema() {}

    /**
     * Seq → the message at that seq or its deletion, whichever came first (see {@link
     * MessageRecord}).
     */
    public static final MapStateDescriptor<Long, long[]> MESSAGES =
            new MapStateDescriptor<>(
                    "channel-messages",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /**
     * Block number → the 64 bytes of {@code chat:channel:{C}:seqs} it holds (see {@link SeqIndex}).
     */
    public static final MapStateDescriptor<Long, byte[]> BLOCKS =
            new MapStateDescriptor<>(
                    "channel-blocks",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    /**
     * Block number → the (seq, sentAt) of the messages in that block, roots and replies, as a
     * dev.unread.seqs.SentAtFrontier: what a floor is found from (see {@link MessageTimes}).
     */
    public static final MapStateDescriptor<Long, byte[]> SENT_AT =
            new MapStateDescriptor<>(
                    "channel-sent-at",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    /** The channel's summary (see {@link ChannelSummary}). */
    public static final ValueStateDescriptor<long[]> SUMMARY =
            new ValueStateDescriptor<>(
                    "channel-summary", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** userId → the member's record (see {@link MemberRecord}). */
    public static final MapStateDescriptor<Long, long[]> MEMBERS =
            new MapStateDescriptor<>(
                    "channel-members",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /**
     * Time bucket → the members whose floor time (the later of their mark all read and erasure)
     * falls in it (see {@link FloorIndex}).
     */
    public static final MapStateDescriptor<Long, long[]> FLOOR_TIMES =
            new MapStateDescriptor<>(
                    "channel-floor-times",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Group of buckets → the time buckets of {@link #FLOOR_TIMES} in it that hold a member. */
    public static final MapStateDescriptor<Long, long[]> FLOOR_BUCKETS =
            new MapStateDescriptor<>(
                    "channel-floor-buckets",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** The groups of {@link #FLOOR_BUCKETS} that hold a bucket, ascending. */
    public static final ValueStateDescriptor<long[]> FLOOR_GROUPS =
            new ValueStateDescriptor<>(
                    "channel-floor-groups", PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /**
     * (userId, thread's root seq) → the member's record of that thread (see {@link ThreadRecord}).
     */
    public static final MapStateDescriptor<Tuple2<Long, Long>, long[]> THREADS =
            new MapStateDescriptor<>(
                    "channel-threads",
                    Types.TUPLE(Types.LONG, Types.LONG),
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);
}
