package dev.unread.state;

import dev.unread.seqs.UnreadChunks;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Every keyed state of the job, by operator: the one place that names a state and its serializers,
 * shared by the operators and by the savepoint tools (dev.unread.ops), which read and write the
 * same state outside the job. A name here is part of every savepoint: renaming one loses that state
 * on restore.
 */
public final class StateSchema {

    private StateSchema() {}

    /**
     * A set of seqs kept in chunks (see dev.unread.seqs.UnreadChunks): (set id, seq {@code >>> 16})
     * → that chunk of the set, and (set id, level and prefix) → a node of the radix tree of its
     * chunk indices; and for the two sets an earlier build indexed flatly, set id → the indices of
     * its non-empty chunks, read only to move them into the tree (null for the others).
     */
    public static final class ChunkedSet {
        private final MapStateDescriptor<Tuple2<Long, Long>, byte[]> chunks;
        private final MapStateDescriptor<Tuple2<Long, Long>, byte[]> tree;
        private final MapStateDescriptor<Long, long[]> flatIndex;

        private ChunkedSet(
                MapStateDescriptor<Tuple2<Long, Long>, byte[]> chunks,
                MapStateDescriptor<Tuple2<Long, Long>, byte[]> tree,
                MapStateDescriptor<Long, long[]> flatIndex) {
            this.chunks = chunks;
            this.tree = tree;
            this.flatIndex = flatIndex;
        }

        public MapStateDescriptor<Tuple2<Long, Long>, byte[]> chunks() {
            return chunks;
        }

        public MapStateDescriptor<Tuple2<Long, Long>, byte[]> tree() {
            return tree;
        }

        public MapStateDescriptor<Long, long[]> flatIndex() {
            return flatIndex;
        }

        /** {@code {name}-chunks} and {@code {name}-chunk-tree}. */
        static ChunkedSet named(String name) {
            return new ChunkedSet(bytes(name + "-chunks"), bytes(name + "-chunk-tree"), null);
        }

