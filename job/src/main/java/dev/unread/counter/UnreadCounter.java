package dev.unread.counter;

import static dev.unread.counter.ConversationSeqs.visibleCount;

import dev.unread.contract.Count;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.groups.GroupFanOut;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.Memberships;
import dev.unread.state.StateSchema;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
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
 * <p>Per conversation it also keeps the unread seqs that mention the user (a second chunked set, a
 * subset of the unread seqs, cut by the same cursor), the count preference (newest {@code setAt}
 * wins, the quieter on a tie) and the newest mark and read times (marked while the mark is newer).
 * The app-icon totals are kept in the user's inbox state as sums of each conversation's share (see
 * {@link Totals}): an event changes one conversation, so it moves the totals by the difference in
 * that one share, never walking the user's conversations. Each share, hence each total, is a
 * function of the set of events, so the totals are too.
 *
 * <p>Replies count in their threads ({@link Threads}), never in their conversation; the
 * conversation's state holds the followed threads' share of the totals, so one conversation change
 * still moves the totals by one difference.
 *
 * <p>A deleted message ({@link Deletions}) leaves the unread and mention seqs, and the counter
 * keeps its seq past the cursor so that the message never counts, whether it comes before or after.
 * A message that the conversation's stage delivers stamped deleted ({@link ChatEvent#deleted})
 * counts toward the badge and makes followers, and toward nothing else.
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
     * Participants with their cursors, found in state restored from an older version for the
     * readers stage, which that version did not have or filled only from later reads; see {@link
     * #catchUp}. No receipt goes out for these.
     */
    public static final OutputTag<ReaderUpdate> KNOWN_READERS =
            new OutputTag<>("known-readers", Types.POJO(ReaderUpdate.class));

    static final long DAY_MS = Duration.ofDays(1).toMillis();

    /** Users whose inbox state {@link #inboxCache} keeps, per subtask: about 10 MiB of heap. */
    static final int INBOX_CACHE_USERS = 1 << 16;

    /** The longest idle period: 100 years, far inside what a timer's epoch milliseconds hold. */
    public static final long MAX_IDLE_STATE_DAYS = 36_500;

    /** Idle days after which a user's state is cleared; 0 keeps state forever. */
    private final long idleStateDays;

    /** Random per open; 0 is never one, so state from before this field always refreshes. */
    private transient long incarnation;

    /** The day a user with no day recorded counts as last active; see {@link #startIdleClock}. */
    private transient long idleClockStartDay;

    private transient ValueState<InboxState> inbox;

    /**
     * The inbox states of the users seen last, deserialized, in access order. Every message reads
     * its receiver's inbox state, and reading it from RocksDB and through Flink's reflective POJO
     * serializer was a third of the counting task's time in a profile. Writes still go to the state
     * at once, so the state (and every checkpoint) stays the truth and this is only ever a copy of
     * it: it is dropped with the function on a restore and never read across one.
     */
    private transient Map<Long, InboxState> inboxCache;

    private transient MapState<Long, Long> senders;
    private transient MapState<Long, ConversationState> conversations;

    private transient ConversationSeqs unreadSeqs;
    private transient ConversationSeqs mentionSeqs;

    private transient Deletions deletions;
    private transient Threads threads;

    /** The conversation change being handled; one event at a time. */
    private transient Change change;

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
        inbox = getRuntimeContext().getState(StateSchema.INBOX);
        inboxCache =
                new LinkedHashMap<>(1024, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Long, InboxState> eldest) {
                        return size() > INBOX_CACHE_USERS;
                    }
                };
        senders = getRuntimeContext().getMapState(StateSchema.SENDERS);
        conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
        unreadSeqs = ConversationSeqs.unread(getRuntimeContext());
        mentionSeqs = ConversationSeqs.mentions(getRuntimeContext());
        deletions = new Deletions(getRuntimeContext());
        threads = new Threads(getRuntimeContext(), incarnation);
        change = new Change();
    }

    /** Bytes of unread seqs read and written so far: the work, for tests that bound it. */
    long seqBytesTouched() {
        return unreadSeqs.bytesTouched();
    }

    /** Threads read to find or show other threads so far: the work, for tests that bound it. */
    long threadsVisited() {
        return threads.threadsVisited();
    }

    @Override
    public void processElement(ChatEvent event, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        InboxState user = inboxState(ctx.getCurrentKey());
        boolean dirty = markActive(ctx.timerService(), user);
        switch (event.kind) {
            case MESSAGE:
                // A user's own message counts toward nothing; it only tells the user's threads.
                if (event.senderId != event.userId) {
                    dirty |= countSender(event, user, out);
                }
                if (event.hasConversation()) {
                    dirty |= countSeq(event, user, out);
                }
                break;
            case THREAD_READ:
            case THREAD_FOLLOWED:
                dirty |= changeThread(event, user, out);
                break;
            case INBOX_OPENED:
                dirty |= openInbox(event, user, ctx, out);
                break;
            case CONVERSATION_READ:
                dirty |= readConversation(event, user, ctx, out);
                break;
            case MEMBER_JOINED:
            case MEMBER_LEFT:
                dirty |= changeMembership(event, user, out);
                break;
            case CONVERSATION_PREFERENCE:
                dirty |= setPreference(event, user, out);
                break;
            case CONVERSATION_MARKED_UNREAD:
                dirty |= markUnread(event, user, out);
                break;
            case MESSAGE_DELETED:
                dirty |= deleteMessage(event, user, out);
                break;
            default:
                throw new IllegalArgumentException("unknown event kind " + event.kind);
        }
        if (dirty) {
            inbox.update(user);
        }
    }

    /** Counts the sender in the badge; true when the user's state changed. */
    private boolean countSender(ChatEvent message, InboxState state, Collector<UnreadCount> out)
            throws Exception {
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
        return emitBadge(message.userId, state, changed, out);
    }

    /**
     * Writes the badge out when it changed or this incarnation has not written it yet; true when
     * the user's state must be stored.
     */
    private boolean emitBadge(
            long user, InboxState state, boolean changed, Collector<UnreadCount> out) {
        if (changed || state.refreshedIn != incarnation) {
            state.refreshedIn = incarnation;
            out.collect(UnreadCount.senders(user, state.unreadSenders));
            return true;
        }
        return false;
    }

    private boolean countSeq(ChatEvent message, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        if (message.senderId == message.userId && !message.isReply()) {
            return noteOwnMessage(message, user, out);
        }
        boolean dirty = keepTotals(user);
        Change change = begin(message.conversationId);
        ConversationState state = change.state;
        if (message.isReply()) {
            change.stored |= threads.reply(message, state, deletions, out);
            return settle(message.userId, change, user, out) | dirty;
        }
        if (message.mentioned && threads.noteInvolved(message, state)) {
            change.stored = true;
            if (threads.rootsUninvolvedThread(message)) {
                change.stored |=
                        threads.involveThread(
                                message.userId, message.conversationId, message.seq, state, out);
            }
        }
        if (message.seq > state.lastReadSeq
                && !message.deleted
                && !deletions.isDeleted(message.conversationId, state, message.seq)) {
            change.stored |= unreadSeqs.add(message.conversationId, state, message.seq);
            if (message.mentioned) {
                change.stored |= mentionSeqs.add(message.conversationId, state, message.seq);
            }
        }
        return settle(message.userId, change, user, out) | dirty;
    }

    /**
     * A user's own conversation message counts toward nothing: it is noted in the conversation's
     * record as a root the user follows by default, without the counts being read or written out,
     * unless a thread of it came first and must learn so.
     */
    private boolean noteOwnMessage(ChatEvent message, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        ConversationState state = conversations.get(message.conversationId);
        if (state == null) {
            state = ConversationState.fresh();
        }
        if (!threads.noteInvolved(message, state)) {
            return false;
        }
        conversations.put(message.conversationId, state);
        if (!threads.rootsUninvolvedThread(message)) {
            return false;
        }
        boolean dirty = keepTotals(user);
        Change change = begin(message.conversationId);
        change.stored |=
                threads.involveThread(
                        message.userId, message.conversationId, message.seq, change.state, out);
        return settle(message.userId, change, user, out) | dirty;
    }

    private boolean changeMembership(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        long membership = event.kind == ChatEvent.Kind.MEMBER_JOINED ? event.seq : -event.seq;
        ConversationState existing = conversations.get(event.conversationId);
        if (existing == null) {
            // Nothing counted yet, so nothing to show or hide, no share of the totals: the first
            // count writes itself.
            ConversationState state = ConversationState.fresh();
            state.membership = membership;
            conversations.put(event.conversationId, state);
            return false;
        }
        boolean dirty = keepTotals(user);
        Change change = begin(event.conversationId);
        if (Memberships.after(membership, change.state.membership)) {
            boolean wasShown = change.state.membership >= 0;
            change.state.membership = membership;
            change.stored = true;
            if (wasShown != membership >= 0) {
                threads.membershipChanged(event.userId, event.conversationId, change.state, out);
            }
        }
        return settle(event.userId, change, user, out) | dirty;
    }

    private boolean readConversation(
            ChatEvent read, InboxState user, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = keepTotals(user);
        Change change = begin(read.conversationId);
        ConversationState state = change.state;
        if (read.time > state.lastReadAt) {
            // A newer read clears a mark, whatever its seq.
            state.lastReadAt = read.time;
            change.stored = true;
        }
        boolean advanced = read.seq > state.lastReadSeq;
        if (advanced) {
            state.lastReadSeq = read.seq;
            unreadSeqs.removeUpTo(read.conversationId, state, read.seq);
            mentionSeqs.removeUpTo(read.conversationId, state, read.seq);
            deletions.cut(read.conversationId, state, read.seq);
            change.stored = true;
        }
        dirty |= settle(read.userId, change, user, out);
        if (advanced) {
            ctx.output(
                    CONVERSATION_CURSORS,
                    new ConversationCursor(
                            read.userId, read.conversationId, read.seq, visibleCount(state)));
        }
        return dirty;
    }

    /** See {@link Deletions}: the message leaves every count, whenever it comes. */
    private boolean deleteMessage(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = keepTotals(user);
        Change change = begin(event.conversationId);
        change.stored |=
                deletions.delete(
                        event.conversationId, change.state, event.seq, unreadSeqs, mentionSeqs);
        change.stored |=
                threads.delete(event.userId, event.conversationId, event.seq, change.state, out);
        return settle(event.userId, change, user, out) | dirty;
    }

    /** THREAD_READ or THREAD_FOLLOWED, see {@link Threads}. */
    private boolean changeThread(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = keepTotals(user);
        Change change = begin(event.conversationId);
        change.stored |=
                event.kind == ChatEvent.Kind.THREAD_READ
                        ? threads.read(event, change.state, out)
                        : threads.follow(event, change.state, out);
        return settle(event.userId, change, user, out) | dirty;
    }

    private boolean setPreference(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = keepTotals(user);
        Change change = begin(event.conversationId);
        ConversationState state = change.state;
        // The newest setAt wins; on a tie the quieter preference (the greater value).
        if (event.time > state.preferenceSetAt
                || (event.time == state.preferenceSetAt && event.seq > state.preference)) {
            state.preferenceSetAt = event.time;
            state.preference = event.seq;
            change.stored = true;
        }
        return settle(event.userId, change, user, out) | dirty;
    }

    private boolean markUnread(ChatEvent event, InboxState user, Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = keepTotals(user);
        Change change = begin(event.conversationId);
        if (event.time > change.state.markedAt) {
            change.state.markedAt = event.time;
            change.stored = true;
        }
        return settle(event.userId, change, user, out) | dirty;
    }

    /**
     * One conversation's state being changed by one event, with what it showed before: {@link
     * #settle} writes out what the change made different. Reused, as the counter handles one event
     * at a time.
     */
    private static final class Change {
        long conversationId;
        ConversationState state;
        boolean stored;
        long unread;
        long mentions;
        boolean marked;
        long preference;
        long threads;
        long threadMentions;
    }

    /** Reads a conversation's state (new when none) and what it shows now. */
    private Change begin(long conversationId) throws Exception {
        ConversationState state = conversations.get(conversationId);
        if (state == null) {
            state = ConversationState.fresh();
        }
        change.conversationId = conversationId;
        change.state = state;
        // A set an earlier build kept is stored upgraded even if the event changes nothing else.
        change.stored = unreadSeqs.upgrade(conversationId, state);
        change.unread = visibleCount(state);
        change.mentions = Totals.visibleMentions(state);
        change.marked = Totals.marked(state);
        change.preference = state.preference;
        change.threads = Totals.threads(state);
        change.threadMentions = Totals.threadMentions(state);
        return change;
    }

    /**
     * Writes out the conversation's counts that changed, all of them when this incarnation has not
     * written them yet, stores its state when needed, and moves the totals by the difference in the
     * conversation's share; true when the user's state must be stored.
     */
    private boolean settle(long user, Change c, InboxState totals, Collector<UnreadCount> out)
            throws Exception {
        ConversationState state = c.state;
        long unread = visibleCount(state);
        long mentions = Totals.visibleMentions(state);
        boolean marked = Totals.marked(state);
        boolean refresh = state.refreshedIn != incarnation;
        if (refresh) {
            state.refreshedIn = incarnation;
        }
        if (refresh || unread != c.unread) {
            out.collect(UnreadCount.conversation(user, c.conversationId, unread));
        }
        if (refresh || mentions != c.mentions) {
            out.collect(UnreadCount.mentions(user, c.conversationId, mentions));
        }
        if (refresh || marked != c.marked) {
            out.collect(UnreadCount.marked(user, c.conversationId, marked));
        }
        if (refresh || c.stored) {
            conversations.put(c.conversationId, state);
        }
        long messages =
                Totals.messages(unread, state.preference) - Totals.messages(c.unread, c.preference);
        long mentionShare =
                Totals.mentions(mentions, state.preference)
                        + Totals.threadMentions(state)
                        - Totals.mentions(c.mentions, c.preference)
                        - c.threadMentions;
        long conversationShare =
                Totals.conversations(unread, mentions, state.preference, marked)
                        - Totals.conversations(c.unread, c.mentions, c.preference, c.marked);
        long threadShare = Totals.threads(state) - c.threads;
        return emitTotals(
                user, totals, messages, mentionShare, conversationShare, threadShare, out);
    }

    /**
     * Adds the differences to the totals and writes out those that changed, all three when this
     * incarnation has not written them yet; true when the user's state must be stored.
     */
    private boolean emitTotals(
            long user,
            InboxState state,
            long messages,
            long mentions,
            long conversations,
            long threadCount,
            Collector<UnreadCount> out) {
        boolean refresh = state.totalsRefreshedIn != incarnation;
        state.totalsRefreshedIn = incarnation;
        state.totalMessages += messages;
        state.totalMentions += mentions;
        state.totalConversations += conversations;
        state.totalThreads += threadCount;
        if (refresh || messages != 0) {
            out.collect(UnreadCount.total(user, Count.TOTAL_MESSAGES, state.totalMessages));
        }
        if (refresh || mentions != 0) {
            out.collect(UnreadCount.total(user, Count.TOTAL_MENTIONS, state.totalMentions));
        }
        if (refresh || conversations != 0) {
            out.collect(
                    UnreadCount.total(user, Count.TOTAL_CONVERSATIONS, state.totalConversations));
        }
        if (refresh || threadCount != 0) {
            out.collect(UnreadCount.total(user, Count.TOTAL_THREADS, state.totalThreads));
        }
        return refresh || messages != 0 || mentions != 0 || conversations != 0 || threadCount != 0;
    }

    /**
     * Makes the totals hold every conversation's share: once per user whose state predates them (or
     * was built by the savepoint tools), a walk over the user's conversations; true when it walked.
     * Must run before the event reads its conversation, which the walk may read too.
     */
    private boolean keepTotals(InboxState state) throws Exception {
        if (state.totalsKept) {
            return false;
        }
        long messages = 0;
        long mentions = 0;
        long marked = 0;
        long threadCount = 0;
        for (Map.Entry<Long, ConversationState> entry : conversations.entries()) {
            ConversationState c = entry.getValue();
            long unread = visibleCount(c);
            long mentioned = Totals.visibleMentions(c);
            messages += Totals.messages(unread, c.preference);
            mentions += Totals.mentions(mentioned, c.preference) + Totals.threadMentions(c);
            marked += Totals.conversations(unread, mentioned, c.preference, Totals.marked(c));
            threadCount += Totals.threads(c);
        }
        state.totalMessages = messages;
        state.totalMentions = mentions;
        state.totalConversations = marked;
        state.totalThreads = threadCount;
        state.totalsKept = true;
        // Redis has never had these sums: write all three with this event.
        state.totalsRefreshedIn = 0;
        return true;
    }

    private boolean openInbox(
            ChatEvent read, InboxState state, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        if (read.time <= state.lastReadAt) {
            return emitBadge(read.userId, state, false, out);
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
        emitBadge(read.userId, state, state.unreadSenders != before, out);
        ctx.output(INBOX_CURSORS, new InboxCursor(read.userId, read.time));
        return true;
    }

    /**
     * Records today as the user's active day, expiry on or off, so that a restore turning it on
     * finds how long each user has been idle; when on, moves the user's single expiry timer to the
     * end of the idle period: one state write and one timer per user per active day. True when the
     * user's state must be stored.
     */
    private boolean markActive(TimerService timers, InboxState state) {
        long today = timers.currentProcessingTime() / DAY_MS;
        if (state.lastActiveDay == today) {
            return false;
        }
        if (idleStateDays > 0) {
            // A timer set under other days, or before a restore turned expiry on, is not found
            // here; onTimer ignores it.
            timers.deleteProcessingTimeTimer(expiry(lastActiveDay(state)));
            timers.registerProcessingTimeTimer(expiry(today));
        }
        state.lastActiveDay = today;
        return true;
    }

    /**
     * Brings the current user's output up to what this version writes, for {@link
     * UnreadCounterOperator} after a restore from an older version's state, before the first event:
     * sums the totals once where they were never kept (and writes them), and hands {@code readers},
     * unless null, each conversation the user takes part in (has not left) with its cursor. Older
     * versions wrote the totals only once a conversation event touched the user, and version 1 had
     * no readers stage at all, so without this a user with no such event would have neither. Writes
     * only the user's inbox state, so it may run while the operator walks the keys of {@link
     * #CONVERSATIONS}.
     */
    void catchUp(long user, Collector<UnreadCount> out, Consumer<ReaderUpdate> readers)
            throws Exception {
        InboxState state = inboxState(user);
        if (keepTotals(state)) {
            emitTotals(user, state, 0, 0, 0, 0, out);
            inbox.update(state);
        }
        if (readers == null) {
            return;
        }
        for (Map.Entry<Long, ConversationState> entry : conversations.entries()) {
            if (entry.getValue().membership >= 0) {
                readers.accept(
                        new ReaderUpdate(entry.getKey(), user, entry.getValue().lastReadSeq, true));
            }
        }
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
            ConversationState conversation = c.getValue();
            if (ConversationSeqs.count(conversation) > 0) {
                out.collect(UnreadCount.conversation(user, c.getKey(), 0));
            }
            if (conversation.mentionCount > 0) {
                out.collect(UnreadCount.mentions(user, c.getKey(), 0));
            }
            if (Totals.marked(conversation)) {
                out.collect(UnreadCount.marked(user, c.getKey(), false));
            }
        }
        if (state != null) {
            if (state.totalMessages != 0) {
                out.collect(UnreadCount.total(user, Count.TOTAL_MESSAGES, 0));
            }
            if (state.totalMentions != 0) {
                out.collect(UnreadCount.total(user, Count.TOTAL_MENTIONS, 0));
            }
            if (state.totalConversations != 0) {
                out.collect(UnreadCount.total(user, Count.TOTAL_CONVERSATIONS, 0));
            }
            if (state.totalThreads != 0) {
                out.collect(UnreadCount.total(user, Count.TOTAL_THREADS, 0));
            }
        }
        threads.expire(user, out);
        inbox.clear();
        inboxCache.remove(user);
        senders.clear();
        conversations.clear();
        unreadSeqs.clear();
        mentionSeqs.clear();
        deletions.clear();
    }

    /**
     * The user's inbox state, new when none. Whoever changes it must store it with {@code
     * inbox.update} before the next event: {@link #inboxCache} hands the same object out again.
     */
    private InboxState inboxState(Long user) throws Exception {
        InboxState state = inboxCache.get(user);
        if (state == null) {
            state = inbox.value();
            if (state == null) {
                state = new InboxState();
            }
            inboxCache.put(user, state);
        }
        return state;
    }
}
