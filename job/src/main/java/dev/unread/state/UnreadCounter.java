package dev.unread.state;

import static dev.unread.state.UnreadChunks.visibleCount;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The semantics of docs/contract.md, per user (the key): the distinct-sender badge since the inbox
 * was last opened, and per conversation the unread seqs past a read cursor that only moves forward.
 *
 * <p>State holds only what can still count: senders whose newest message is newer than the inbox
 * watermark, and seqs past the conversation cursor. Anything at or behind a watermark or cursor is
 * dropped on arrival, since neither ever moves back. So a message costs a few point reads and at
 * most one write per state; a reset walks only the senders it may remove.
 *
 * <p>A user who left a group conversation (newest membership event MEMBER_LEFT, forwarded by {@link
 * GroupFanOut}) has its counts for it hidden: written as 0 while the unread seqs stay in state, and
 * written again when a newer MEMBER_JOINED brings them back. Leaving moves no cursor and does not
 * touch the badge.
 *
 * <p>Emits a {@link UnreadCount} only when a count changes, and the cursors to side outputs only
 * when they advance.
 *
 * <p>After a restore, Redis may hold counts from events processed after the checkpoint, a timeline
 * the restore rolled back, and the replay may reach the same final counts through other values (the
 * two topics interleave differently), so "write only on change" alone could leave a stale value. So
 * the first time an incarnation of the counter (each open, i.e. each start or restore) touches a
 * count, it writes it out even if unchanged: every count the lost timeline wrote is touched again
 * by the replay of the same events, and so rewritten.
 *
 * <p>Optionally a user idle for a whole number of days is forgotten: the counts go to 0 (so Redis
 * drops the keys) and all of the user's state is cleared. Flink's own state TTL is not used for
 * this because it expires each map entry on its own, which would let the badge count drift from the
 * sender map and drop a watermark while keeping what it covers.
 *
 * <p>The setting may change at any restore, so a timer may have been set under another one: each
 * user's day of latest event is recorded whether expiry is on or not, and a timer forgets the user
 * only when expiry is on and that day is the setting's number of days behind. When a restore turns
 * expiry on or changes the days, {@link UnreadCounterOperator} gives every user the timer the
 * setting calls for; a user with no event recorded (state from before this field, or built by the
 * savepoint tools) counts as active on the day the idle clock started, see {@link #startIdleClock}.
 */
public class UnreadCounter extends KeyedProcessFunction<Long, ChatEvent, UnreadCount> {

    public static final OutputTag<InboxCursor> INBOX_CURSORS = new OutputTag<>("inbox-cursors") {};

    public static final OutputTag<ConversationCursor> CONVERSATION_CURSORS =
            new OutputTag<>("conversation-cursors") {};

    /**
     * Inbox watermark and badge size. The three descriptors are public for the savepoint tools
     * (dev.unread.ops), which read and write this state outside the job.
     */
    public static final ValueStateDescriptor<InboxState> INBOX =
            new ValueStateDescriptor<>("inbox", InboxState.class);

    /**
     * Senders counted in the badge → newest {@code sentAt} seen from them, needed so a late reset
     * keeps a sender who also wrote after it. One RocksDB entry per sender.
     */
    public static final MapStateDescriptor<Long, Long> SENDERS =
            new MapStateDescriptor<>("senders", Types.LONG, Types.LONG);

    /** Conversation id → cursor and unread count (and seqs, in states of earlier builds). */
    public static final MapStateDescriptor<Long, ConversationState> CONVERSATIONS =
            new MapStateDescriptor<>(
                    "conversations", Types.LONG, Types.POJO(ConversationState.class));

    /** (Conversation id, seq {@code >>> 16}) → that chunk of the unread seqs; see UnreadChunks. */
    public static final MapStateDescriptor<Tuple2<Long, Long>, byte[]> UNREAD_CHUNKS =
            new MapStateDescriptor<>(
                    "unread-chunks",
                    Types.TUPLE(Types.LONG, Types.LONG),
                    PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

    /** Conversation id → the indices of its non-empty chunks, ascending; see UnreadChunks. */
    public static final MapStateDescriptor<Long, long[]> UNREAD_CHUNK_INDEX =
            new MapStateDescriptor<>(
                    "unread-chunk-index",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    static final long DAY_MS = Duration.ofDays(1).toMillis();

    /** The longest idle period: 100 years, far inside what a timer's epoch milliseconds hold. */
    public static final long MAX_IDLE_STATE_DAYS = 36_500;

    /** Idle days after which a user's state is cleared; 0 keeps state forever. */
    private final long idleStateDays;

    /** Random per open; 0 is never one, so state from before this field always refreshes. */
    private transient long incarnation;

    /** The day a user with no day recorded counts as last active; see {@link #startIdleClock}. */
    private transient long idleClockStartDay;

    private transient ValueState<InboxState> inbox;
    private transient MapState<Long, Long> senders;
    private transient MapState<Long, ConversationState> conversations;

    private transient UnreadChunks unreadSeqs;

    /** Keeps every user's state forever. */
    public UnreadCounter() {
        this(0);
    }

    public UnreadCounter(long idleStateDays) {
        if (idleStateDays < 0 || idleStateDays > MAX_IDLE_STATE_DAYS) {
            throw new IllegalArgumentException(
                    "idleStateDays must be >= 0 and at most "
                            + MAX_IDLE_STATE_DAYS
                            + " (100 years), was "
                            + idleStateDays
                            + "; 0 keeps state forever");
        }
        this.idleStateDays = idleStateDays;
    }

    @Override
    public void open(OpenContext openContext) {
        do {
            incarnation = ThreadLocalRandom.current().nextLong();
        } while (incarnation == 0);
        inbox = getRuntimeContext().getState(INBOX);
        senders = getRuntimeContext().getMapState(SENDERS);
        conversations = getRuntimeContext().getMapState(CONVERSATIONS);
        unreadSeqs =
                new UnreadChunks(
                        getRuntimeContext().getMapState(UNREAD_CHUNKS),
                        getRuntimeContext().getMapState(UNREAD_CHUNK_INDEX));
    }

    /** Bytes of unread seqs read and written so far: the work, for tests that bound it. */
    long seqBytesTouched() {
        return unreadSeqs.bytesTouched();
    }

    @Override
    public void processElement(ChatEvent event, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        markActive(ctx.timerService());
        switch (event.kind) {
            case MESSAGE:
                // A user's own message counts toward nothing.
                if (event.senderId != event.userId) {
                    countSender(event, out);
                    if (event.hasConversation()) {
                        countSeq(event, out);
                    }
                }
                break;
            case INBOX_OPENED:
                openInbox(event, ctx, out);
                break;
            case CONVERSATION_READ:
                readConversation(event, ctx, out);
                break;
            case MEMBER_JOINED:
            case MEMBER_LEFT:
                changeMembership(event, out);
                break;
            default:
                throw new IllegalArgumentException("unknown event kind " + event.kind);
        }
    }

    private void countSender(ChatEvent message, Collector<UnreadCount> out) throws Exception {
        InboxState state = inboxState();
        boolean changed = false;
        if (message.time > state.lastReadAt) {
            Long newest = senders.get(message.senderId);
            if (newest == null) {
                senders.put(message.senderId, message.time);
                state.unreadSenders++;
                changed = true;
            } else if (message.time > newest) {
                senders.put(message.senderId, message.time);
            }
        }
        emitBadge(message.userId, state, changed, out);
    }

    /** Writes the badge out when it changed or this incarnation has not written it yet. */
    private void emitBadge(long user, InboxState state, boolean changed, Collector<UnreadCount> out)
            throws Exception {
        if (changed || state.refreshedIn != incarnation) {
            state.refreshedIn = incarnation;
            inbox.update(state);
            out.collect(UnreadCount.senders(user, state.unreadSenders));
        }
    }

    private void countSeq(ChatEvent message, Collector<UnreadCount> out) throws Exception {
        ConversationState state = conversations.get(message.conversationId);
        if (state == null) {
            state = new ConversationState();
        }
        // A set moved into chunks is stored even if the message is not new to it.
        boolean changed = unreadSeqs.migrate(message.conversationId, state);
        if (message.seq > state.lastReadSeq
                && unreadSeqs.add(message.conversationId, state, message.seq)) {
            changed = true;
        }
        boolean shown = changed && state.membership >= 0;
        if (!emitConversation(message.userId, message.conversationId, state, shown, out)
                && changed) {
            conversations.put(message.conversationId, state);
        }
    }

    private void changeMembership(ChatEvent change, Collector<UnreadCount> out) throws Exception {
        long membership = change.kind == ChatEvent.Kind.MEMBER_JOINED ? change.seq : -change.seq;
        ConversationState state = conversations.get(change.conversationId);
        if (state == null) {
            // Nothing counted yet, so nothing to show or hide: the first count writes itself.
            state = new ConversationState();
            state.membership = membership;
            conversations.put(change.conversationId, state);
            return;
        }
        if (!GroupFanOut.after(membership, state.membership)) {
            emitConversation(change.userId, change.conversationId, state, false, out);
            return;
        }
        boolean hiddenBefore = state.membership < 0;
        state.membership = membership;
        boolean changed = hiddenBefore != membership < 0 && UnreadChunks.count(state) > 0;
        if (!emitConversation(change.userId, change.conversationId, state, changed, out)) {
            conversations.put(change.conversationId, state);
        }
    }

    /**
     * Writes a conversation count out, and its state, when it changed or this incarnation has not
     * written it yet; false when it did neither.
     */
    private boolean emitConversation(
            long user,
            long conversationId,
            ConversationState state,
            boolean changed,
            Collector<UnreadCount> out)
            throws Exception {
        if (changed || state.refreshedIn != incarnation) {
            state.refreshedIn = incarnation;
            conversations.put(conversationId, state);
            out.collect(UnreadCount.conversation(user, conversationId, visibleCount(state)));
            return true;
        }
        return false;
    }

    private void openInbox(ChatEvent read, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        InboxState state = inboxState();
        if (read.time <= state.lastReadAt) {
            emitBadge(read.userId, state, false, out);
            return;
        }
        state.lastReadAt = read.time;
        long before = state.unreadSenders;
        // Each removed sender was paid for when added; a sender kept here wrote after this
        // reset, which a later reset will remove.
        for (Iterator<Map.Entry<Long, Long>> it = senders.iterator(); it.hasNext(); ) {
            if (it.next().getValue() <= read.time) {
                it.remove();
                state.unreadSenders--;
            }
        }
        inbox.update(state);
        emitBadge(read.userId, state, state.unreadSenders != before, out);
        ctx.output(INBOX_CURSORS, new InboxCursor(read.userId, read.time));
    }

    private void readConversation(ChatEvent read, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        ConversationState state = conversations.get(read.conversationId);
        if (state != null && read.seq <= state.lastReadSeq) {
            emitConversation(read.userId, read.conversationId, state, false, out);
            return;
        }
        if (read.seq == 0) {
            return;
        }
        if (state == null) {
            state = new ConversationState();
        }
        state.lastReadSeq = read.seq;
        unreadSeqs.migrate(read.conversationId, state);
        long removed = unreadSeqs.removeUpTo(read.conversationId, state, read.seq);
        boolean shown = removed > 0 && state.membership >= 0;
        if (!emitConversation(read.userId, read.conversationId, state, shown, out)) {
            conversations.put(read.conversationId, state);
        }
        ctx.output(
                CONVERSATION_CURSORS,
                new ConversationCursor(
                        read.userId, read.conversationId, read.seq, visibleCount(state)));
    }

    /**
     * Records today as the user's active day, expiry on or off, so that a restore turning it on
     * finds how long each user has been idle; when on, moves the user's single expiry timer to the
     * end of the idle period: one state write and one timer per user per active day.
     */
    private void markActive(TimerService timers) throws Exception {
        long today = timers.currentProcessingTime() / DAY_MS;
        InboxState state = inboxState();
        if (state.lastActiveDay == today) {
            return;
        }
        if (idleStateDays > 0) {
            // A timer set under other days, or before a restore turned expiry on, is not found
            // here; onTimer ignores it.
            timers.deleteProcessingTimeTimer(expiry(lastActiveDay(state)));
            timers.registerProcessingTimeTimer(expiry(today));
        }
        state.lastActiveDay = today;
        inbox.update(state);
    }

    /**
     * Sets the day on which the idle clock started for users with no active day recorded; the
     * operator keeps it across restores. Until called, such users are never forgotten.
     */
    void startIdleClock(long day) {
        idleClockStartDay = day;
    }

    /**
     * Sets the current user's expiry timer from their recorded activity; for {@link
     * UnreadCounterOperator} when a restore turned expiry on or changed its days. Only reads state,
     * so it may run while the operator walks the keys.
     */
    void scheduleExpiry(TimerService timers) throws Exception {
        if (idleStateDays > 0) {
            timers.registerProcessingTimeTimer(expiry(lastActiveDay(inbox.value())));
        }
    }

    private long lastActiveDay(InboxState state) {
        return state == null || state.lastActiveDay == 0 ? idleClockStartDay : state.lastActiveDay;
    }

    private long expiry(long lastActiveDay) {
        return (lastActiveDay + idleStateDays + 1) * DAY_MS;
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<UnreadCount> out)
            throws Exception {
        // A timer set before a restore changed the setting: expiry is off now, or the user has
        // not been idle for the days set now (their own timer, for the right day, is set too).
        if (idleStateDays == 0) {
            return;
        }
        InboxState state = inbox.value();
        if (timestamp < expiry(lastActiveDay(state))) {
            return;
        }
        long user = ctx.getCurrentKey();
        if (state != null && state.unreadSenders > 0) {
            out.collect(UnreadCount.senders(user, 0));
        }
        for (Map.Entry<Long, ConversationState> c : conversations.entries()) {
            if (UnreadChunks.count(c.getValue()) > 0) {
                out.collect(UnreadCount.conversation(user, c.getKey(), 0));
            }
        }
        inbox.clear();
        senders.clear();
        conversations.clear();
        unreadSeqs.clear();
    }

    private InboxState inboxState() throws Exception {
        InboxState state = inbox.value();
        return state == null ? new InboxState() : state;
    }
}