        /** As {@link #named}, with {@code {name}-chunk-index}. */
        static ChunkedSet withFlatIndex(String name) {
            return new ChunkedSet(
                    bytes(name + "-chunks"),
                    bytes(name + "-chunk-tree"),
                    new MapStateDescriptor<>(
                            name + "-chunk-index",
                            Types.LONG,
                            PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        }

        /** The set in the current key's state of the operator of {@code context}. */
        public UnreadChunks open(RuntimeContext context) {
            return new UnreadChunks(
                    context.getMapState(chunks),
                    context.getMapState(tree),
                    flatIndex == null ? null : context.getMapState(flatIndex));
        }

        private static MapStateDescriptor<Tuple2<Long, Long>, byte[]> bytes(String name) {
            return new MapStateDescriptor<>(
                    name,
                    Types.TUPLE(Types.LONG, Types.LONG),
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
        }
    }

    // The counter, keyed by user (uid unread-counter).

    /** Inbox watermark, badge size and the app-icon totals. */
    public static final ValueStateDescriptor<InboxState> INBOX =
            new ValueStateDescriptor<>("inbox", InboxStateSerializer.INSTANCE);

    /**
     * Senders counted in the badge → newest {@code sentAt} seen from them, needed so a late reset
     * keeps a sender who also wrote after it. One RocksDB entry per sender.
     */
    public static final MapStateDescriptor<Long, Long> SENDERS =
            new MapStateDescriptor<>("senders", Types.LONG, Types.LONG);

    /** Conversation id → cursor, counts, preference, mark and membership. */
    public static final MapStateDescriptor<Long, ConversationState> CONVERSATIONS =
            new MapStateDescriptor<>(
                    "conversations", LongSerializer.INSTANCE, ConversationStateSerializer.INSTANCE);

    /** The unread seqs per conversation (set id: the conversation), once out of the record. */
    public static final ChunkedSet UNREAD = ChunkedSet.withFlatIndex("unread");

    /** The unread seqs that mention the user, a subset of {@link #UNREAD}. */
    public static final ChunkedSet MENTIONS = ChunkedSet.withFlatIndex("mention");

    /** The unread seqs that mention the user only channel-wide, disjoint from {@link #MENTIONS}. */
    public static final ChunkedSet CHANNEL_MENTIONS = ChunkedSet.named("channel-mention");

    /**
     * Conversation id → the edits the user keeps for its messages, ordered by seq and thread, four
     * longs each: the message's seq, its thread's root seq (0 for a conversation message), the
     * newest {@code editedAt} and what the edits at that time say (see dev.unread.counter.Edits).
     * An edit is kept while the cursor that governs its seq has not passed it.
     */
    public static final MapStateDescriptor<Long, long[]> EDITS =
            new MapStateDescriptor<>(
                    "edits", Types.LONG, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** The deleted seqs past the conversation cursor, so that they never count. */
    public static final ChunkedSet DELETED = ChunkedSet.named("deleted");

    /** (Conversation id, thread's root seq) → the thread. */
    public static final MapStateDescriptor<Tuple2<Long, Long>, ThreadState> THREADS =
            new MapStateDescriptor<>(
                    "threads",
                    Types.<Tuple2<Long, Long>>TUPLE(Types.LONG, Types.LONG)
                            .createSerializer(new SerializerConfigImpl()),
                    ThreadStateSerializer.INSTANCE);

    /**
     * A thread's unread, mentioned and deleted replies; the set id is the thread's {@link
     * ThreadState#sets} times 4 plus the set's number.
     */
    public static final ChunkedSet THREAD_SEQS = ChunkedSet.named("thread-seq");

    /** The number of seq-set ids the user's threads have taken; the next thread takes the next. */
    public static final ValueStateDescriptor<Long> THREAD_SET_IDS =
            new ValueStateDescriptor<>("thread-set-ids", Types.LONG);

    /**
     * The seqs of the conversation messages the user sent or was mentioned in: the roots the user
     * follows by default.
     */
    public static final ChunkedSet INVOLVED = ChunkedSet.named("involved");

    /** The roots of the user's threads of a conversation with unread replies. */
    public static final ChunkedSet UNREAD_THREADS = ChunkedSet.named("unread-thread");

    /** The roots of the threads kept only for a cursor or a follow. */
    public static final ChunkedSet BARE_THREADS = ChunkedSet.named("bare-thread");

    /**
     * (Conversation id, touch number) → the root of the bare thread whose last touch (a read or
     * follow that changed it, or its becoming bare) took that number: the conversation's bare
     * threads by last touch, the least recent first (see ConversationState#bareTouchHead).
     */
    public static final MapStateDescriptor<Tuple2<Long, Long>, Long> BARE_THREAD_TOUCHES =
            new MapStateDescriptor<>(
                    "bare-thread-touches", Types.TUPLE(Types.LONG, Types.LONG), Types.LONG);

    /**
     * (Conversation id, thread's root seq or 0 for the conversation) → the {@code sentAt} of the
     * unread messages an ALL_READ may read (see dev.unread.seqs.SentAtFrontier).
     */
    public static final MapStateDescriptor<Tuple2<Long, Long>, byte[]> SENT_AT =
            new MapStateDescriptor<>(
                    "sent-at",
                    Types.TUPLE(Types.LONG, Types.LONG),
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    // The conversations' stage, keyed by conversation (uid group-fan-out).

    /**
     * userId → that user's membership events in the conversation, each as its seq, negated for a
     * LEFT, ordered by seq and at one seq JOINED before LEFT; so the event that governs seq s is
     * the last one whose seq is below s.
     */
    public static final MapStateDescriptor<Long, long[]> MEMBERS =
            new MapStateDescriptor<>(
                    "conversation-members",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** userId → true for the users whose newest membership event is a join. */
    public static final MapStateDescriptor<Long, Boolean> CURRENT_MEMBERS =
            new MapStateDescriptor<>("conversation-current-members", Types.LONG, Types.BOOLEAN);

    /** The largest seq of the conversation's membership events. */
    public static final ValueStateDescriptor<Long> LAST_MEMBERSHIP_SEQ =
            new ValueStateDescriptor<>("conversation-last-membership-seq", Types.LONG);

    /**
     * True once the conversation is declared a channel before its other records: the fan-out then
     * hands its records to the channel stage instead of delivering them to each member.
     */
    public static final ValueStateDescriptor<Boolean> CHANNEL =
            new ValueStateDescriptor<>("conversation-channel", Types.BOOLEAN);

    /**
     * Per user, channelId → true: every channel the user has a membership event in, left ones too.
     * It outlives idle expiry and erasure, which the channel stage applies to each of them.
     */
    public static final MapStateDescriptor<Long, Boolean> USER_CHANNELS =
            new MapStateDescriptor<>("user-channels", Types.LONG, Types.BOOLEAN);

    /** userId → true: the users {@code chat-messages} records named in the conversation. */
    public static final MapStateDescriptor<Long, Boolean> PARTICIPANTS =
            new MapStateDescriptor<>("conversation-participants", Types.LONG, Types.BOOLEAN);

    /**
     * Seq → the message's sender and its thread's root seq (0 for none): what an edit of it, which
     * names neither, needs to reach the members the message reached.
     */
    public static final MapStateDescriptor<Long, long[]> CONVERSATION_MESSAGES =
            new MapStateDescriptor<>(
                    "conversation-messages",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Every deleted seq of the conversation (set id: the conversation). */
    public static final ChunkedSet CONVERSATION_DELETED = ChunkedSet.named("conversation-deleted");

    // The readers' stage, keyed by conversation (uid conversation-readers).

    /**
     * userId → for a participant, its cursor (0 when it never read); for a user known only by a
     * cursor, the cursor negated, until the user turns out to be a participant too.
     */
    public static final MapStateDescriptor<Long, Long> READERS =
            new MapStateDescriptor<>("conversation-readers", Types.LONG, Types.LONG);

    /**
     * The number of participants in {@link #READERS}, so that a receipt in a large conversation
     * costs no walk over its members. Absent in savepoints from before it existed: then counted
     * once from {@link #READERS}.
     */
    public static final ValueStateDescriptor<Integer> READER_COUNT =
            new ValueStateDescriptor<>("conversation-participants", Types.INT);

    /**
     * userId → the user's newest membership event in the conversation: its seq, negated for
     * MEMBER_LEFT. Absent in savepoints from before it existed: a member who left before the
     * upgrade stays a participant until its next membership event.
     */
    public static final MapStateDescriptor<Long, Long> MEMBERSHIPS =
            new MapStateDescriptor<>("conversation-memberships", Types.LONG, Types.LONG);
}
