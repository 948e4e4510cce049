package dev.unread.counter;

import dev.unread.seqs.SmallSeqs;
import dev.unread.seqs.UnreadChunks;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import java.util.Arrays;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * One of a user's seq sets of a conversation (its unread seqs, those that mention the user, or the
 * roots the user follows by default), kept in the conversation's record ({@link ConversationState})
 * while it holds at most {@link #SMALL} seqs, and in {@link UnreadChunks} once it grows past that.
 * Public for the savepoint tools (dev.unread.ops), which read the counts and write sets.
 *
 * <p>Most sets are small: users read what they receive, and take part in a few messages of each
 * conversation. Kept in the record, such a set costs a message nothing beyond the record it reads
 * and writes anyway, and costs the state no entry of its own; in chunks every set is two more
 * stored entries (its chunk and the tree node that finds it), each with its key, and every message
 * two more reads and a write. A set that grows past {@code SMALL} moves into chunks at once (its
 * seqs mostly fall in one chunk: one write) and stays there until it empties, so the record stays
 * small and a message's cost bounded whatever the set's size.
 *
 * <p>In the record, the seqs are in {@link SmallSeqs}' form, about a byte a seq. The record keeps
 * each set's count; a set with a count and {@link UnreadSeqs#EMPTY} for its seqs is in chunks, as
 * the builds since version 2 kept every unread set. Version 1 kept the unread seqs whole in the
 * record, in {@link UnreadSeqs}' runs, with no count; {@link #upgrade} gives such a set its count
 * and this build's form, or moves it into chunks when it is not small.
 */
public final class ConversationSeqs {

    /** The most seqs a set keeps in the conversation's record. */
    public static final int SMALL = 32;

    /** Where the record keeps a set and its count. */
    public enum Field {
        UNREAD(
                s -> s.unreadSeqs,
                (s, v) -> s.unreadSeqs = v,
                s -> s.unreadCount,
                (s, n) -> s.unreadCount = n),
        MENTIONS(
                s -> s.mentionSeqs,
                (s, v) -> s.mentionSeqs = v,
                s -> s.mentionCount,
                (s, n) -> s.mentionCount = n),
        INVOLVED(
                s -> s.involvedSeqs,
                (s, v) -> s.involvedSeqs = v,
                s -> s.involvedCount,
                (s, n) -> s.involvedCount = n),
        UNREAD_THREADS(
                s -> s.unreadThreadSeqs,
                (s, v) -> s.unreadThreadSeqs = v,
                s -> s.unreadThreadCount,
                (s, n) -> s.unreadThreadCount = n),
        BARE_THREADS(
                s -> s.bareThreadSeqs,
                (s, v) -> s.bareThreadSeqs = v,
                s -> s.bareThreadCount,
                (s, n) -> s.bareThreadCount = n),
        CHANNEL_MENTIONS(
                s -> s.channelMentionSeqs,
                (s, v) -> s.channelMentionSeqs = v,
                s -> s.channelMentionCount,
                (s, n) -> s.channelMentionCount = n);

        private final Function<ConversationState, byte[]> seqs;
        private final BiConsumer<ConversationState, byte[]> setSeqs;
        private final ToLongFunction<ConversationState> count;
        private final ObjLongConsumer<ConversationState> setCount;

        Field(
                Function<ConversationState, byte[]> seqs,
                BiConsumer<ConversationState, byte[]> setSeqs,
                ToLongFunction<ConversationState> count,
                ObjLongConsumer<ConversationState> setCount) {
            this.seqs = seqs;
            this.setSeqs = setSeqs;
            this.count = count;
            this.setCount = setCount;
        }

        byte[] seqs(ConversationState s) {
            return seqs.apply(s);
        }

        void seqs(ConversationState s, byte[] value) {
            setSeqs.accept(s, value);
        }

        long count(ConversationState s) {
            return count.applyAsLong(s);
        }

        void count(ConversationState s, long value) {
            setCount.accept(s, value);
        }
    }

    private final UnreadChunks chunks;
    private final Field field;

    public ConversationSeqs(UnreadChunks chunks, Field field) {
        this.chunks = chunks;
        this.field = field;
    }

    /** The unread seqs, in the states UnreadCounter declares for them. */
    public static ConversationSeqs unread(RuntimeContext context) {
        return unread(StateSchema.UNREAD.open(context));
    }

    /** The unread seqs, with these chunks for the sets that outgrow their records. */
    public static ConversationSeqs unread(UnreadChunks chunks) {
        return new ConversationSeqs(chunks, Field.UNREAD);
    }

    /** The unread seqs that mention the user, in the states UnreadCounter declares for them. */
    public static ConversationSeqs mentions(RuntimeContext context) {
        return new ConversationSeqs(StateSchema.MENTIONS.open(context), Field.MENTIONS);
    }

    /** The unread seqs that mention the user only channel-wide. */
    public static ConversationSeqs channelMentions(RuntimeContext context) {
        return new ConversationSeqs(
                StateSchema.CHANNEL_MENTIONS.open(context), Field.CHANNEL_MENTIONS);
    }

    /** The number of unread seqs in a conversation's state, whichever build wrote it. */
    public static long count(ConversationState state) {
        return state.unreadCount == 0 && !isEmpty(state.unreadSeqs)
                ? UnreadSeqs.of(state.unreadSeqs).count()
                : state.unreadCount;
    }

    /**
     * The count a conversation's state shows: its unread seqs, or 0 while the user has left the
     * conversation (newest membership event MEMBER_LEFT). The counter emits only this, and
     * republishing from a savepoint must write the same.
     */
    public static long visibleCount(ConversationState state) {
        return state.membership < 0 ? 0 : count(state);
    }

    /**
     * Gives a set an earlier build kept whole in the record its count, keeping it in the record in
     * this build's form when small and moving it into chunks otherwise; true when it did, and the
     * caller must then store the state. A one-time cost linear in the old set.
     */
    public boolean upgrade(long conversationId, ConversationState state) throws Exception {
        byte[] bytes = field.seqs(state);
        if (field.count(state) != 0 || isEmpty(bytes)) {
            return false;
        }
        UnreadSeqs old = UnreadSeqs.of(bytes);
        long[] runs = old.runs();
        if (old.count() <= SMALL) {
            long[] seqs = new long[(int) old.count()];
            int n = 0;
            for (int r = 0; r < runs.length; r += 2) {
                // Up to the run's last seq, which may be Long.MAX_VALUE.
                for (long seq = runs[r]; ; seq++) {
                    seqs[n++] = seq;
                    if (seq == runs[r + 1]) {
                        break;
                    }
                }
            }
            field.seqs(state, SmallSeqs.encode(seqs, 0, n));
        } else {
            chunks.addAll(conversationId, runs);
            field.seqs(state, UnreadSeqs.EMPTY);
        }
        field.count(state, old.count());
        return true;
    }

    /**
     * Adds a seq; false when it was already there.
     *
     * @throws IllegalArgumentException when seq is not positive
     */
    public boolean add(long conversationId, ConversationState state, long seq) throws Exception {
        if (seq < 1) {
            throw new IllegalArgumentException("seqs are positive: " + seq);
        }
        long count = field.count(state);
        if (inChunks(state)) {
            if (!chunks.addSeq(conversationId, seq)) {
                return false;
            }
        } else {
            int n = (int) count;
            long[] seqs = SmallSeqs.decode(field.seqs(state), n);
            int at = Arrays.binarySearch(seqs, 0, n, seq);
            if (at >= 0) {
                return false;
            }
            at = -at - 1;
            System.arraycopy(seqs, at, seqs, at + 1, n - at);
            seqs[at] = seq;
            n++;
            if (n <= SMALL) {
                field.seqs(state, SmallSeqs.encode(seqs, 0, n));
            } else {
                chunks.addAll(conversationId, SmallSeqs.runs(seqs, n));
                field.seqs(state, UnreadSeqs.EMPTY);
            }
        }
        field.count(state, count + 1);
        return true;
    }

    /** How many seqs the set holds, in a record of this build. */
    public long size(ConversationState state) {
        return field.count(state);
    }

    /** Whether the set holds the seq. */
    public boolean contains(long conversationId, ConversationState state, long seq)
            throws Exception {
        if (inChunks(state)) {
            return chunks.containsSeq(conversationId, seq);
        }
        int n = (int) field.count(state);
        return Arrays.binarySearch(SmallSeqs.decode(field.seqs(state), n), 0, n, seq) >= 0;
    }

    /** Calls {@code visit} with every seq of the set, ascending. */
    public void forEach(long conversationId, ConversationState state, LongConsumer visit)
            throws Exception {
        if (inChunks(state)) {
            chunks.forEachSeq(conversationId, visit);
            return;
        }
        int n = (int) field.count(state);
        long[] seqs = SmallSeqs.decode(field.seqs(state), n);
        for (int i = 0; i < n; i++) {
            visit.accept(seqs[i]);
        }
    }

    /** Removes one seq; false when it was not there. */
    public boolean remove(long conversationId, ConversationState state, long seq) throws Exception {
        long count = field.count(state);
        if (inChunks(state)) {
            if (!chunks.removeSeq(conversationId, seq)) {
                return false;
            }
        } else {
            int n = (int) count;
            long[] seqs = SmallSeqs.decode(field.seqs(state), n);
            int at = Arrays.binarySearch(seqs, 0, n, seq);
            if (at < 0) {
                return false;
            }
            System.arraycopy(seqs, at + 1, seqs, at, n - at - 1);
            field.seqs(state, SmallSeqs.encode(seqs, 0, n - 1));
        }
        field.count(state, count - 1);
        return true;
    }

    /** Removes every seq up to and including {@code cursor}; returns how many. */
    public long removeUpTo(long conversationId, ConversationState state, long cursor)
            throws Exception {
        long count = field.count(state);
        long removed;
        if (inChunks(state)) {
            removed = chunks.removeSeqsUpTo(conversationId, count, cursor);
        } else {
            int n = (int) count;
            long[] seqs = SmallSeqs.decode(field.seqs(state), n);
            int kept = 0;
            while (kept < n && seqs[kept] <= cursor) {
                kept++;
            }
            removed = kept;
            if (removed > 0) {
                field.seqs(state, SmallSeqs.encode(seqs, kept, n));
            }
        }
        field.count(state, count - removed);
        return removed;
    }

    /** Forgets every conversation's chunks of this set for the current user. */
    public void clear() {
        chunks.clear();
    }

    /** Bytes of chunks read and written so far: the work, for tests that bound it. */
    public long bytesTouched() {
        return chunks.bytesTouched();
    }

    /**
     * In chunks: the record holds a count but no seqs ({@link UnreadSeqs#EMPTY}, as the builds
     * before this one left it for sets in chunks).
     */
    private boolean inChunks(ConversationState state) {
        return field.count(state) > 0 && isEmpty(field.seqs(state));
    }

    private static boolean isEmpty(byte[] seqs) {
        return seqs == null || seqs.length <= UnreadSeqs.EMPTY.length;
    }
}
