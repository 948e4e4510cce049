package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.Oracle.Member;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.LongPredicate;

/**
 * The channels of {@link Oracle}, from the shared design's "Version 5: conversations of any size"
 * and docs/contract.md ("Semantics", "Channels") alone: the counts of versions 1–4 over the set of
 * events, with a late membership applied to the messages it governs, sending reads, the root's
 * sender following its thread, tied edits deciding each field on its own, the floor of ALL_READ and
 * erasure, and nothing of a message past {@code --max-channel-seq}.
 *
 * <p>Two outputs depend on the order of the channel's records, as the contract says: the sender
 * badge (a membership applies to the messages that arrive after it) and the cursor an ALL_READ
 * raises (which uses the members as known when the stage raises it, and never moves back). For the
 * second the oracle gives {@link Bounds}, exact when U's memberships arrived before the messages
 * they govern. A user's facts with a time at or before U's erasure count for nothing, as in {@link
 * Oracle}; the generators publish U's later events after the erasure.
 *
 * <p>A conversation is a channel when its first record in arrival order is {@code CHANNEL}. The
 * per-user answers are for the users with a membership event in C: the ones with a track.
 */
public final class OracleChannels {

    /** The default of {@code --max-channel-seq}: a message past it counts for nobody. */
    public static final long DEFAULT_MAX_CHANNEL_SEQ = 1L << 28;

    /** A value known to lie in [low, high]: exact when the two meet. */
    public record Bounds(long low, long high) {
        public boolean exact() {
            return low == high;
        }

        public boolean holds(long value) {
            return low <= value && value <= high;
        }
    }

    private final Set<Long> channels = new TreeSet<>();

    /** The channels' records in arrival order. */
    private final List<ConversationEvent> arrivals = new ArrayList<>();

    private final OracleChannelMessages messages;
    private final OracleChannelMembers members = new OracleChannelMembers();
    private final Map<Long, Long> erasedAt = new HashMap<>();
    private final Map<Long, Long> allReadAt = new HashMap<>();

    /** The largest seq of U's conversation reads and root sends per channel. */
    private final Map<Member, Long> cursors = new HashMap<>();

    private final Map<Member, List<long[]>> preferences = new HashMap<>();
    private final Map<Member, List<long[]>> ignoreAll = new HashMap<>();

    /** Replies, thread cursors and follows. */
    private final OracleChannelThreads threads = new OracleChannelThreads();

