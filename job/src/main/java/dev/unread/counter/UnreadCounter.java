package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.Incarnations;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The semantics of docs/contract.md, per user (the key), in parts each readable alone: the
 * distinct-sender badge ({@link Badge}); each conversation's unread and mention counts, preference,
 * mark, membership and deletions ({@link Conversations}), its threads ({@link Threads}), the cursor
 * and seq sets both keep alike ({@link ReadTrack}); the app-icon totals ({@link UserTotals});
 * forgetting idle users ({@link Expiry}) and erased ones ({@link Erasure}). What the user sees is
 * derived from state in one place ({@link ConversationView}, {@link ThreadView}, {@link Share}) and
 * written out as the difference between two views ({@link Projection}).
 *
 * <p>State holds only what can still count: senders whose newest message is newer than the inbox
 * watermark, and seqs past the conversation cursor. Anything at or behind a watermark or cursor is
 * dropped on arrival, since neither ever moves back. Each share of the totals, hence each total, is
 * a function of the set of events, so the totals are too.
 *
 * <p>Emits a {@link UnreadCount} only when a count changes, and the cursors to side outputs only
 * when they advance.
 *
 * <p>After a restore, Redis may hold counts from events processed after the checkpoint, a timeline
 * the restore rolled back, and the replay may reach the same final counts through other values (the
 * two topics interleave differently), so "write only on change" alone could leave a stale value. So
 * the first time an incarnation of the counter (each open, i.e. each start or restore) touches a
 * count, it writes it out even if unchanged: every count the lost timeline wrote is touched again
 * by the replay of the same events, and so rewritten. The channel-wide mention counts wait for a
 * touch that can find them stale ({@link Refresh}).
 */
public class UnreadCounter extends KeyedProcessFunction<Long, ChatEvent, UnreadCount> {

    public static final OutputTag<InboxCursor> INBOX_CURSORS = new OutputTag<>("inbox-cursors") {};

    public static final OutputTag<ConversationCursor> CONVERSATION_CURSORS =
            new OutputTag<>("conversation-cursors") {};

    /**
     * Participants with their cursors, found in state restored from an older version for the
     * readers stage, which that version did not have or filled only from later reads; see {@link
     * #catchUp}. No receipt goes out for these. Also the events an erasure covers that could have
     * scored their user in a conversation ({@link Erasure#covered}).
     */
    public static final OutputTag<ReaderUpdate> KNOWN_READERS =
            new OutputTag<>("known-readers", Types.POJO(ReaderUpdate.class));

    /**
     * The user's facts about channels, keyed by the channel for its stage (see {@link Channels}):
     * reads, thread reads, follows and preferences of one channel, and an ALL_READ, an erasure or
     * the user's idle expiry once per channel of the user.
     */
    public static final OutputTag<ChatEvent> CHANNEL_FACTS =
            new OutputTag<>("channel-facts", TypeInformation.of(ChatEvent.class));

    /** The metric of chat-messages records that name a channel of their user: dropped. */
    public static final String CHANNEL_MESSAGES_DROPPED = "channelMessagesOnChatMessages";

    static final long DAY_MS = Expiry.DAY_MS;

    /** The longest idle period: 100 years, far inside what a timer's epoch milliseconds hold. */
    public static final long MAX_IDLE_STATE_DAYS = 36_500;

    /** Idle days after which a user's state is cleared; 0 keeps state forever. */
    private final long idleStateDays;

    private final boolean trackRootSenders;

    /** The most threads per user and conversation kept only for a cursor or a follow. */
    private final int maxBareThreads;

    private transient UserStates states;
    private transient Badge badge;
    private transient UserTotals totals;
    private transient Conversations conversations;
    private transient Expiry expiry;
    private transient AllRead allRead;
    private transient Erasure erasure;
    private transient Channels channels;
    private transient Counter channelMessagesDropped;

    /** Keeps every user's state forever. */
    public UnreadCounter() {
        this(0);
    }

    public UnreadCounter(long idleStateDays) {
        this(idleStateDays, false);
    }

    /**
     * {@code trackRootSenders}: a conversation message's sender follows its threads by default
     * (version 3's way, {@code --track-root-senders}), for producers whose replies do not name
     * their root's sender; the job then also sends every conversation message to its sender's key.
     */
    public UnreadCounter(long idleStateDays, boolean trackRootSenders) {
        this(idleStateDays, trackRootSenders, ThreadSets.DEFAULT_MAX_BARE_THREADS);
    }

