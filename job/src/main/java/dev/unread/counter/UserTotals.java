package dev.unread.counter;

import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import java.util.Map;
import org.apache.flink.util.Collector;

/**
 * The app-icon totals (docs/contract.md, "App-icon totals"), kept in the user's inbox state as the
 * sum of every conversation's {@link Share}: an event changes one conversation, so it moves the
 * totals by the difference in that one share, never walking the user's conversations.
 */
final class UserTotals {

    private final UserStates states;
    private final Channels channels;

    UserTotals(UserStates states, Channels channels) {
        this.states = states;
        this.channels = channels;
    }

    /**
     * Adds {@code change} to the totals and writes out those that changed, all of them when this
     * incarnation has not written them yet; true when the user's state must be stored.
     */
    boolean add(long user, InboxState inbox, Share change, Collector<UnreadCount> out) {
        boolean refresh = inbox.totalsRefreshedIn != states.incarnation;
        inbox.totalsRefreshedIn = states.incarnation;
        Share before = Share.of(inbox);
        Share after = before.plus(change);
        after.storeIn(inbox);
        Projection.totals(user, before, after, refresh, out);
        return refresh || !change.isNone();
    }

    /**
     * Makes the totals hold every conversation's share: once per user whose state predates them (or
     * was built by the savepoint tools), a walk over the user's conversations; true when it walked.
     * Must run before the event reads its conversation, which the walk may read too.
     */
    boolean keep(InboxState inbox) throws Exception {
        if (inbox.totalsKept) {
            return false;
        }
        Share sum = Share.NONE;
        for (Map.Entry<Long, ConversationState> entry : states.conversations.entries()) {
            // A channel's record here holds its mark at most, which readers add themselves.
            if (!channels.isChannel(inbox, entry.getKey())) {
                sum = sum.plus(ConversationView.of(entry.getValue()).share());
            }
        }
        sum.storeIn(inbox);
        inbox.totalsKept = true;
        // Redis has never had these sums: write them all with this event.
        inbox.totalsRefreshedIn = 0;
        return true;
    }
}
