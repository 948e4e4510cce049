package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.util.Collector;

/**
 * Optionally forgets a user idle for a whole number of days: what the user sees goes to nothing (so
 * Redis drops the keys) and all of the user's state is cleared but the channel list and erasedAt;
 * each of the user's channels is told, as the user's part in it is kept by its stage. Flink's own
 * state TTL is not used for this because it expires each map entry on its own, which would let the
 * badge count drift from the sender map and drop a watermark while keeping what it covers.
 *
 * <p>The setting may change at any restore, so a timer may have been set under another one: each
 * user's day of latest event is recorded whether expiry is on or not, and a timer forgets the user
 * only when expiry is on and that day is the setting's number of days behind. When a restore turns
 * expiry on or changes the days, {@link UnreadCounterOperator} gives every user the timer the
 * setting calls for; a user with no event recorded (state from before this field, or built by the
 * savepoint tools) counts as active on the day the idle clock started, see {@link #startIdleClock}.
 */
final class Expiry {

    static final long DAY_MS = Duration.ofDays(1).toMillis();

    private final UserStates states;
    private final Channels channels;

    /** Idle days after which a user's state is cleared; 0 keeps state forever. */
    private final long idleStateDays;

    /** The day a user with no day recorded counts as last active; see {@link #startIdleClock}. */
    private long idleClockStartDay;

    Expiry(UserStates states, Channels channels, long idleStateDays) {
        this.states = states;
        this.channels = channels;
        this.idleStateDays = idleStateDays;
    }

    /**
     * Records today as the user's active day, expiry on or off, so that a restore turning it on
     * finds how long each user has been idle; when on, moves the user's single expiry timer to the
     * end of the idle period: one state write and one timer per user per active day. True when the
     * user's state must be stored.
     */
    boolean markActive(TimerService timers, InboxState state) {
        long today = timers.currentProcessingTime() / DAY_MS;
        if (state.lastActiveDay == today) {
            return false;
        }
        if (idleStateDays > 0) {
            // A timer set under other days, or before a restore turned expiry on, is not found
            // here; the timer ignores it.
            timers.deleteProcessingTimeTimer(expiry(lastActiveDay(state)));
            timers.registerProcessingTimeTimer(expiry(today));
        }
        state.lastActiveDay = today;
        return true;
    }

    /**
     * Sets the day on which the idle clock started for users with no active day recorded; the
     * operator keeps it across restores. Until called, such users are never forgotten.
     */
    void startIdleClock(long day) {
        idleClockStartDay = day;
    }

    /** Sets the current user's expiry timer from their recorded activity. Changes no record. */
    void schedule(long user, TimerService timers) throws Exception {
        if (idleStateDays > 0) {
            timers.registerProcessingTimeTimer(expiry(lastActiveDay(states.storedInbox(user))));
        }
    }

    /**
     * A timer fired: forgets the user if still idle for the days set now, and tells each of the
     * user's channels, whose stage keeps the user's part in them ({@link Channels}).
     */
    void fire(long timestamp, long user, Consumer<ChatEvent> facts, Collector<UnreadCount> out)
            throws Exception {
        // A timer set before a restore changed the setting: expiry is off now, or the user has
        // not been idle for the days set now (their own timer, for the right day, is set too).
        if (idleStateDays == 0) {
            return;
        }
        InboxState inbox = states.storedInbox(user);
        if (timestamp < expiry(lastActiveDay(inbox))) {
            return;
        }
        if (inbox != null) {
            Projection.senders(user, inbox.unreadSenders, 0, false, out);
        }
        for (Map.Entry<Long, ConversationState> c : states.conversations.entries()) {
            Projection.conversation(
                    user,
                    c.getKey(),
                    ConversationView.of(c.getValue()),
                    ConversationView.NONE,
                    Refresh.NONE,
                    out);
        }
        if (inbox != null) {
            Projection.totals(user, Share.of(inbox), Share.NONE, false, out);
        }
        states.threads.expire(user, states.conversations, out);
        channels.toEach(ChatEvent.channelExpired(user, 0, timestamp), inbox, facts);
        states.forget(user);
        if (inbox != null && (inbox.erasedAt != 0 || inbox.channels != 0)) {
            // An erasure holds back older events for good, idle or not; the channel list stays.
            InboxState kept = new InboxState();
            kept.channels = inbox.channels;
            kept.erase(inbox.erasedAt);
            states.keep(user, kept);
        }
    }

    private long lastActiveDay(InboxState state) {
        return state == null || state.lastActiveDay == 0 ? idleClockStartDay : state.lastActiveDay;
    }

    private long expiry(long lastActiveDay) {
        return (lastActiveDay + idleStateDays + 1) * DAY_MS;
    }
}