    /**
     * {@code maxBareThreads} ({@code --max-bare-threads}): per user and conversation, the most
     * threads kept only for a cursor or an explicit follow; past it the least recently touched is
     * forgotten (see {@link ThreadSets}).
     */
    public UnreadCounter(long idleStateDays, boolean trackRootSenders, int maxBareThreads) {
        if (maxBareThreads < 1) {
            throw new IllegalArgumentException(
                    "maxBareThreads must be at least 1, was " + maxBareThreads);
        }
        if (idleStateDays < 0 || idleStateDays > MAX_IDLE_STATE_DAYS) {
            throw new IllegalArgumentException(
                    "idleStateDays must be >= 0 and at most "
                            + MAX_IDLE_STATE_DAYS
                            + " (100 years), was "
                            + idleStateDays
                            + "; 0 keeps state forever");
        }
        this.idleStateDays = idleStateDays;
        this.trackRootSenders = trackRootSenders;
        this.maxBareThreads = maxBareThreads;
    }

    @Override
    public void open(OpenContext openContext) {
        // Neither 0, a fresh record's refreshedIn, nor its complement (see Refresh.stamp).
        states = new UserStates(getRuntimeContext(), Incarnations.next(), maxBareThreads);
        badge = new Badge(states);
        channels = new Channels(getRuntimeContext(), states);
        totals = new UserTotals(states, channels);
        conversations = new Conversations(states, totals, channels, trackRootSenders);
        expiry = new Expiry(states, channels, idleStateDays);
        allRead = new AllRead(states, badge, conversations);
        erasure = new Erasure(states, channels);
        channelMessagesDropped =
                getRuntimeContext().getMetricGroup().counter(CHANNEL_MESSAGES_DROPPED);
    }

    /** Bytes of unread seqs read and written so far: the work, for tests that bound it. */
    public long seqBytesTouched() {
        return states.unreadSeqs.bytesTouched();
    }

    /** Threads read to find or show other threads so far: the work, for tests that bound it. */
    public long threadsVisited() {
        return states.threads.threadsVisited();
    }

    /** State entries the ALL_READ passes read so far: the work, for tests that bound it. */
    public long allReadVisits() {
        return allRead.visited();
    }

    /** Conversations the last erasure walked: the work, for tests that bound it. */
    public long erasureVisited() {
        return erasure.visited();
    }

    @Override
    public void processElement(ChatEvent event, Context ctx, Collector<UnreadCount> out)
            throws Exception {
        long userId = ctx.getCurrentKey();
        InboxState user = states.inbox(userId);
        if (Erasure.covers(event, user)) {
            Erasure.covered(event, reader -> ctx.output(KNOWN_READERS, reader));
            return;
        }
        boolean dirty = expiry.markActive(ctx.timerService(), user);
        Consumer<ChatEvent> facts = fact -> ctx.output(CHANNEL_FACTS, fact);
        dirty |=
                switch (event.kind) {
                    case MESSAGE ->
                            !droppedInChannel(event, user)
                                    && message(
                                            event,
                                            user,
                                            c -> ctx.output(CONVERSATION_CURSORS, c),
                                            out);
                    case MESSAGE_EDITED ->
                            !droppedInChannel(event, user) && conversations.edit(event, user, out);
                    case INBOX_OPENED ->
                            badge.open(event, user, c -> ctx.output(INBOX_CURSORS, c), out);
                    case CONVERSATION_READ ->
                            forwarded(event, user, facts)
                                    ? conversations.channelRead(event, user, out)
                                    : conversations.read(
                                            event,
                                            user,
                                            c -> ctx.output(CONVERSATION_CURSORS, c),
                                            out);
                    case THREAD_READ, THREAD_FOLLOWED ->
                            !forwarded(event, user, facts)
                                    && conversations.thread(event, user, out);
                    case CONVERSATION_PREFERENCE ->
                            !forwarded(event, user, facts)
                                    && conversations.preference(event, user, out);
                    case MEMBER_JOINED, MEMBER_LEFT -> conversations.membership(event, user, out);
                    case CONVERSATION_MARKED_UNREAD -> conversations.mark(event, user, out);
                    case MESSAGE_DELETED -> conversations.delete(event, user, out);
                    case ALL_READ -> {
                        boolean changed =
                                allRead.apply(
                                        event,
                                        user,
                                        c -> ctx.output(INBOX_CURSORS, c),
                                        c -> ctx.output(CONVERSATION_CURSORS, c),
                                        out);
                        channels.toEach(event, user, facts);
                        yield changed;
                    }
                    case USER_ERASED -> {
                        erasure.erase(
                                event,
                                user,
                                c -> ctx.output(INBOX_CURSORS, c),
                                c -> ctx.output(CONVERSATION_CURSORS, c),
                                out);
                        channels.toEach(event, user, facts);
                        yield true;
                    }
                    case CHANNEL_JOINED, CHANNEL_LEFT -> learnChannel(event, user, facts, out);
                    case CHANNEL_MENTION -> badge.count(event, user, out);
                    // The user's state makes it for the channels' stage; it never comes in.
                    case CHANNEL_EXPIRED -> false;
                };
        if (dirty) {
            states.keep(userId, user);
        }
    }

