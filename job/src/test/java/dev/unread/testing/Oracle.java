package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import java.util.function.ToLongBiFunction;
import java.util.function.ToLongFunction;

/**
 * The expected outcome of a set of events, computed straight from the "Semantics" section of
 * docs/contract.md (and, for {@code chat-conversations}, its groups, readers and deleted-messages
 * rules) and nothing else: it never looks at how the job computes its counts, so a test that
 * compares the two can catch a wrong idea as well as a wrong line.
 *
 * <p>Everything except {@link #unreadAfterLastRead(List)} is a pure function of the <em>set</em> of
 * events: duplicates and order are ignored by construction, but for the two outputs of a channel
 * that the contract makes depend on the order of its records ({@link OracleChannels}, which counts
 * the conversations that are channels). An erasure is not, by nature ("Erasure"): the oracle takes
 * the set to hold every event of an erased user with a time after {@code erasedAt} only after the
 * erasure arrived, which the generators arrange, and then the erasure is the same as leaving out
 * the user's events with a time at or before it. A deletion is the conversation's fact, never the
 * user's: it carries no time, arrives before or after the erasure, and holds for the user whatever
 * the erasure does. Maps returned are sorted so that a failing {@code assertEquals} prints a
 * readable diff.
 */
public final class Oracle {

    /** Redis key of the sender badge, without the configurable prefix. */
    public static final String SENDERS_KEY = "unread:senders:";

    /** Redis key of the per-conversation counts hash, without the configurable prefix. */
    public static final String CONVERSATIONS_KEY = "chat:unread:";

    /** Redis key of the per-conversation mention counts hash, without the prefix. */
    public static final String MENTIONS_KEY = "chat:mentions:";

    /** Redis key of the per-conversation channel-wide mention counts hash, without the prefix. */
    public static final String CHANNEL_MENTIONS_KEY = "chat:channel-mentions:";

    /** Redis key of the set of conversations marked unread, without the prefix. */
    public static final String MARKED_UNREAD_KEY = "chat:marked-unread:";

    /** Redis key of the app-icon totals hash, without the prefix. */
    public static final String TOTALS_KEY = "unread:totals:";

    /** Redis key of a conversation's readers sorted set, without the configurable prefix. */
    public static final String READERS_KEY = "chat:readers:";

    /** A {@code conversation_member} primary key. */
    public record Member(long conversationId, long userId) implements Comparable<Member> {
        @Override
        public int compareTo(Member o) {
            int byConversation = Long.compare(conversationId, o.conversationId);
            return byConversation != 0 ? byConversation : Long.compare(userId, o.userId);
        }

        @Override
        public String toString() {
            return "c" + conversationId + "/u" + userId;
        }
    }

    private final Map<Long, Long> lastReadAt = new TreeMap<>();

    /** Every user a per-user event went to, even one that counts toward nothing. */
    private final Set<Long> addressed = new TreeSet<>();

    private final Map<Member, Long> lastReadSeq = new TreeMap<>();

    /** Every message to a user from someone else, per user: the raw material of the badge. */
    private final Map<Long, List<ChatEvent>> messagesFromOthers = new HashMap<>();

    /** Distinct seqs from others per (conversation, receiver), whatever the cursor. */
    private final Map<Member, TreeSet<Long>> seqsFromOthers = new TreeMap<>();

    /**
     * Messages, as (seq, thread: 0 for none), per (conversation, receiver) with some record from
     * others that names the receiver (mentioned), as sent.
     */
    private final Map<Member, Set<List<Long>>> namedSeqs = new TreeMap<>();

    /** The same for records that mention the whole channel (mentionsAll), as sent. */
    private final Map<Member, Set<List<Long>>> channelSeqs = new TreeMap<>();

    /**
     * Per (conversation, receiver) and seq, the receiver's edits of that seq: {editedAt, 1 if it
     * names the receiver, 1 if it mentions the whole channel, the thread it says the message is a
     * reply of (0: none)}.
     */
    private final Map<Member, Map<Long, List<long[]>>> edits = new TreeMap<>();

    /** The (setAt, preference) of each user's countPreference per conversation. */
    private final Map<Member, List<long[]>> preferences = new TreeMap<>();

    /** The (setAt, 1 or 0) of each user's ignoreChannelMentions per conversation. */
    private final Map<Member, List<long[]>> ignoreChannelMentions = new TreeMap<>();

    /** max markedAt per (conversation, user). */
    private final Map<Member, Long> markedAt = new TreeMap<>();

    /** max readAt of CONVERSATION_READ per (conversation, user). */
    private final Map<Member, Long> conversationReadAt = new TreeMap<>();

    /** Members whose newest membership event in the conversation is MEMBER_LEFT. */
    private final Set<Member> left = new TreeSet<>();

    /** conversationId → the seqs a MESSAGE_DELETED names. */
    private final Map<Long, TreeSet<Long>> deleted = new TreeMap<>();

    /** conversationId → participants(C): none whose newest membership event is MEMBER_LEFT. */
    private final Map<Long, Set<Long>> participants = new TreeMap<>();

    /**
     * userId → the conversations the user sent a reply in, or a message to themselves that mentions
     * them.
     */
    private final Map<Long, Set<Long>> ownMessagesIn = new TreeMap<>();

    private final OracleThreads threads;

    /** The conversations that are channels, counted by their own rules. */
    private final OracleChannels channels;

    /** Expected Redis hash of a user's followed threads' unread replies. */
    public static final String THREADS_KEY = "chat:threads:";

    /** Expected Redis hash of a user's followed threads' mentions. */
    public static final String THREAD_MENTIONS_KEY = "chat:thread-mentions:";

    /** Expected Redis hash of a user's followed threads' channel-wide mentions. */
    public static final String THREAD_CHANNEL_MENTIONS_KEY = "chat:thread-channel-mentions:";

