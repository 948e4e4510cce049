package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.util.Collector;

/**
 * A user's erasure (docs/contract.md, "Erasure"): {@code USER_ERASED} drops everything the counter
 * holds of the user but {@code erasedAt} and two facts of each conversation, not the user's: the
 * user's membership (which decides whether the user's later messages of a group count) and the
 * deleted seqs the user keeps ({@link Deletions}), so that a deleted message that comes after the
 * erasure does not count, though its deletion came before: the conversation's stage tells each user
 * a deletion once, and stamps only the messages it delivers itself (see GroupFanOut). The deleted
 * seqs kept are those past the cursor the erasure drops, so the cursor's bound holds with the
 * cursor at 0. It sends each output the erasure in order with the user's earlier records there: the
 * Redis sink deletes every key of the user, the MySQL sinks the user's rows, the readers stage the
 * user's cursor and score in each conversation the user has. The user's channels are left out:
 * their rows and readers' cursors are the channel stage's, which erases them itself when the
 * erasure reaches each channel ({@link Channels}) and may write them again at once, through other
 * subtasks than the user's records, which a late erasure from here would undo. Afterwards every
 * event of the user with a time at or before {@code erasedAt} changes nothing ({@link #covers});
 * later ones start the user afresh.
 *
 * <p>Its cost is one pass over the user's conversations and a clear of each of the user's states;
 * for every other event, one comparison with a field of the inbox state the event reads anyway.
 */
final class Erasure {

    private final UserStates states;
    private final Channels channels;

    /** The conversations the last erasure walked, for tests that bound its work. */
    private long visited;

    Erasure(UserStates states, Channels channels) {
        this.states = states;
        this.channels = channels;
    }

    /**
     * Whether {@code event} is one the user's erasure covers: it carries a time at or before the
     * newest {@code erasedAt}. The one guard of every kind, those to come included; membership
     * changes and deletions carry no time and are facts of the conversation, so they pass. An
     * erasure that is not newer is covered too: a duplicate changes nothing.
     */
    static boolean covers(ChatEvent event, InboxState user) {
        return event.time > 0 && event.time <= user.erasedAt;
    }

    /**
     * An {@code event} that the user's erasure {@link #covers} changes nothing, but one that could
     * move the user's cursor in a conversation (a read, or a message an ALL_READ read) goes to the
     * readers stage all the same, which takes out a score of the user there that it does not hold.
     * After a restore, Redis may hold the score a rolled-back timeline wrote for this event, taken
     * there before the erasure; taken first this time, the erasure met no such conversation and
     * removed no score from it. The user's other keys and rows the erasure deletes whole, whatever
     * the state held.
     */
    static void covered(ChatEvent event, Consumer<ReaderUpdate> readers) {
        if ((event.kind == ChatEvent.Kind.MESSAGE || event.kind == ChatEvent.Kind.CONVERSATION_READ)
                && event.conversationId > 0) {
            readers.accept(ReaderUpdate.covered(event.conversationId, event.userId));
        }
    }

    /** USER_ERASED, newer than any before it; the caller stores {@code user}. */
    void erase(
            ChatEvent erasure,
            InboxState user,
            Consumer<InboxCursor> inboxCursors,
            Consumer<ConversationCursor> conversationCursors,
            Collector<UnreadCount> out)
            throws Exception {
        long userId = erasure.userId;
        visited = 0;
        // Every key of the user goes, whatever state holds: a key may outlive what wrote it
        // (an idle expiry's deletes lost to a restore, another version's keys).
        out.collect(UnreadCount.erasure(userId, erasure.time));
        inboxCursors.accept(InboxCursor.erasure(userId));
        long[] userChannels = channels.of(user);
        conversationCursors.accept(ConversationCursor.erasureBut(userId, userChannels));
        List<long[]> facts = new ArrayList<>();
        for (Map.Entry<Long, ConversationState> entry : states.conversations.entries()) {
            visited++;
            long conversationId = entry.getKey();
            if (Arrays.binarySearch(userChannels, conversationId) < 0) {
                conversationCursors.accept(ConversationCursor.erasure(userId, conversationId));
            }
            ConversationState kept = entry.getValue();
            if (kept.membership != 0 || kept.deletedCount != 0) {
                facts.add(new long[] {conversationId, kept.membership, kept.deletedCount});
            }
        }
        states.forgetAllButDeletions(userId);
        states.threads.clear();
        user.erase(erasure.time);
        states.keep(userId, user);
        for (long[] kept : facts) {
            ConversationState conversation = ConversationState.fresh();
            conversation.membership = kept[1];
            conversation.deletedCount = kept[2];
            states.conversations.put(kept[0], conversation);
        }
    }

    /** Conversations the last erasure visited: the work, for tests that bound it. */
    long visited() {
        return visited;
    }
}