    /**
     * Whether the event is of one of the user's channels, and so went to the channel stage instead
     * of being counted here.
     */
    private boolean forwarded(ChatEvent event, InboxState user, Consumer<ChatEvent> facts)
            throws Exception {
        if (!channels.isChannel(user, event.conversationId)) {
            return false;
        }
        facts.accept(event);
        return true;
    }

    /**
     * A membership event of a channel: the first one of the channel makes it the user's, and takes
     * what its record here held out of the totals.
     */
    private boolean learnChannel(
            ChatEvent event, InboxState user, Consumer<ChatEvent> facts, Collector<UnreadCount> out)
            throws Exception {
        if (!channels.membership(event, user, facts)) {
            return false;
        }
        conversations.becameChannel(event.userId, event.conversationId, user, out);
        return true;
    }

    /**
     * Whether a {@code chat-messages} record names one of the user's channels, which none may (a
     * precondition): it is dropped and counted in a metric.
     */
    private boolean droppedInChannel(ChatEvent event, InboxState user) throws Exception {
        if (!channels.isChannel(user, event.conversationId)) {
            return false;
        }
        channelMessagesDropped.inc();
        return true;
    }

    private boolean message(
            ChatEvent event,
            InboxState user,
            Consumer<ConversationCursor> cursors,
            Collector<UnreadCount> out)
            throws Exception {
        boolean dirty = false;
        // A user's own message counts toward nothing; it only tells the user's threads.
        if (event.senderId != event.userId) {
            dirty = badge.count(event, user, out);
        }
        if (event.hasConversation()) {
            dirty |= conversations.message(event, user, cursors, out);
        }
        return dirty;
    }

    /**
     * Brings the current user's output up to what this version writes, for {@link
     * UnreadCounterOperator} after a restore from an older version's state, before the first event:
     * sums the totals once where they were never kept (and writes them), and hands {@code readers},
     * unless null, each conversation the user takes part in (has not left) with its cursor. Older
     * versions wrote the totals only once a conversation event touched the user, and version 1 had
     * no readers stage at all, so without this a user with no such event would have neither. Writes
     * only the user's inbox state, so it may run while the operator walks the keys of the
     * conversations' state.
     */
    void catchUp(long user, Collector<UnreadCount> out, Consumer<ReaderUpdate> readers)
            throws Exception {
        InboxState inbox = states.inbox(user);
        if (totals.keep(inbox)) {
            totals.add(user, inbox, Share.NONE, out);
            states.keep(user, inbox);
        }
        if (readers == null) {
            return;
        }
        for (Map.Entry<Long, ConversationState> entry : states.conversations.entries()) {
            if (entry.getValue().membership >= 0) {
                readers.accept(
                        new ReaderUpdate(entry.getKey(), user, entry.getValue().lastReadSeq, true));
            }
        }
    }

    /** See {@link Expiry#startIdleClock}. */
    void startIdleClock(long day) {
        expiry.startIdleClock(day);
    }

    /**
     * Sets the current user's expiry timer from their recorded activity; for {@link
     * UnreadCounterOperator} when a restore turned expiry on or changed its days. Only reads state,
     * so it may run while the operator walks the keys.
     */
    void scheduleExpiry(long user, TimerService timers) throws Exception {
        expiry.schedule(user, timers);
    }

    /**
     * Keeps the records it stores in memory until a checkpoint, writing them back to the keyed
     * state through {@code keys}; see {@link RecordCache#writeBack}. For {@link
     * UnreadCounterOperator}, which calls {@link #writeBackAll} at each checkpoint.
     */
    void writeBack(RecordCache.Keys keys, int maxRecords, int maxDirty) {
        states.writeBack(keys, maxRecords, maxDirty);
    }

    /** Writes every record kept in memory to the keyed state. */
    void writeBackAll() throws Exception {
        states.writeBackAll();
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<UnreadCount> out)
            throws Exception {
        expiry.fire(timestamp, ctx.getCurrentKey(), fact -> ctx.output(CHANNEL_FACTS, fact), out);
    }
}