    /** userId → the newest {@code erasedAt} of the user's USER_ERASED events. */
    private final Map<Long, Long> erasedAt = new TreeMap<>();

    private Oracle(
            Collection<ChatEvent> events,
            Collection<ConversationEvent> conversations,
            boolean trackRootSenders,
            Set<ChatEvent> beforeUpgrade) {
        this(
                events,
                conversations,
                trackRootSenders,
                beforeUpgrade,
                OracleChannels.DEFAULT_MAX_CHANNEL_SEQ);
    }

    /**
     * {@code beforeUpgrade}: events (among {@code events}) that a job of version 3 took before a
     * job of this version restored its savepoint.
     */
    private Oracle(
            Collection<ChatEvent> events,
            Collection<ConversationEvent> conversations,
            boolean trackRootSenders,
            Set<ChatEvent> beforeUpgrade,
            long maxChannelSeq) {
        threads = new OracleThreads(trackRootSenders);
        channels = new OracleChannels(List.copyOf(conversations), events, maxChannelSeq);
        conversations =
                conversations.stream().filter(e -> !channels.isChannel(e.conversationId)).toList();
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.merge(e.userId, e.time, Math::max);
            }
        }
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.MESSAGE && e.conversationId > 0) {
                Set<Long> p = participants.computeIfAbsent(e.conversationId, c -> new TreeSet<>());
                p.add(e.senderId);
                p.add(e.userId);
                if (e.isReply() || (e.senderId == e.userId && e.mentioned)) {
                    ownMessagesIn
                            .computeIfAbsent(e.senderId, u -> new TreeSet<>())
                            .add(e.conversationId);
                }
            }
        }
        Map<Member, List<ConversationEvent>> memberships = new HashMap<>();
        for (ConversationEvent e : conversations) {
            if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED) {
                // "deleted(C,s) iff such a record exists".
                deleted.computeIfAbsent(e.conversationId, c -> new TreeSet<>()).add(e.seq);
            }
            if (e.isMembership()) {
                memberships
                        .computeIfAbsent(
                                new Member(e.conversationId, e.userId), m -> new ArrayList<>())
                        .add(e);
                participants.computeIfAbsent(e.conversationId, c -> new TreeSet<>()).add(e.userId);
            }
        }
        List<ChatEvent> all = new ArrayList<>(events);
        Map<Long, Map<Long, ConversationEvent>> groupMessages = new HashMap<>();
        for (ConversationEvent e : conversations) {
            if (e.isMessage()) {
                groupMessages.computeIfAbsent(e.conversationId, c -> new HashMap<>()).put(e.seq, e);
            }
        }
        for (ConversationEvent e : conversations) {
            if (e.kind != ConversationEvent.Kind.MESSAGE_EDITED) {
                continue;
            }
            // "an edit of a seq the job has not seen changes nothing".
            ConversationEvent message =
                    groupMessages.getOrDefault(e.conversationId, Map.of()).get(e.seq);
            if (message == null) {
                continue;
            }
            // An edit reaches whom its message reached: the members at its seq but the sender.
            memberships.forEach(
                    (member, changes) -> {
                        if (member.conversationId() == e.conversationId
                                && member.userId() != message.senderId
                                && isMember(changes, e.seq)) {
                            all.add(
                                    ChatEvent.edited(
                                            member.userId(),
                                            e.conversationId,
                                            e.seq,
                                            message.threadSeq,
                                            e.sentAt,
                                            e.mentions(member.userId()),
                                            e.mentionsAll));
                        }
                    });
        }
        for (ConversationEvent e : conversations) {
            if (!e.isMessage()) {
                continue;
            }
            if (e.threadSeq > 0) {
                ownMessagesIn
                        .computeIfAbsent(e.senderId, u -> new TreeSet<>())
                        .add(e.conversationId);
            }
            // "Sending means ... a group MESSAGE with senderId U".
            sent(e.senderId, e.conversationId, e.seq, e.threadSeq, e.rootSenderId, e.sentAt);
            // "counts, for every member U != senderId at its seq, exactly as the chat-messages
            // record {senderId, receiverId: U, sentAt, conversationId, seq} would".
            memberships.forEach(
                    (member, changes) -> {
                        if (member.conversationId() == e.conversationId
                                && member.userId() != e.senderId
                                && isMember(changes, e.seq)) {
                            // "... mentioned: U in mentions".
                            ChatEvent delivery =
                                    ChatEvent.message(
                                            e.senderId,
                                            member.userId(),
                                            e.conversationId,
                                            e.seq,
                                            e.sentAt);
                            delivery.mentioned =
                                    java.util.Arrays.stream(e.mentions)
                                            .anyMatch(m -> m == member.userId());
                            delivery.threadSeq = e.threadSeq;
                            delivery.rootSenderId = e.rootSenderId;
                            delivery.mentionsAll = e.mentionsAll;
                            all.add(delivery);
                        }
                    });
        }
        memberships.forEach(
                (member, changes) -> {
                    if (newestIsLeft(changes)) {
                        left.add(member);
                        // "A member whose newest membership event is MEMBER_LEFT is no
                        // participant", whatever chat-messages records name it.
                        participants.get(member.conversationId()).remove(member.userId());
                    }
                });
        // The receiver's erasure covers a message for the receiver alone: its sender still sent
        // it, and so takes part in its thread unless the sender's own erasure covers it too.
        for (ChatEvent e : all) {
            if (erased(e)
                    && e.kind == ChatEvent.Kind.MESSAGE
                    && e.conversationId > 0
                    && e.senderId != e.userId
                    && !beforeUpgrade.contains(e)) {
                sent(e.senderId, e.conversationId, e.seq, e.threadSeq, e.rootSenderId, e.time);
            }
        }
        // "an event that concerns U as receiver or actor and carries a time at or before
        // erasedAt changes nothing for U"; the erasure itself counts toward nothing. So an
        // ALL_READ after it reads only the messages sent after it.
        all.removeIf(e -> erased(e) || e.kind == ChatEvent.Kind.USER_ERASED);
        all.addAll(allReads(all));
        for (ChatEvent e : all) {
            addressed.add(e.userId);
            if (channels.isChannel(e.conversationId)) {
                // A channel's marks stay the user's state's; the rest of it is the channel's.
                if (e.kind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD) {
                    markedAt.merge(new Member(e.conversationId, e.userId), e.time, Math::max);
                } else if (e.kind == ChatEvent.Kind.CONVERSATION_READ) {
                    conversationReadAt.merge(
                            new Member(e.conversationId, e.userId), e.time, Math::max);
                }
                continue;
            }
            switch (e.kind) {
                case INBOX_OPENED:
                    lastReadAt.merge(e.userId, e.time, Math::max);
                    break;
                case CONVERSATION_READ:
                    lastReadSeq.merge(new Member(e.conversationId, e.userId), e.seq, Math::max);
                    conversationReadAt.merge(
                            new Member(e.conversationId, e.userId), e.time, Math::max);
                    break;
                case CONVERSATION_PREFERENCE:
                    // "Each of its two fields is decided on its own by the newest event that
                    // carries it."
                    if (e.carriesCountPreference()) {
                        preferences
                                .computeIfAbsent(
                                        new Member(e.conversationId, e.userId),
                                        m -> new ArrayList<>())
                                .add(new long[] {e.time, e.seq});
                    }
                    if (e.carriesIgnoreChannelMentions()) {
                        ignoreChannelMentions
                                .computeIfAbsent(
                                        new Member(e.conversationId, e.userId),
                                        m -> new ArrayList<>())
                                .add(new long[] {e.time, e.mentionsAll ? 1 : 0});
                    }
                    break;
                case MESSAGE_EDITED:
                    edits.computeIfAbsent(
                                    new Member(e.conversationId, e.userId), m -> new TreeMap<>())
                            .computeIfAbsent(e.seq, q -> new ArrayList<>())
                            .add(
                                    new long[] {
                                        e.time,
                                        e.mentioned ? 1 : 0,
                                        e.mentionsAll ? 1 : 0,
                                        e.threadSeq
                                    });
                    break;
                case CONVERSATION_MARKED_UNREAD:
                    markedAt.merge(new Member(e.conversationId, e.userId), e.time, Math::max);
                    break;
                case MEMBER_JOINED:
                case MEMBER_LEFT:
                case ALL_READ:
                    break;
                case MESSAGE_DELETED:
                    // A deletion as the fan-out tells it to one participant: it stands for the
                    // conversation's MESSAGE_DELETED record, deleted(C,s) for everyone.
                    deleted.computeIfAbsent(e.conversationId, c -> new TreeSet<>()).add(e.seq);
                    break;
                case THREAD_READ:
                    threads.read(e);
                    break;
                case THREAD_FOLLOWED:
                    threads.follow(e);
                    break;
                case MESSAGE:
                    if (e.conversationId > 0 && beforeUpgrade.contains(e)) {
                        threads.messageBeforeUpgrade(e);
                    } else if (e.conversationId > 0) {
                        // Taking part in a thread is the sender's as much as a reply of its own.
                        threads.message(e, e.time > erasedAt(e.senderId));
                    }
                    if (e.senderId == e.userId) {
                        // "senderId == receiverId is valid and counts toward nothing".
                        break;
                    }
                    messagesFromOthers.computeIfAbsent(e.userId, u -> new ArrayList<>()).add(e);
                    // "counts only on a record that carries conversationId and seq".
                    if (e.conversationId > 0) {
                        Member member = new Member(e.conversationId, e.userId);
                        if (e.mentioned) {
                            namedSeqs
                                    .computeIfAbsent(member, m -> new HashSet<>())
                                    .add(List.of(e.seq, e.threadSeq));
                        }
                        if (e.mentionsAll) {
                            channelSeqs
                                    .computeIfAbsent(member, m -> new HashSet<>())
                                    .add(List.of(e.seq, e.threadSeq));
                        }
                    }
                    // "A reply never counts toward unread(U,C) or mentions(U,C)".
                    if (e.conversationId > 0 && !e.isReply()) {
                        seqsFromOthers
                                .computeIfAbsent(
                                        new Member(e.conversationId, e.userId),
                                        m -> new TreeSet<>())
                                .add(e.seq);
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown kind " + e.kind);
            }
        }
        for (ChatEvent e : channels.badgeDeliveries()) {
            messagesFromOthers.computeIfAbsent(e.userId, u -> new ArrayList<>()).add(e);
        }
    }

    /**
     * The reads an ALL_READ stands for ("Mark all as read"), at allReadAt(U), the largest {@code
     * readAt}: an INBOX_OPENED; for every conversation of U a CONVERSATION_READ up to the largest
     * conversation message from another user delivered to U with {@code sentAt <= allReadAt}
     * (deleted or not; 0 if none, which still clears a mark); for every thread a THREAD_READ up to
     * the largest such reply. {@code delivered}: every per-user event, group deliveries included.
     */
    private static List<ChatEvent> allReads(List<ChatEvent> delivered) {
        Map<Long, Long> allReadAt = new TreeMap<>();
        for (ChatEvent e : delivered) {
            if (e.kind == ChatEvent.Kind.ALL_READ) {
                allReadAt.merge(e.userId, e.time, Math::max);
            }
        }
        Map<List<Long>, Long> conversationCursors = new TreeMap<>(Oracle::compareKeys);
        Map<List<Long>, Long> threadCursors = new TreeMap<>(Oracle::compareKeys);
        for (ChatEvent e : delivered) {
            Long at = allReadAt.get(e.userId);
            if (at == null || !e.hasConversation()) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD) {
                conversationCursors.merge(List.of(e.userId, e.conversationId), 0L, Math::max);
            }
            if (e.kind != ChatEvent.Kind.MESSAGE || e.senderId == e.userId || e.time > at) {
                continue;
            }
            if (e.isReply()) {
                threadCursors.merge(
                        List.of(e.userId, e.conversationId, e.threadSeq), e.seq, Math::max);
            } else {
                conversationCursors.merge(List.of(e.userId, e.conversationId), e.seq, Math::max);
            }
        }
        List<ChatEvent> reads = new ArrayList<>();
        allReadAt.forEach((user, at) -> reads.add(ChatEvent.inboxOpened(user, at)));
        conversationCursors.forEach(
                (k, seq) ->
                        reads.add(
                                ChatEvent.conversationRead(
                                        k.get(0), k.get(1), seq, allReadAt.get(k.get(0)))));
        threadCursors.forEach(
                (k, seq) ->
                        reads.add(
                                ChatEvent.threadRead(
                                        k.get(0),
                                        k.get(1),
                                        k.get(2),
                                        seq,
                                        allReadAt.get(k.get(0)))));
        return reads;
    }

    private static int compareKeys(List<Long> a, List<Long> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Long.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /**
     * The sender's part in a message as the sender's own state sees it: sent to the sender, not
     * when the sender's erasure covers it.
     */
    private void sent(
            long sender,
            long conversationId,
            long seq,
            long threadSeq,
            long rootSenderId,
            long sentAt) {
        ChatEvent sent = ChatEvent.message(sender, sender, conversationId, seq, sentAt);
        sent.threadSeq = threadSeq;
        sent.rootSenderId = rootSenderId;
        threads.message(sent, !erased(sent));
    }

    /** The newest {@code erasedAt} of the user, 0 when never erased. */
    public long erasedAt(long userId) {
        return erasedAt.getOrDefault(userId, 0L);
    }

    /** Whether the user's erasure covers {@code e}: it carries a time at or before it. */
    private boolean erased(ChatEvent e) {
        return e.time > 0 && e.time <= erasedAt(e.userId);
    }

    /** The expected outcome after every event in {@code events} was processed at least once. */
    public static Oracle of(Collection<ChatEvent> events) {
        return new Oracle(events, List.of(), false, Set.of());
    }

    /**
     * The same with the {@code chat-conversations} records {@code conversations}, in the order the
     * job takes them when a channel is among them (see {@link OracleChannels}).
     */
    public static Oracle of(
            Collection<ChatEvent> events, Collection<ConversationEvent> conversations) {
        return new Oracle(events, conversations, false, Set.of());
    }

    /** The same for a job that runs with {@code --track-root-senders} or not. */
    public static Oracle of(
            Collection<ChatEvent> events,
            Collection<ConversationEvent> conversations,
            boolean trackRootSenders) {
        return new Oracle(events, conversations, trackRootSenders, Set.of());
    }

    /**
     * The same for a job with {@code --max-channel-seq}; {@code conversations} in the order the job
     * takes them, which a channel's sender badge and ALL_READ's cursor depend on.
     */
    public static Oracle of(
            Collection<ChatEvent> events,
            List<ConversationEvent> conversations,
            boolean trackRootSenders,
            long maxChannelSeq) {
        return new Oracle(events, conversations, trackRootSenders, Set.of(), maxChannelSeq);
    }

    /** The channels among the conversations, and their counts. */
    public OracleChannels channels() {
        return channels;
    }

    /**
     * The outcome of {@code before}, taken by a job of version 3 whose savepoint a job of this
     * version restored, and {@code after} taken by it: "a follow that older state holds keeps its
     * value; an explicit one keeps its setAt, an implicit one counts as a default".
     */
    public static Oracle afterUpgrade(List<ChatEvent> before, List<ChatEvent> after) {
        List<ChatEvent> all = new ArrayList<>(before);
        all.addAll(after);
        return new Oracle(all, List.of(), false, new HashSet<>(before));
    }

    /**
     * member(U,C,s): U's membership event in C with the largest seq below s is a JOINED; at one seq
     * a LEFT wins.
     */
    static boolean isMember(List<ConversationEvent> changes, long seq) {
        long best = 0;
        boolean member = false;
        for (ConversationEvent c : changes) {
            if (c.seq < seq && c.seq >= best) {
                boolean joined = c.kind == ConversationEvent.Kind.MEMBER_JOINED;
                member = c.seq > best ? joined : member && joined;
                best = c.seq;
            }
        }
        return member;
    }

    /** Whether the newest membership event (largest seq, a LEFT winning a tie) is a LEFT. */
    static boolean newestIsLeft(List<ConversationEvent> changes) {
        long newest = changes.stream().mapToLong(c -> c.seq).max().orElse(0);
        return changes.stream()
                .anyMatch(c -> c.seq == newest && c.kind == ConversationEvent.Kind.MEMBER_LEFT);
    }

    /** max {@code readAt} over the user's INBOX_OPENED events, 0 if none. */
    public long lastReadAt(long userId) {
        return lastReadAt.getOrDefault(userId, 0L);
    }

    /** max {@code readSeq} over the user's CONVERSATION_READ events for the conversation. */
    public long lastReadSeq(long userId, long conversationId) {
        return lastReadSeq.getOrDefault(new Member(conversationId, userId), 0L);
    }

    /** Distinct senders other than the user with a message sent after the user's lastReadAt. */
    public long badge(long userId) {
        long watermark = lastReadAt(userId);
        Set<Long> senders = new HashSet<>();
        for (ChatEvent m : messagesFromOthers.getOrDefault(userId, List.of())) {
            if (m.time > watermark) {
                senders.add(m.senderId);
            }
        }
        return senders.size();
    }

    /**
     * Distinct seqs from others in the conversation past the user's read cursor; 0 while the user's
     * newest membership event in it is MEMBER_LEFT.
     */
    public long unread(long userId, long conversationId) {
        if (channels.isChannel(conversationId)) {
            return channels.unread(userId, conversationId);
        }
        if (left.contains(new Member(conversationId, userId))) {
            return 0;
        }
        return unreadPast(new Member(conversationId, userId), lastReadSeq(userId, conversationId));
    }

    /** Distinct seqs from others past the cursor, leaving out deleted ones. */
    private long unreadPast(Member member, long cursor) {
        return notDeleted(member.conversationId(), seqsFromOthers.get(member), cursor);
    }

    /** How many of {@code seqs} lie past the cursor and are not deleted(C,s). */
    private long notDeleted(long conversationId, TreeSet<Long> seqs, long cursor) {
        if (seqs == null) {
            return 0;
        }
        Set<Long> gone = deleted.getOrDefault(conversationId, new TreeSet<>());
        return seqs.tailSet(cursor, false).stream().filter(s -> !gone.contains(s)).count();
    }

    /** deleted(C,s): some MESSAGE_DELETED names that seq of that conversation. */
    public boolean deleted(long conversationId, long seq) {
        return deleted.getOrDefault(conversationId, new TreeSet<>()).contains(seq);
    }

    /**
     * mentions(U,C): distinct seqs past the cursor with a mentioned record from someone else; 0
     * while U's newest membership event in C is MEMBER_LEFT.
     */
    public long mentions(long userId, long conversationId) {
        if (channels.isChannel(conversationId)) {
            return channels.mentions(userId, conversationId);
        }
        return mentions(userId, conversationId, seq -> mentioned(userId, conversationId, seq, 0));
    }

    /**
     * channelMentions(U,C): of mentions(U,C), the seqs that mention U only channel-wide (see {@link
     * #mentionedOnlyChannelWide}).
     */
    public long channelMentions(long userId, long conversationId) {
        if (channels.isChannel(conversationId)) {
            return channels.channelMentions(userId, conversationId);
        }
        return mentions(
                userId,
                conversationId,
                seq -> mentionedOnlyChannelWide(userId, conversationId, seq, 0));
    }

    private long mentions(long userId, long conversationId, LongPredicate mentioned) {
        Member member = new Member(conversationId, userId);
        if (left.contains(member)) {
            return 0;
        }
        TreeSet<Long> seqs = seqsFromOthers.get(member);
        if (seqs == null) {
            return 0;
        }
        TreeSet<Long> counted = new TreeSet<>();
        for (long seq : seqs) {
            if (mentioned.test(seq)) {
                counted.add(seq);
            }
        }
        return notDeleted(conversationId, counted, lastReadSeq(userId, conversationId));
    }

    /**
     * mentioned(U,C,s): by U's newest edits of (C,s) (largest editedAt; tied edits mention U only
     * if each does), else by the message as sent (some record of it to U mentions U); a
     * channel-wide mention counts unless ignoreChannelMentions(U,C). {@code threadSeq}: the
     * message's thread (0 for a conversation message); an edit that names another edits another
     * message.
     */
    public boolean mentioned(long userId, long conversationId, long seq, long threadSeq) {
        return mentioned(
                userId,
                conversationId,
                seq,
                threadSeq,
                !ignoresChannelMentions(userId, conversationId));
    }

    /**
     * mentioned(U,C,s) holds only because of channel-wide mentions: it would not if U ignored them
     * in C. A message that names U and mentions the channel is a mention by id.
     */
    public boolean mentionedOnlyChannelWide(
            long userId, long conversationId, long seq, long threadSeq) {
        return mentioned(userId, conversationId, seq, threadSeq)
                && !mentioned(userId, conversationId, seq, threadSeq, false);
    }

    /** {@code heedAll}: a channel-wide mention counts. */
    private boolean mentioned(
            long userId, long conversationId, long seq, long threadSeq, boolean heedAll) {
        Member member = new Member(conversationId, userId);
        List<long[]> its =
                edits.getOrDefault(member, Map.of()).getOrDefault(seq, List.of()).stream()
                        .filter(e -> e[3] == threadSeq)
                        .toList();
        if (its.isEmpty()) {
            List<Long> message = List.of(seq, threadSeq);
            return namedSeqs.getOrDefault(member, Set.of()).contains(message)
                    || (heedAll && channelSeqs.getOrDefault(member, Set.of()).contains(message));
        }
        long newest = its.stream().mapToLong(e -> e[0]).max().getAsLong();
        return its.stream()
                .filter(e -> e[0] == newest)
                .allMatch(e -> e[1] == 1 || (heedAll && e[2] == 1));
    }

    /** ignoreChannelMentions(U,C): of the newest event that carries it, true on a tie. */
    public boolean ignoresChannelMentions(long userId, long conversationId) {
        return newest(ignoreChannelMentions.get(new Member(conversationId, userId)), 0) == 1;
    }

    /**
     * preference(U,C): of the event with the largest setAt, ties to the quieter (NONE over MENTIONS
     * over ALL); ALL if none.
     */
    public long preference(long userId, long conversationId) {
        if (channels.isChannel(conversationId)) {
            return channels.preference(userId, conversationId);
        }
        return newest(preferences.get(new Member(conversationId, userId)), ChatEvent.ALL);
    }

    /**
     * The value of the newest of {@code settings} ({setAt, value}), the greater value on a tie (the
     * quieter preference, ignoring channel mentions); {@code none} when there is none.
     */
    static long newest(List<long[]> settings, long none) {
        long bestAt = -1;
        long best = none;
        for (long[] p : settings == null ? List.<long[]>of() : settings) {
            if (p[0] > bestAt || (p[0] == bestAt && p[1] > best)) {
                bestAt = p[0];
                best = p[1];
            }
        }
        return best;
    }

    /** markedUnread(U,C): largest markedAt > largest readAt of a CONVERSATION_READ (0 if none). */
    public boolean markedUnread(long userId, long conversationId) {
        Member member = new Member(conversationId, userId);
        Long marked = markedAt.get(member);
        return marked != null && marked > conversationReadAt.getOrDefault(member, 0L);
    }

    /**
     * userId → the conversations the user sent a reply in, or a message to themselves that mentions
     * them, sorted: the job keeps the reply's thread, which the user follows, or the root that
     * names them, in the record of its conversation.
     */
    public Map<Long, Set<Long>> ownMessagesIn() {
        return Collections.unmodifiableMap(ownMessagesIn);
    }

    /**
     * Every conversation the user has a message from someone else in, or a read, preference or mark
     * of, sorted.
     */
    public Set<Long> conversationsOf(long userId) {
        Set<Long> result = new TreeSet<>();
        for (Map<Member, ?> map :
                List.of(
                        seqsFromOthers,
                        preferences,
                        ignoreChannelMentions,
                        markedAt,
                        conversationReadAt,
                        edits)) {
            map.keySet()
                    .forEach(
                            m -> {
                                if (m.userId() == userId) {
                                    result.add(m.conversationId());
                                }
                            });
        }
        // "unread:totals leaves every channel out, a marked one too".
        result.removeIf(channels::isChannel);
        return result;
    }

    /**
     * The app-icon totals: {messages, mentions, conversations, threads}, straight from their rules.
     */
    public long[] totals(long userId) {
        long messages = 0;
        long mentions = 0;
        long conversations = 0;
        for (long c : conversationsOf(userId)) {
            long preference = preference(userId, c);
            long unread = unread(userId, c);
            long mentioned = mentions(userId, c);
            if (preference == ChatEvent.ALL) {
                messages += unread;
            }
            if (preference == ChatEvent.ALL || preference == ChatEvent.MENTIONS) {
                mentions += mentioned;
            }
            if ((preference == ChatEvent.ALL && unread > 0)
                    || (preference == ChatEvent.MENTIONS && mentioned > 0)
                    || markedUnread(userId, c)) {
                conversations++;
            }
        }
        long threadCount = 0;
        for (OracleThreads.Thread t : threads.threads()) {
            if (t.userId() != userId) {
                continue;
            }
            long preference = preference(userId, t.conversationId());
            long unread = threadUnread(t);
            long mentioned = threadMentions(t);
            if ((preference == ChatEvent.ALL && unread > 0)
                    || (preference != ChatEvent.NONE && mentioned > 0)) {
                threadCount++;
            }
            if (preference != ChatEvent.NONE) {
                mentions += mentioned;
            }
        }
        return new long[] {messages, mentions, conversations, threadCount};
    }

    /**
     * The totals as a reader computes them ("The recipe"): {@link #totals} and what each channel of
     * U adds by the same rules, with its mark.
     */
    public long[] readerTotals(long userId) {
        long[] totals = totals(userId);
        long[] added = channels.totals(userId, this::markedUnread);
        for (int i = 0; i < totals.length; i++) {
            totals[i] += added[i];
        }
        return totals;
    }

    /** threadUnread(U,C,T) as shown: 0 unless followed, and while U has left C. */
    private long threadUnread(OracleThreads.Thread t) {
        return shown(t) ? threads.unread(t, this::deleted) : 0;
    }

    private long threadMentions(OracleThreads.Thread t) {
        return shown(t)
                ? threads.mentions(
                        t,
                        this::deleted,
                        s -> mentioned(t.userId(), t.conversationId(), s, t.threadSeq()))
                : 0;
    }

    private long threadChannelMentions(OracleThreads.Thread t) {
        return shown(t)
                ? threads.mentions(
                        t,
                        this::deleted,
                        s ->
                                mentionedOnlyChannelWide(
                                        t.userId(), t.conversationId(), s, t.threadSeq()))
                : 0;
    }

    private boolean shown(OracleThreads.Thread t) {
        return threads.follows(t) && !left.contains(new Member(t.conversationId(), t.userId()));
    }

    /** threadUnread(U,C,T) as {@code chat:threads:{U}} shows it. */
    public long threadUnread(long userId, long conversationId, long threadSeq) {
        if (channels.isChannel(conversationId)) {
            return channels.threadUnread(userId, conversationId, threadSeq);
        }
        return threadUnread(new OracleThreads.Thread(conversationId, threadSeq, userId));
    }

    public long threadMentions(long userId, long conversationId, long threadSeq) {
        if (channels.isChannel(conversationId)) {
            return channels.threadMentions(userId, conversationId, threadSeq);
        }
        return threadMentions(new OracleThreads.Thread(conversationId, threadSeq, userId));
    }

    /**
     * Expected Redis hashes {@code {prefix}chat:threads:{u}} (or, with {@code mentions}, {@code
     * chat:thread-mentions:{u}}): field "{conversationId}:{threadSeq}" of each followed thread with
     * a count, the key absent when none.
     */
    public Map<String, Map<String, String>> redisThreadHashes(String prefix, boolean mentions) {
        return mentions
                ? redisThreadHashes(prefix + THREAD_MENTIONS_KEY, this::threadMentions)
                : redisThreadHashes(prefix + THREADS_KEY, this::threadUnread);
    }

    /** Expected Redis hashes {@code {prefix}chat:thread-channel-mentions:{u}}, as the others. */
    public Map<String, Map<String, String>> redisThreadChannelMentionHashes(String prefix) {
        return redisThreadHashes(prefix + THREAD_CHANNEL_MENTIONS_KEY, this::threadChannelMentions);
    }

    private Map<String, Map<String, String>> redisThreadHashes(
            String key, ToLongFunction<OracleThreads.Thread> count) {
        Map<String, Map<String, String>> keys = new TreeMap<>();
        for (OracleThreads.Thread t : threads.threads()) {
            long n = count.applyAsLong(t);
            if (n > 0) {
                keys.computeIfAbsent(key + t.userId(), k -> new TreeMap<>())
                        .put(t.field(), Long.toString(n));
            }
        }
        return keys;
    }

    /**
     * Every user any per-user event went to, a message to oneself included: the users the job keeps
     * a state for (at least the day it last saw them, for idle expiry).
     */
    public Set<Long> addressedUsers() {
        return Collections.unmodifiableSet(addressed);
    }

    /** Every user that appears as a receiver or reader, sorted. */
    public Set<Long> users() {
        Set<Long> users = new TreeSet<>(lastReadAt.keySet());
        users.addAll(messagesFromOthers.keySet());
        lastReadSeq.keySet().forEach(m -> users.add(m.userId()));
        preferences.keySet().forEach(m -> users.add(m.userId()));
        markedAt.keySet().forEach(m -> users.add(m.userId()));
        threads.threads().forEach(t -> users.add(t.userId()));
        users.addAll(threads.readers());
        return users;
    }

    /**
     * Expected Redis hashes {@code {prefix}chat:mentions:{u}}: field conversationId → mentions,
     * absent when 0.
     */
    public Map<String, Map<String, String>> redisMentionHashes(String prefix) {
        return redisConversationCounts(prefix + MENTIONS_KEY, this::mentions);
    }

    /**
     * Expected Redis hashes {@code {prefix}chat:channel-mentions:{u}}: field conversationId →
     * channelMentions, absent when 0.
     */
    public Map<String, Map<String, String>> redisChannelMentionHashes(String prefix) {
        return redisConversationCounts(prefix + CHANNEL_MENTIONS_KEY, this::channelMentions);
    }

    /** {@code count} of (user, conversation). */
    private Map<String, Map<String, String>> redisConversationCounts(
            String key, ToLongBiFunction<Long, Long> count) {
        Map<String, Map<String, String>> keys = new TreeMap<>();
        for (Member member : seqsFromOthers.keySet()) {
            long n = count.applyAsLong(member.userId(), member.conversationId());
            if (n > 0) {
                keys.computeIfAbsent(key + member.userId(), k -> new TreeMap<>())
                        .put(Long.toString(member.conversationId()), Long.toString(n));
            }
        }
        return keys;
    }

    /** Expected Redis sets {@code {prefix}chat:marked-unread:{u}}, absent when empty. */
    public Map<String, Set<String>> redisMarkedSets(String prefix) {
        Map<String, Set<String>> keys = new TreeMap<>();
        for (Member member : markedAt.keySet()) {
            if (markedUnread(member.userId(), member.conversationId())) {
                keys.computeIfAbsent(
                                prefix + MARKED_UNREAD_KEY + member.userId(), k -> new TreeSet<>())
                        .add(Long.toString(member.conversationId()));
            }
        }
        return keys;
    }

    /**
     * Expected Redis hashes {@code {prefix}unread:totals:{u}}: fields messages, mentions,
     * conversations, each absent when 0, the key absent when all are.
     */
    public Map<String, Map<String, String>> redisTotals(String prefix) {
        Map<String, Map<String, String>> keys = new TreeMap<>();
        for (long user : users()) {
            long[] t = totals(user);
            Map<String, String> fields = new TreeMap<>();
            String[] names = {"messages", "mentions", "conversations", "threads"};
            for (int i = 0; i < names.length; i++) {
                if (t[i] != 0) {
                    fields.put(names[i], Long.toString(t[i]));
                }
            }
            if (!fields.isEmpty()) {
                keys.put(prefix + TOTALS_KEY + user, fields);
            }
        }
        return keys;
    }

    /** userId → badge, only users whose badge is not 0. */
    public Map<Long, Long> badges() {
        Map<Long, Long> badges = new TreeMap<>();
        for (long user : messagesFromOthers.keySet()) {
            long badge = badge(user);
            if (badge > 0) {
                badges.put(user, badge);
            }
        }
        return badges;
    }

    /** userId → (conversationId → unread), only non-zero counts, only users with one. */
    public Map<Long, Map<Long, Long>> conversationUnread() {
        Map<Long, Map<Long, Long>> result = new TreeMap<>();
        for (Member member : seqsFromOthers.keySet()) {
            long unread = unread(member.userId(), member.conversationId());
            if (unread > 0) {
                result.computeIfAbsent(member.userId(), u -> new TreeMap<>())
                        .put(member.conversationId(), unread);
            }
        }
        return result;
    }

    /** Expected Redis strings {@code unread:senders:{u}} without a key prefix. */
    public Map<String, String> redisSenderKeys() {
        return redisSenderKeys("");
    }

    /** Expected Redis strings {@code {prefix}unread:senders:{u}}: badge, absent when 0. */
    public Map<String, String> redisSenderKeys(String prefix) {
        Map<String, String> keys = new TreeMap<>();
        badges().forEach((user, badge) -> keys.put(prefix + SENDERS_KEY + user, badge.toString()));
        return keys;
    }

    /** Expected Redis hashes {@code chat:unread:{u}} without a key prefix. */
    public Map<String, Map<String, String>> redisConversationHashes() {
        return redisConversationHashes("");
    }

    /**
     * Expected Redis hashes {@code {prefix}chat:unread:{u}}: field conversationId → unread, fields
     * absent when 0, the key absent when no field is left.
     */
    public Map<String, Map<String, String>> redisConversationHashes(String prefix) {
        Map<String, Map<String, String>> keys = new TreeMap<>();
        conversationUnread()
                .forEach(
                        (user, counts) -> {
                            Map<String, String> fields = new TreeMap<>();
                            counts.forEach(
                                    (c, n) -> fields.put(Long.toString(c), Long.toString(n)));
                            keys.put(prefix + CONVERSATIONS_KEY + user, fields);
                        });
        return keys;
    }

    /** participants(C), sorted. */
    public Set<Long> participants(long conversationId) {
        return participants.getOrDefault(conversationId, Set.of());
    }

    /**
     * Expected sorted sets {@code {prefix}chat:readers:{C}}: member userId → score lastReadSeq, for
     * every participant with a cursor above 0; keys with no member absent.
     */
    public Map<String, Map<String, Double>> redisReaders(String prefix) {
        Map<String, Map<String, Double>> keys = new TreeMap<>();
        participants.forEach(
                (conversation, users) -> {
                    Map<String, Double> scores = new TreeMap<>();
                    for (long user : users) {
                        long cursor = lastReadSeq(user, conversation);
                        if (cursor > 0) {
                            scores.put(Long.toString(user), (double) cursor);
                        }
                    }
                    if (!scores.isEmpty()) {
                        keys.put(prefix + READERS_KEY + conversation, scores);
                    }
                });
        return keys;
    }

    /** Expected {@code user_activity}: userId → last_read_at (epoch ms), users with a reset. */
    public Map<Long, Long> userActivityRows() {
        return new TreeMap<>(lastReadAt);
    }

    /**
     * Expected {@code conversation_member.last_read_seq} per (conversation, user): only cursors
     * past 0, since a cursor that never advanced produces no row.
     */
    public Map<Member, Long> conversationMemberRows() {
        Map<Member, Long> rows = new TreeMap<>();
        lastReadSeq.forEach(
                (member, seq) -> {
                    if (seq > 0) {
                        rows.put(member, seq);
                    }
                });
        return rows;
    }

    /**
     * The largest {@code conversation_member.unread_count} any arrival order can produce: the read
     * saw at most every seq past the final cursor, and at least none of them.
     */
    public long unreadCountUpperBound(Member member) {
        return unreadCountUpperBound(member, lastReadSeq(member.userId(), member.conversationId()));
    }

    /**
     * The same bound for a cursor emitted on the way, at {@code readSeq}: deleted seqs included, as
     * a read may come before their deletion.
     */
    public long unreadCountUpperBound(Member member, long readSeq) {
        TreeSet<Long> seqs = seqsFromOthers.get(member);
        return seqs == null ? 0 : seqs.tailSet(readSeq, false).size();
    }

    /**
     * {@code conversation_member.unread_count} as a job that processes {@code order} one event
     * after another must leave it: for each cursor row, the unread count right after the read that
     * first moved the cursor to its final value, counting only the messages that arrived before
     * that read and were not deleted (a per-user MESSAGE_DELETED) before it. Later arrivals
     * (duplicates of that read included) do not move the cursor, so they write nothing.
     */
    public static Map<Member, Long> unreadAfterLastRead(List<ChatEvent> order) {
        Map<Member, Long> finalCursor = of(order).conversationMemberRows();
        Map<Member, TreeMap<Long, Long>> seen = new HashMap<>();
        Map<Member, Set<Long>> deletedBefore = new HashMap<>();
        Map<Member, Long> readSeq = new HashMap<>();
        Map<Long, Long> allReadAt = new HashMap<>();
        Map<Member, Long> result = new TreeMap<>();
        Map<Long, Long> erasedAt = new HashMap<>();
        for (ChatEvent e : order) {
            List<Member> moved = new ArrayList<>();
            if (e.time > 0 && e.time <= erasedAt.getOrDefault(e.userId, 0L)) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.USER_ERASED) {
                // The rows go, and what the user's state held with them but the deletions,
                // facts of the conversations ("Erasure").
                erasedAt.put(e.userId, e.time);
                seen.keySet().removeIf(m -> m.userId() == e.userId);
                result.keySet().removeIf(m -> m.userId() == e.userId);
                readSeq.keySet().removeIf(m -> m.userId() == e.userId);
                allReadAt.remove(e.userId);
            } else if (e.kind == ChatEvent.Kind.MESSAGE_DELETED) {
                deletedBefore
                        .computeIfAbsent(
                                new Member(e.conversationId, e.userId), m -> new HashSet<>())
                        .add(e.seq);
            } else if (e.kind == ChatEvent.Kind.MESSAGE
                    && e.conversationId > 0
                    && e.senderId != e.userId
                    && !e.isReply()) {
                Member member = new Member(e.conversationId, e.userId);
                // The earliest sentAt of a seq: a resend sent later reads it no later.
                seen.computeIfAbsent(member, m -> new TreeMap<>()).merge(e.seq, e.time, Math::min);
                moved.add(member);
            } else if (e.kind == ChatEvent.Kind.CONVERSATION_READ) {
                Member member = new Member(e.conversationId, e.userId);
                readSeq.merge(member, e.seq, Math::max);
                moved.add(member);
            } else if (e.kind == ChatEvent.Kind.ALL_READ) {
                allReadAt.merge(e.userId, e.time, Math::max);
                for (Member member : seen.keySet()) {
                    if (member.userId() == e.userId) {
                        moved.add(member);
                    }
                }
            }
            for (Member member : moved) {
                Long target = finalCursor.get(member);
                if (target == null || result.containsKey(member)) {
                    continue;
                }
                TreeMap<Long, Long> seqs = seen.getOrDefault(member, new TreeMap<>());
                long cursor = readSeq.getOrDefault(member, 0L);
                long at = allReadAt.getOrDefault(member.userId(), 0L);
                for (Map.Entry<Long, Long> m : seqs.entrySet()) {
                    if (m.getValue() <= at) {
                        cursor = Math.max(cursor, m.getKey());
                    }
                }
                if (cursor == target) {
                    Set<Long> gone = deletedBefore.getOrDefault(member, Set.of());
                    result.put(
                            member,
                            seqs.tailMap(target, false).keySet().stream()
                                    .filter(s -> !gone.contains(s))
                                    .count());
                }
            }
        }
        return result;
    }

    @Override
    public String toString() {
        return "Oracle{badges="
                + badges()
                + ", conversations="
                + conversationUnread()
                + ", lastReadAt="
                + lastReadAt
                + ", lastReadSeq="
                + lastReadSeq
                + "}";
    }
}
