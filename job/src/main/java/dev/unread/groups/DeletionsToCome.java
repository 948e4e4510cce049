package dev.unread.groups;

import dev.unread.seqs.UnreadChunks;
import dev.unread.state.StateSchema;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * Per conversation (the fan-out's key): the participants {@code chat-messages} records named in it,
 * and its deleted seqs, kept for participants still to come and for the messages still to come
 * ("Deleted messages" in the contract): every message the fan-out delivers carries whether its seq
 * is deleted by then.
 *
 * <p>A conversation's {@code chat-messages} records come on another topic than its deletions, so a
 * participant may first be seen after a deletion of a message to them, and may then receive that
 * message at any later time: whoever is seen for the first time is told every deletion kept.
 *
 * <p>No cursor can cut this memory without breaking the counts: a participant still to come has
 * read nothing, and who will come is not known; nor can a user's cursor, since a message still to
 * come may be a reply, which the conversation cursor does not govern. What bounds it is the
 * encoding: UnreadChunks' compact sets, at most 2 bytes a deleted seq, a few bytes a run, and never
 * more than one bit a seq of the conversation's range, however many deletions (duplicates included)
 * a producer sends. It never grows with messages, and it is kept once per conversation, not per
 * participant.
 */
final class DeletionsToCome {

    private final MapState<Long, Boolean> participants;
    private final MapState<Tuple2<Long, Long>, byte[]> deletedChunks;
    private final UnreadChunks deleted;

    DeletionsToCome(RuntimeContext context) {
        participants = context.getMapState(StateSchema.PARTICIPANTS);
        deletedChunks = context.getMapState(StateSchema.CONVERSATION_DELETED.chunks());
        deleted = StateSchema.CONVERSATION_DELETED.open(context);
    }

    /**
     * Keeps a deleted seq and tells every known participant; false for a duplicate, which found the
     * seq kept and everyone it would reach told.
     */
    boolean delete(long conversationId, long seq, LongConsumer tellUser) throws Exception {
        if (!deleted.addSeq(conversationId, seq)) {
            return false;
        }
        for (Long user : participants.keys()) {
            tellUser.accept(user);
        }
        return true;
    }

    /**
     * deleted(C,s) as far as the conversation's deletions have arrived: the stamp on a message the
     * fan-out delivers (see GroupFanOut).
     */
    boolean isDeleted(long conversationId, long seq) throws Exception {
        return deleted.containsSeq(conversationId, seq);
    }

    /** Whether no deletion and no participant of the conversation has come. */
    boolean isEmpty() throws Exception {
        return participants.isEmpty() && deletedChunks.isEmpty();
    }

    /** A participant named by a {@code chat-messages} record; a new one is told every seq kept. */
    void participant(long user, LongConsumer tellSeq) throws Exception {
        if (participants.contains(user)) {
            return;
        }
        participants.put(user, true);
        for (Map.Entry<Tuple2<Long, Long>, byte[]> chunk : deletedChunks.entries()) {
            long base = chunk.getKey().f1 << UnreadChunks.CHUNK_BITS;
            for (int low : UnreadChunks.values(chunk.getValue())) {
                tellSeq.accept(base | low);
            }
        }
    }
}
