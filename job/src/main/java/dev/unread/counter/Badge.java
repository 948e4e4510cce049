package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.state.InboxState;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.util.Collector;

/**
 * The distinct-sender badge since the inbox was last opened (docs/contract.md): the senders whose
 * newest message is newer than the inbox watermark. Anything at or behind the watermark is dropped
 * on arrival, since it never moves back; so a message costs a point read and at most one write, and
 * an opening walks only the senders it may remove.
 */
final class Badge {

    private final UserStates states;

    Badge(UserStates states) {
        this.states = states;
    }

    /** Counts the sender of another user's message; true when the user's state changed. */
    boolean count(ChatEvent message, InboxState state, Collector<UnreadCount> out)
            throws Exception {
        long before = state.unreadSenders;
        if (message.time > state.lastReadAt) {
            Long newest = states.senders.get(message.senderId);
            if (newest == null) {
                states.senders.put(message.senderId, message.time);
                state.unreadSenders++;
            } else if (message.time > newest) {
                states.senders.put(message.senderId, message.time);
            }
        }
        return show(message.userId, state, before, out);
    }

    /** INBOX_OPENED; true when the user's state changed. */
    boolean open(
            ChatEvent read,
            InboxState state,
            Consumer<InboxCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        long before = state.unreadSenders;
        if (read.time <= state.lastReadAt) {
            return show(read.userId, state, before, out);
        }
        state.lastReadAt = read.time;
        // Each removed sender was paid for when added; a sender kept here wrote after this
        // reset, which a later reset will remove.
        for (Iterator<Map.Entry<Long, Long>> it = states.senders.iterator(); it.hasNext(); ) {
            if (it.next().getValue() <= read.time) {
                it.remove();
                state.unreadSenders--;
            }
        }
        show(read.userId, state, before, out);
        cursors.accept(new InboxCursor(read.userId, read.time));
        return true;
    }

    /**
     * Writes the badge out when it changed or this incarnation has not written it yet; true when
     * the user's state must be stored.
     */
    private boolean show(long user, InboxState state, long before, Collector<UnreadCount> out) {
        boolean refresh = state.refreshedIn != states.incarnation;
        state.refreshedIn = states.incarnation;
        Projection.senders(user, before, state.unreadSenders, refresh, out);
        return refresh || before != state.unreadSenders;
    }
}