    /**
     * {@code conversations}: every {@code chat-conversations} record in arrival order; {@code
     * events}: the users' facts ({@code chat-reads}).
     */
    OracleChannels(
            List<ConversationEvent> conversations,
            Collection<ChatEvent> events,
            long maxChannelSeq) {
        messages = new OracleChannelMessages(maxChannelSeq);
        Set<Long> seen = new HashSet<>();
        for (ConversationEvent e : conversations) {
            if (seen.add(e.conversationId) && e.kind == ConversationEvent.Kind.CHANNEL) {
                channels.add(e.conversationId);
            }
        }
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.merge(e.userId, e.time, Math::max);
            }
        }
        for (ConversationEvent e : conversations) {
            if (!channels.contains(e.conversationId)) {
                continue;
            }
            arrivals.add(e);
            messages.add(e);
            if (e.isMembership()) {
                members.add(e);
            }
        }
        for (ConversationEvent e : arrivals) {
            if (e.kind == ConversationEvent.Kind.MESSAGE_EDITED) {
                messages.edit(e);
            }
        }
        facts(events);
        messages.all().forEach(m -> m.values().forEach(this::sent));
        threads.floors(this::floor);
    }

    private void facts(Collection<ChatEvent> events) {
        for (ChatEvent e : events) {
            if (e.time <= erasedAt(e.userId)) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.ALL_READ) {
                allReadAt.merge(e.userId, e.time, Math::max);
            }
            if (!channels.contains(e.conversationId)) {
                continue;
            }
            Member member = new Member(e.conversationId, e.userId);
            switch (e.kind) {
                case CONVERSATION_READ -> cursors.merge(member, e.seq, Math::max);
                case THREAD_READ, THREAD_FOLLOWED -> threads.fact(e);
                case CONVERSATION_PREFERENCE -> {
                    if (e.carriesCountPreference()) {
                        preferences
                                .computeIfAbsent(member, m -> new ArrayList<>())
                                .add(new long[] {e.time, e.countPreference()});
                    }
                    if (e.carriesIgnoreChannelMentions()) {
                        ignoreAll
                                .computeIfAbsent(member, m -> new ArrayList<>())
                                .add(new long[] {e.time, e.ignoresChannelMentions() ? 1 : 0});
                    }
                }
                default -> {}
            }
        }
    }

    /**
     * A message of C: its sender's send (a read, and a fact of its thread, unless the sender's
     * erasure covers it) and its deliveries to the members at its seq, whenever they joined.
     */
    private void sent(ConversationEvent m) {
        boolean bySender = m.sentAt > erasedAt(m.senderId);
        if (bySender && m.threadSeq == 0) {
            cursors.merge(new Member(m.conversationId, m.senderId), m.seq, Math::max);
        }
        Set<Long> reached = new TreeSet<>();
        for (long user : members.users(m.conversationId)) {
            if (user != m.senderId
                    && members.member(user, m.conversationId, m.seq)
                    && m.sentAt > erasedAt(user)) {
                reached.add(user);
            }
        }
        threads.message(m, bySender, reached);
    }

    ConversationEvent message(long conversationId, long seq) {
        return messages.message(conversationId, seq);
    }

    long erasedAt(long userId) {
        return erasedAt.getOrDefault(userId, 0L);
    }

    /** Whether C is a channel: its first record to arrive was {@code CHANNEL}. */
    public boolean isChannel(long conversationId) {
        return channels.contains(conversationId);
    }

    /** The channels, sorted. */
    public Set<Long> channels() {
        return channels;
    }

    /** The users with a membership event in C (the ones with a track of C), sorted. */
    public Set<Long> users(long conversationId) {
        return members.users(conversationId);
    }

    /** The channels U has a membership event in, left ones too, sorted. */
    public Set<Long> channelsOf(long userId) {
        return members.channelsOf(userId);
    }

    /** member(U,C,s) by every membership event of U in C, whenever it arrived. */
    public boolean member(long userId, long conversationId, long seq) {
        return members.member(userId, conversationId, seq);
    }

    /** U's newest membership event in C is a leave: nothing of C counts for U. */
    public boolean left(long userId, long conversationId) {
        return members.left(userId, conversationId);
    }

    /**
     * The track's {@code members}: the seqs at which U is a member as inclusive intervals {a, b},
     * the last {a} while open.
     */
    public List<long[]> memberIntervals(long userId, long conversationId) {
        return members.intervals(userId, conversationId);
    }

    /** floor(U,C): the largest seq of C sent at or before max(allReadAt, erasedAt); 0 if none. */
    public long floor(long userId, long conversationId) {
        return messages.sentBy(
                conversationId, Math.max(allReadAt.getOrDefault(userId, 0L), erasedAt(userId)));
    }

    /** The largest seq of U's conversation reads and the roots U sent: the track's cut. */
    long readCursor(long userId, long conversationId) {
        return cursors.getOrDefault(new Member(conversationId, userId), 0L);
    }

    /**
     * lastReadSeq(U,C) as {@code conversation_member} and the track's {@code read} hold it: U's
     * reads, sends, and ALL_READ's raise to the largest root from another user sent in (erasedAt,
     * allReadAt] while U was a member as the stage knew it when it raised.
     */
    public Bounds lastReadSeq(long userId, long conversationId) {
        long read = readCursor(userId, conversationId);
        Bounds raise = OracleChannelOrder.allReadRaise(this, arrivals, userId, conversationId);
        return new Bounds(Math.max(read, raise.low()), Math.max(read, raise.high()));
    }

    /** Every (channel, user with a track) whose cursor may be past 0: the rows it may have. */
    public Map<Member, Bounds> conversationMemberRows() {
        Map<Member, Bounds> rows = new TreeMap<>();
        for (Member m : members.tracks()) {
            Bounds cursor = lastReadSeq(m.userId(), m.conversationId());
            if (cursor.high() > 0) {
                rows.put(m, cursor);
            }
        }
        return rows;
    }

    /**
     * The {@code chat:readers:{C}} scores of the channels, as bounds: the rows' cursors of the
     * participants, the members whose newest membership event is no leave ("Readers key").
     */
    public Map<Member, Bounds> readersScores() {
        Map<Member, Bounds> readers = conversationMemberRows();
        readers.keySet().removeIf(m -> left(m.userId(), m.conversationId()));
        return readers;
    }

    /**
     * The largest {@code conversation_member.unread_count} any order can leave with U's row: the
     * roots from others past the lowest cursor U may end with, whether or not U was a member of
     * them as known then, deleted ones too (their deletion may come later).
     */
    public long unreadCountUpperBound(long userId, long conversationId) {
        long cursor = lastReadSeq(userId, conversationId).low();
        return messages(conversationId).stream()
                .filter(m -> m.threadSeq == 0 && m.senderId != userId && m.seq > cursor)
                .count();
    }

    /** The messages of C within the bound, roots and replies, deleted or not, by seq. */
    Collection<ConversationEvent> messages(long conversationId) {
        return messages.of(conversationId);
    }

    long allReadAt(long userId) {
        return allReadAt.getOrDefault(userId, 0L);
    }

    /** The channel messages that enter U's sender badge: sender → newest sentAt ("The badge"). */
    public Map<Long, Long> badgeSenders(long userId) {
        Map<Long, Long> senders = new TreeMap<>();
        for (ChatEvent e : OracleChannelOrder.badgeDeliveries(this, arrivals)) {
            if (e.userId == userId) {
                senders.merge(e.senderId, e.time, Math::max);
            }
        }
        return senders;
    }

    /** Every channel message that enters a badge, as a badge-only message to its user. */
    List<ChatEvent> badgeDeliveries() {
        return OracleChannelOrder.badgeDeliveries(this, arrivals);
    }

    /** deleted(C,s): some MESSAGE_DELETED names it. */
    public boolean deleted(long conversationId, long seq) {
        return messages.deleted(conversationId, seq);
    }

    /** The message names U by id, by its newest edits. */
    public boolean named(long userId, long conversationId, long seq) {
        return messages.names(conversationId, seq, userId);
    }

    /** It mentions everyone and names U not, and U heeds channel-wide mentions in C. */
    private boolean onlyChannelWide(long userId, long conversationId, long seq) {
        return !ignoresChannelMentions(userId, conversationId)
                && messages.mentionsAll(conversationId, seq)
                && !named(userId, conversationId, seq);
    }

    private boolean mentioned(long userId, long conversationId, long seq) {
        return named(userId, conversationId, seq) || onlyChannelWide(userId, conversationId, seq);
    }

    /**
     * The roots of C from others, not deleted, at which U is a member, above max(floor, U's reads
     * and sends) and passing {@code counts}; 0 while U has left C.
     */
    private long roots(long userId, long conversationId, LongPredicate counts) {
        if (left(userId, conversationId)) {
            return 0;
        }
        long cut = Math.max(floor(userId, conversationId), readCursor(userId, conversationId));
        return messages(conversationId).stream()
                .filter(m -> m.threadSeq == 0 && m.seq > cut && m.senderId != userId)
                .filter(
                        m ->
                                !deleted(conversationId, m.seq)
                                        && member(userId, conversationId, m.seq))
                .filter(m -> counts.test(m.seq))
                .count();
    }

    public long unread(long userId, long conversationId) {
        return roots(userId, conversationId, s -> true);
    }

    public long mentions(long userId, long conversationId) {
        return roots(userId, conversationId, s -> mentioned(userId, conversationId, s));
    }

    public long channelMentions(long userId, long conversationId) {
        return roots(userId, conversationId, s -> onlyChannelWide(userId, conversationId, s));
    }

    /**
     * The track's {@code named}: the unread roots that name U by id ({@code alsoAll}: and mention
     * everyone too, the track's {@code namedAll}).
     */
    public long named(long userId, long conversationId, boolean alsoAll) {
        return roots(
                userId,
                conversationId,
                s ->
                        named(userId, conversationId, s)
                                && (!alsoAll || messages.mentionsAll(conversationId, s)));
    }

    /** follows(U,C,T) by version 4's facts and defaults, the root's sender following by default. */
    public boolean follows(long userId, long conversationId, long threadSeq) {
        return threads.follows(userId, conversationId, threadSeq);
    }

    /** The threads of C that U follows, sorted: the track's thread fields. */
    public Set<Long> followedThreads(long userId, long conversationId) {
        return threads.followed(userId, conversationId);
    }

    /** Some message of C within the bound, deleted or not, is a reply of T. */
    public boolean replied(long conversationId, long threadSeq) {
        return messages(conversationId).stream().anyMatch(m -> m.threadSeq == threadSeq);
    }

    /** The thread's cursor (the track's thread {@code read}): U's thread reads and replies. */
    public long threadCursor(long userId, long conversationId, long threadSeq) {
        return threads.cursor(userId, conversationId, threadSeq);
    }

    public long threadUnread(long userId, long conversationId, long threadSeq) {
        return thread(userId, conversationId, threadSeq, s -> true);
    }

    public long threadMentions(long userId, long conversationId, long threadSeq) {
        return thread(userId, conversationId, threadSeq, s -> mentioned(userId, conversationId, s));
    }

    public long threadChannelMentions(long userId, long conversationId, long threadSeq) {
        return thread(
                userId, conversationId, threadSeq, s -> onlyChannelWide(userId, conversationId, s));
    }

    /** The thread track's {@code named} ({@code alsoAll}: {@code namedAll}), as for roots. */
    public long threadNamed(long userId, long conversationId, long threadSeq, boolean alsoAll) {
        return thread(
                userId,
                conversationId,
                threadSeq,
                s ->
                        named(userId, conversationId, s)
                                && (!alsoAll || messages.mentionsAll(conversationId, s)));
    }

    /**
     * A followed thread's replies from others at which U is a member, above max(floor, its cursor),
     * not deleted and passing {@code counts}; 0 unfollowed or while U has left C.
     */
    private long thread(long userId, long conversationId, long threadSeq, LongPredicate counts) {
        if (left(userId, conversationId) || !follows(userId, conversationId, threadSeq)) {
            return 0;
        }
        return threads.count(userId, conversationId, threadSeq, this::deleted, counts);
    }

    /** preference(U,C): the newest setAt, the quieter on a tie; ALL if none. */
    public long preference(long userId, long conversationId) {
        return Oracle.newest(preferences.get(new Member(conversationId, userId)), ChatEvent.ALL);
    }

    /** ignoreChannelMentions(U,C): the newest setAt, true on a tie; false if none. */
    public boolean ignoresChannelMentions(long userId, long conversationId) {
        return Oracle.newest(ignoreAll.get(new Member(conversationId, userId)), 0) == 1;
    }

    /**
     * What U's channels add to the totals {messages, mentions, conversations, threads} as a reader
     * adds them ("The recipe"), {@code marked} U's marks.
     */
    long[] totals(long userId, BiPredicate<Long, Long> marked) {
        long[] t = new long[4];
        for (long c : channelsOf(userId)) {
            long preference = preference(userId, c);
            long unread = unread(userId, c);
            long mentions = mentions(userId, c);
            t[0] += preference == ChatEvent.ALL ? unread : 0;
            t[1] += preference == ChatEvent.NONE ? 0 : mentions;
            boolean counts = preference == ChatEvent.ALL ? unread > 0 : mentions > 0;
            t[2] += (preference != ChatEvent.NONE && counts) || marked.test(userId, c) ? 1 : 0;
            for (long thread : followedThreads(userId, c)) {
                long replies = threadUnread(userId, c, thread);
                long named = threadMentions(userId, c, thread);
                t[1] += preference == ChatEvent.NONE ? 0 : named;
                boolean shows = preference == ChatEvent.ALL ? replies > 0 : named > 0;
                t[3] += preference != ChatEvent.NONE && shows ? 1 : 0;
            }
        }
        return t;
    }
}
