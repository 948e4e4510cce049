package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.util.Collector;

/**
 * ALL_READ (docs/contract.md, "Mark all as read"): at allReadAt, the newest ALL_READ's {@code
 * readAt}, an INBOX_OPENED; for every conversation a CONVERSATION_READ up to the largest message
 * from others sent by then, and for every thread a THREAD_READ up to its largest such reply,
 * deleted or not. A mark made by then is cleared.
 *
 * <p>When it arrives, one pass over the user's conversations and, of their threads, the pending
 * ones (unread replies or a kept {@code sentAt}, see {@link ThreadSets}; not the threads kept only
 * for a cursor or a follow, which it cannot move), with their kept {@code sentAt}s ({@link
 * SentAts}), finds those cursors, and each conversation or thread whose cursor moves is read as a
 * read would. After it, nothing is walked: a message sent by allReadAt that arrives later moves its
 * cursor itself ({@link ReadTrack#message}), and a mark made by then is not kept ({@link
 * Conversations#mark}). An older ALL_READ reads less than the newest, so it changes nothing.
 */
final class AllRead {

    private final UserStates states;
    private final Badge badge;
    private final Conversations conversations;

    /** State entries read by the passes so far: the work, for tests that bound it. */
    private long visited;

    AllRead(UserStates states, Badge badge, Conversations conversations) {
        this.states = states;
        this.badge = badge;
        this.conversations = conversations;
    }

    /** True when the user's inbox state changed. */
    boolean apply(
            ChatEvent allRead,
            InboxState user,
            Consumer<InboxCursor> inboxCursors,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        long at = allRead.time;
        boolean dirty =
                badge.open(ChatEvent.inboxOpened(allRead.userId, at), user, inboxCursors, out);
        if (at <= user.allReadAt) {
            return dirty;
        }
        user.allReadAt = at;
        List<long[]> reads = new ArrayList<>();
        List<Long> withThreads = new ArrayList<>();
        for (Map.Entry<Long, ConversationState> e : states.conversations.entries()) {
            ConversationState c = e.getValue();
            if (c.unreadThreadCount > 0 || c.threadsIndexed < ConversationState.THREADS_INDEXED) {
                withThreads.add(e.getKey());
            }
            visited += SentAts.inState(c.sentAts) ? 2 : 1;
            long seq = states.sentAts.sentBy(e.getKey(), 0, c.sentAts, at);
            boolean restored = c.sentAtKept == 0 && ConversationSeqs.count(c) > 0;
            boolean clearsMark = c.markedAt > c.lastReadAt && c.markedAt <= at;
            if (seq > c.lastReadSeq || restored || clearsMark) {
                reads.add(new long[] {e.getKey(), seq});
            }
        }
        // One request raises a cursor in each of the user's conversations with something unread:
        // their receipts go to READ_PROGRESS_CHANGED alone, not to every participant of each
        // (ConversationReaders), which made one ALL_READ publish 3,000 (issue 45).
        Consumer<ConversationCursor> raised =
                cursor -> {
                    cursor.allRead = true;
                    cursors.accept(cursor);
                };
        for (long[] read : reads) {
            conversations.allRead(allRead.userId, read[0], read[1], at, user, raised, out);
        }
        Map<Tuple2<Long, Long>, Long> threads = new HashMap<>();
        for (long conversationId : withThreads) {
            ConversationState c = states.conversation(conversationId);
            if (states.threads.readBy(conversationId, c, at, threads, n -> visited += n)) {
                states.conversations.put(conversationId, c);
            }
        }
        for (Map.Entry<Tuple2<Long, Long>, Long> t : threads.entrySet()) {
            conversations.thread(
                    ChatEvent.threadRead(
                            allRead.userId, t.getKey().f0, t.getKey().f1, t.getValue(), at),
                    user,
                    out);
        }
        return true;
    }

    long visited() {
        return visited;
    }
}
