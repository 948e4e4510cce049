package dev.unread.generator;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationEventJson;
import dev.unread.generator.TrafficRecord.Malformed;
import dev.unread.generator.TrafficRecord.Topic;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * Realistic chat traffic as an endless, ordered sequence of {@link TrafficRecord}s: what the local
 * stack publishes for a demo and the benchmark publishes by the million. The same {@link Workload}
 * and clock readings give the same records.
 *
 * <p>The model. Receivers are drawn by Zipf rank ({@code receiverSkew}); rank r is user {@code
 * firstUserId + r}, so the first ids are the busiest. Users sit on a ring, the ranks scattered over
 * it so that popular users are not each other's neighbours: a user's friends are the {@code
 * friends} users nearest to it on both sides, so friendship is mutual and a one-to-one conversation
 * is one id and one seq counter for both directions. A group is a run of {@code groupSize}
 * consecutive users on the ring (every user is in at most one). Each message is one of:
 *
 * <ul>
 *   <li>without a conversation, from a friend;
 *   <li>in the one-to-one conversation with a friend (seq = that conversation's next);
 *   <li>in the receiver's group, from another member, fanned out as one record per member but the
 *       sender, all with the same conversationId, seq and sentAt.
 * </ul>
 *
 * <p>Threads ({@code replyShare} above 0): a conversation's messages fall in blocks of {@link
 * #THREAD_BLOCK} seqs, its first message's seq on; the first of a block is a thread's root and
 * never a reply, any other message replies in its block's thread with probability {@code
 * replyShare} (every record of a group message alike). So a reply's root is always a conversation
 * message of the same conversation, sent before it, and the only state kept per thread is its
 * root's sender, per conversation (the current block's), which every reply names ({@code
 * rootSenderId}) as a producer of version 4 does. Of the conversation read steps, {@link
 * #THREAD_READ_SHARE} read the thread of the conversation's newest message up to it and {@link
 * #THREAD_FOLLOW_SHARE} follow it (one in five unfollows); a reader who replies in a thread after
 * unfollowing it follows it again, as the contract says. A published group has no read steps (its
 * members are no recent receivers), so each of its replies is followed, for the same shares, by a
 * random member's read of the thread up to it or follow of it: records added to the traffic, that
 * take no draw of the messages' own, so the messages stay what they were.
 *
 * <p>Besides, a share of message steps ({@code publishedGroupShare}) is a group message published
 * once, on {@code chat-conversations}, from a member of one of {@code publishedGroups} groups
 * (drawn by Zipf over them; sizes from 3 to {@code publishedGroupMaxSize}, a run of consecutive
 * users on the ring each, so groups overlap). A group's first message is preceded by one
 * MEMBER_JOINED per member at seq 1, so every member's join comes before any message of the
 * conversation (the contract's precondition); its messages take seqs 2 on. These records stay out
 * of the redundancy steering and of {@link #messages()}: they count in {@link #publishedMessages()}
 * and {@link #memberships()}.
 *
 * <p>For every receiver the generator keeps who has written since its last inbox open. When it
 * picks a sender it aims at {@code redundancy}: mostly someone who has already written (no change
 * to the badge), sometimes a friend who has not; the best friends write most, and a group's sender
 * is the member whose message best keeps the share on target. Inbox opens and conversation reads
 * come from users who received a message lately, so they follow each user's traffic. An open clears
 * the user's record; a read reads the conversation of the reader's latest message, up to its
 * current seq or, one time in five, a little behind it.
 *
 * <p>Time: each event is stamped with the clock, but never before the previous event, and every
 * event after an inbox open is at least 1 ms later, so that the open covers exactly the messages
 * generated before it whatever order the job sees them in.
 *
 * <p>Cost: state is flat arrays sized once (one int per one-to-one conversation, a bitset of the
 * friends per receiver); a record costs its own objects and nothing else. Not thread-safe.
 */
public final class TrafficGenerator {

    /** Share of conversation reads that stop short of the conversation's current seq. */
    static final double READ_BEHIND_SHARE = 0.2;

    /** Share of one-to-one conversation messages and group deliveries that mention the receiver. */
    static final double MENTION_SHARE = 0.05;

    /**
     * Shares of conversation read steps that set the conversation's count preference, and that mark
     * it unread, instead of reading it: rarer than reads, as in a chat client.
     */
    static final double PREFERENCE_SHARE = 0.03;

    static final double MARK_SHARE = 0.03;

    /** Seqs per thread: the first a root, the others possible replies in it. */
    static final int THREAD_BLOCK = 8;

    /**
     * With replies on, shares of conversation read steps that read a thread, and that follow or
     * unfollow one, instead of reading the conversation.
     */
    static final double THREAD_READ_SHARE = 0.3;

    static final double THREAD_FOLLOW_SHARE = 0.1;

    /** Of those follow steps, the share that unfollow. */
    static final double UNFOLLOW_SHARE = 0.2;

    /** The count preferences a preference step picks among, as ChatEvent holds them. */
    private static final long[] PREFERENCES = {ChatEvent.ALL, ChatEvent.MENTIONS, ChatEvent.NONE};

    /** Records the redundant count may run ahead or behind its target before it is steered. */
    private static final double REDUNDANCY_SLACK = 16;

    /** Receivers remembered for opens and reads (a power of two). */
    private static final int RECENT_RECEIVERS = 64;

    private static final Malformed[] MALFORMED = Malformed.values();

    private final Workload workload;

    /** Null for the synthetic clock. */
    private final LongSupplier clock;

    private final long syntheticStart;
    private final double syntheticMillisPerRecord;
    private final SplittableRandom random;

    /**
     * Draws mentions, preferences and marks, apart from {@link #random}: the rest of the traffic of
     * a seed stays what it was before they existed.
     */
    private final SplittableRandom extras;

    private final ZipfSampler zipf;

    /** Users on the ring; positions 0..n-1, user id = firstUserId + position. */
    private final int n;

    /** Rank r sits at position r * multiplier mod n: a bijection, since the two are coprime. */
    private final long multiplier;

    /** The inverse of {@link #multiplier} mod n: position p holds rank p * inverse mod n. */
    private final long inverse;

    /** Friends ahead on the ring: +1..+ahead; behind: -1..-(friends - ahead). */
    private final int ahead;

    /** Everyone who can write to a user is within this distance of it. */
    private final int reach;

    /** Words of the "wrote since the last inbox open" bitset per user (2 * reach bits). */
    private final int words;

    private final long[] wroteSinceOpen;

    /** Seq of the one-to-one conversation (p, p + d), 1 <= d <= ahead, at p * ahead + d - 1. */
    private final int[] pairSeq;

    private final int[] groupSeq;

    /**
     * The sender (ring position) of the current thread root of each pair, group and published
     * group: what its replies name as {@code rootSenderId}.
     */
    private final int[] pairRootSender;

    private final int[] groupRootSender;
    private final int[] publishedRootSender;

    /** Conversation ids: pairs 1..pairSeq.length, then groups. */
    private final long firstGroupConversation;

    /** The conversation of each user's latest message, 0 if none: what it reads next. */
    private final long[] lastConversation;

    /** The receivers of the latest message records, a ring indexed by the message count. */
    private final int[] recent = new int[RECENT_RECEIVERS];

    private final double openProbability;
    private final double readProbability;

    /** A group message's records still to hand out. */
    private final int[] pending;

    private int pendingCount;
    private int pendingNext;
    private int pendingSender;
    private long pendingConversation;
    private long pendingSeq;
    private long pendingThread;
    private long pendingRootSender;
    private boolean pendingMentionsAll;
    private long pendingTime;

    /** Published-once groups by activity rank: members, first ring position, current seq. */
    private final int[] publishedSize;

    /** Whether each published group's CHANNEL went out. */
    private final boolean[] declared;

    private final int[] publishedStart;
    private final long[] publishedSeq;
    private final ZipfSampler publishedZipf;
    private final long firstPublishedConversation;

    /** The group whose members are being joined, -1 if none; then its message is due. */
    private int joining = -1;

    private int joinNext;

    /** The earliest time the next event may carry. */
    private long floor = 1;

    private long records;
    private long messages;
    private long redundant;
    private long inboxOpens;
    private long allReads;
    private long conversationReads;
    private long preferences;
    private long marks;
    private long malformed;
    private long publishedMessages;
    private long memberships;
    private long deletions;
    private long deletionDeliveries;
    private long edits;
    private long ownCopies;
    private long trackedOwnCopies;
    private long replies;
    private long threadReads;
    private long threadFollows;

    /** The edit that goes out with the next record, or null. */
    private TrafficRecord edit;

    /** The deletion that goes out with the next record, or null. */
    private ConversationEvent deletion;

    /** A published group member's thread step that goes out as the next record, or null. */
    private TrafficRecord pendingThreadStep;

    /**
     * Traffic stamped by {@code clock} (epoch milliseconds): {@code System::currentTimeMillis} for
     * live traffic.
     */
    public TrafficGenerator(Workload workload, LongSupplier clock) {
        this(workload, clock, 0, 0);
    }

    /**
     * Traffic on a synthetic clock: record i (from 0) is stamped {@code startMillis + i * 1000 /
     * recordsPerSecond}, so the records are the same on every run, however fast they are made.
     */
    public static TrafficGenerator synthetic(
            Workload workload, long startMillis, double recordsPerSecond) {
        if (startMillis < 1) {
            throw new IllegalArgumentException("startMillis must be >= 1, was " + startMillis);
        }
        if (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond)) {
            throw new IllegalArgumentException(
                    "recordsPerSecond must be > 0, was " + recordsPerSecond);
        }
        return new TrafficGenerator(workload, null, startMillis, 1000.0 / recordsPerSecond);
    }

    private TrafficGenerator(
            Workload workload,
            LongSupplier clock,
            long syntheticStart,
            double syntheticMillisPerRecord) {
        this.workload = workload;
        this.clock = clock;
        this.syntheticStart = syntheticStart;
        this.syntheticMillisPerRecord = syntheticMillisPerRecord;
        this.random = new SplittableRandom(workload.seed());
        this.extras = new SplittableRandom(~workload.seed());
        this.n = workload.receivers();
        this.zipf = new ZipfSampler(n, workload.receiverSkew());
        this.multiplier = coprimeMultiplier(n);
        this.inverse = inverseMod(multiplier, n);

        this.ahead = (workload.friends() + 1) / 2;
        this.reach = Math.max(ahead, workload.groupSize() - 1);
        this.words = (2 * reach + 63) / 64;
        this.wroteSinceOpen = new long[n * words];
        this.pairSeq = new int[n * ahead];
        this.pairRootSender = new int[workload.replyShare() > 0 ? pairSeq.length : 0];
        boolean groups = workload.conversationShare() > 0 && workload.groupShare() > 0;
        this.groupSeq = new int[groups ? n / workload.groupSize() : 0];
        this.groupRootSender = new int[workload.replyShare() > 0 ? groupSeq.length : 0];
        this.firstGroupConversation = pairSeq.length + 1L;
        this.lastConversation = new long[n];
        this.pending = new int[workload.groupSize()];

        int published = workload.publishedGroups();
        this.publishedSize = new int[published];
        this.declared = new boolean[published];
        this.publishedStart = new int[published];
        this.publishedSeq = new long[published];
        this.publishedRootSender = new int[workload.replyShare() > 0 ? published : 0];
        this.publishedZipf = new ZipfSampler(published, workload.receiverSkew());
        this.firstPublishedConversation = firstGroupConversation + groupSeq.length;
        // Sizes on a log scale from 3 up, handed to the ranks in a scattered order, so that
        // activity and size are independent.
        long scatter = coprimeMultiplier(published);
        double steps = Math.max(1, published - 1);
        for (int g = 0; g < published; g++) {
            double at = (g * scatter % published) / steps;
            publishedSize[g] =
                    (int) Math.round(3 * Math.pow(workload.publishedGroupMaxSize() / 3.0, at));
            publishedStart[g] = (int) ((long) g * n / published);
        }

        // Opens and reads are per message record; a step that sends a group message makes
        // groupSize - 1 of them, so the steps are weighted by the records a message step makes.
        double inGroup = (double) groupSeq.length * workload.groupSize() / n;
        double recordsPerMessage =
                1
                        + workload.conversationShare()
                                * workload.groupShare()
                                * inGroup
                                * (workload.groupSize() - 2);
        double open = workload.inboxOpenRate() * recordsPerMessage;
        double read = workload.conversationReadRate() * recordsPerMessage;
        this.openProbability = open / (1 + open + read);
        this.readProbability = read / (1 + open + read);
    }

    /** The next record. */
    public TrafficRecord next() {
        records++;
        // Before the malformed draw, which a record added to the traffic must not take.
        if (pendingThreadStep != null) {
            TrafficRecord record = pendingThreadStep;
            pendingThreadStep = null;
            return record;
        }
        if (workload.malformedShare() > 0 && random.nextDouble() < workload.malformedShare()) {
            return malformed();
        }
        if (edit != null) {
            TrafficRecord record = edit;
            edit = null;
            return record;
        }
        if (deletion != null) {
            TrafficRecord record = conversationRecord(deletion);
            deletion = null;
            return record;
        }
        if (pendingNext < pendingCount) {
            return fanOut();
        }
        if (joining >= 0) {
            return join();
        }
        double u = random.nextDouble();
        if (u < openProbability) {
            return inboxOpen();
        }
        if (u < openProbability + readProbability) {
            TrafficRecord read = conversationRead();
            if (read != null) {
                return read;
            }
        }
        return message();
    }

    public Workload workload() {
        return workload;
    }

    /** The user id of Zipf rank {@code rank} (0: the receiver with the most traffic). */
    public long receiverOfRank(int rank) {
        if (rank < 0 || rank >= n) {
            throw new IllegalArgumentException("rank must be 0.." + (n - 1) + ", was " + rank);
        }
        return workload.firstUserId() + rank;
    }

    /** The receiver drawn most often: rank 0, user {@code firstUserId}. */
    public long mostActiveReceiver() {
        return receiverOfRank(0);
    }

    /** Records handed out by {@link #next()}. */
    public long records() {
        return records;
    }

    /** Message records generated (a group message's counted when it is generated). */
    public long messages() {
        return messages;
    }

    /** Of {@link #messages()}, those whose sender had written to the receiver since its open. */
    public long redundantMessages() {
        return redundant;
    }

    public long inboxOpens() {
        return inboxOpens;
    }

    /** CONVERSATION_PREFERENCE events generated (in place of some conversation reads). */
    public long preferences() {
        return preferences;
    }

    /** CONVERSATION_MARKED_UNREAD events generated (in place of some conversation reads). */
    public long marks() {
        return marks;
    }

    /** ALL_READ records generated so far. */
    public long allReads() {
        return allReads;
    }

    public long conversationReads() {
        return conversationReads;
    }

    public long malformedRecords() {
        return malformed;
    }

    /** Group messages published once on chat-conversations. */
    public long publishedMessages() {
        return publishedMessages;
    }

    /** MESSAGE_EDITED records, on chat-messages (one-to-one) and chat-conversations (groups). */
    public long edits() {
        return edits;
    }

    /** MESSAGE_DELETED records on chat-conversations. */
    public long deletions() {
        return deletions;
    }

    /**
     * The deletions as the job's counting operator takes them in: one per participant of a
     * one-to-one conversation (its sender and receiver) and per member of a published group.
     */
    public long deletionDeliveries() {
        return deletionDeliveries;
    }

    /**
     * Copies the job makes of the records so far for their senders' own keys (docs/contract.md,
     * "Replies name their root's sender"): one per reply, whether a {@code chat-messages} record (a
     * group's fanned-out deliveries each have one) or a group message published once. The counting
     * operator takes them in besides the records, so a run that waits for its count needs them.
     */
    public long ownCopies() {
        return ownCopies;
    }

    /**
     * The same for a job with {@code --track-root-senders}: one per message with a conversation,
     * reply or not, as version 3 made them.
     */
    public long trackedOwnCopies() {
        return trackedOwnCopies;
    }

    /**
     * Conversation messages that reply in a thread: a group message's counted once when it is
     * generated, as in {@link #messages()}.
     */
    public long replies() {
        return replies;
    }

    /** THREAD_READ events generated (in place of some conversation reads, or after a reply). */
    public long threadReads() {
        return threadReads;
    }

    /** THREAD_FOLLOWED events generated (as {@link #threadReads()}). */
    public long threadFollows() {
        return threadFollows;
    }

    /** MEMBER_JOINED records on chat-conversations. */
    public long memberships() {
        return memberships;
    }

    /** The members of published group {@code rank} (0: the most active). */
    public int publishedGroupSize(int rank) {
        return publishedSize[rank];
    }

    /** Whether published group {@code rank} is declared a channel. */
    public boolean isChannel(int rank) {
        return workload.channelMinSize() > 0 && publishedSize[rank] >= workload.channelMinSize();
    }

    /** The conversation id of published group {@code rank}. */
    public long publishedGroupConversation(int rank) {
        return firstPublishedConversation + rank;
    }

    // --- the kinds of event ---

    private TrafficRecord message() {
        if (workload.publishedGroupShare() > 0
                && random.nextDouble() < workload.publishedGroupShare()) {
            int group = publishedZipf.sample(random) - 1;
            if (publishedSeq[group] == 0) {
                // The group's first message: all its members join first.
                publishedSeq[group] = 1;
                joining = group;
                joinNext = 0;
                return join();
            }
            return publishedMessage(group);
        }
        int receiver = drawUser();
        double u = random.nextDouble();
        if (u < workload.conversationShare() * workload.groupShare()) {
            int group = groupOf(receiver);
            if (group >= 0) {
                return groupMessage(receiver, group);
            }
            // Not in a group: a one-to-one conversation keeps the conversation share.
            return directMessage(receiver, true);
        }
        return directMessage(receiver, u < workload.conversationShare());
    }

    private TrafficRecord directMessage(int receiver, boolean inConversation) {
        int delta = chooseFriend(receiver);
        int sender = wrap(receiver + delta);
        received(receiver, mark(receiver, delta));
        long t = now();
        if (!inConversation) {
            return valid(ChatEvent.message(userId(sender), userId(receiver), t));
        }
        int slot = pairSlot(receiver, delta);
        long conversation = slot + 1L;
        long seq = ++pairSeq[slot];
        lastConversation[receiver] = conversation;
        ChatEvent message =
                ChatEvent.message(userId(sender), userId(receiver), conversation, seq, t);
        message.mentioned = extras.nextDouble() < MENTION_SHARE;
        message.threadSeq = threadOf(seq, 1);
        if (message.threadSeq > 0) {
            message.rootSenderId = userId(pairRootSender[slot]);
        } else if (pairRootSender.length > 0 && rootOf(seq, 1) == seq) {
            pairRootSender[slot] = sender;
        }
        message.mentionsAll = mentionsAll();
        if (drawEdit()) {
            edit =
                    valid(
                            ChatEvent.edited(
                                    userId(receiver),
                                    conversation,
                                    seq,
                                    message.threadSeq,
                                    now(),
                                    !message.mentioned,
                                    mentionsAll()));
        }
        // The sender and the receiver are the conversation's participants.
        maybeDelete(conversation, seq, 2);
        ownCopy(message.threadSeq);
        return valid(message);
    }

    private TrafficRecord groupMessage(int receiver, int group) {
        int first = group * workload.groupSize();
        int sender = chooseGroupSender(receiver, first);
        long conversation = firstGroupConversation + group;
        pendingSender = sender;
        pendingConversation = conversation;
        pendingSeq = ++groupSeq[group];
        pendingThread = threadOf(pendingSeq, 1);
        if (groupRootSender.length > 0 && rootOf(pendingSeq, 1) == pendingSeq) {
            groupRootSender[group] = sender;
        }
        pendingRootSender = pendingThread > 0 ? userId(groupRootSender[group]) : 0;
        pendingMentionsAll = mentionsAll();
        pendingTime = now();
        pendingCount = 0;
        pendingNext = 0;
        for (int member = first; member < first + workload.groupSize(); member++) {
            if (member != sender) {
                received(member, mark(member, sender - member));
                lastConversation[member] = conversation;
                pending[pendingCount++] = member;
            }
        }
        return fanOut();
    }

    private TrafficRecord fanOut() {
        int receiver = pending[pendingNext++];
        ChatEvent message =
                ChatEvent.message(
                        userId(pendingSender),
                        userId(receiver),
                        pendingConversation,
                        pendingSeq,
                        pendingTime);
        message.mentioned = extras.nextDouble() < MENTION_SHARE;
        message.threadSeq = pendingThread;
        message.rootSenderId = pendingRootSender;
        message.mentionsAll = pendingMentionsAll;
        ownCopy(pendingThread);
        return valid(message);
    }

    /**
     * The next member of {@link #joining} joins at seq 1, after the group's declaration as a
     * channel when it is one; after the last, the message.
     */
    private TrafficRecord join() {
        int group = joining;
        if (joinNext == 0 && isChannel(group) && !declared[group]) {
            declared[group] = true;
            return conversationRecord(ConversationEvent.channel(publishedGroupConversation(group)));
        }
        if (joinNext == publishedSize[group]) {
            joining = -1;
            return publishedMessage(group);
        }
        int member = wrap(publishedStart[group] + joinNext++);
        memberships++;
        return conversationRecord(
                ConversationEvent.joined(publishedGroupConversation(group), userId(member), 1));
    }

    private TrafficRecord publishedMessage(int group) {
        int sender = wrap(publishedStart[group] + random.nextInt(publishedSize[group]));
        publishedMessages++;
        long seq = ++publishedSeq[group];
        // Seq 1 is the members' join: the group's messages, and so its threads, start at 2.
        long thread = threadOf(seq, 2);
        ownCopy(thread);
        if (thread > 0) {
            pendingThreadStep = publishedThreadStep(group, thread, seq);
        } else if (publishedRootSender.length > 0 && rootOf(seq, 2) == seq) {
            publishedRootSender[group] = sender;
        }
        maybeDelete(publishedGroupConversation(group), seq, publishedSize[group]);
        ConversationEvent message =
                ConversationEvent.message(
                        publishedGroupConversation(group), seq, userId(sender), now());
        message.threadSeq = thread;
        message.rootSenderId = thread > 0 ? userId(publishedRootSender[group]) : 0;
        message.mentionsAll = mentionsAll();
        if (drawEdit()) {
            // Names a member now and then; @channel otherwise.
            ConversationEvent edited =
                    ConversationEvent.edited(
                            publishedGroupConversation(group),
                            seq,
                            now(),
                            !message.mentionsAll,
                            userId(
                                    wrap(
                                            publishedStart[group]
                                                    + extras.nextInt(publishedSize[group]))));
            edit = conversationRecord(edited);
        }
        return conversationRecord(message);
    }

    /**
     * For the thread step shares, a random member's read of the thread up to reply {@code seq}, or
     * its follow (or unfollow); else null. Drawn from {@link #extras} alone.
     */
    private TrafficRecord publishedThreadStep(int group, long thread, long seq) {
        double v = extras.nextDouble();
        if (v >= THREAD_READ_SHARE + THREAD_FOLLOW_SHARE) {
            return null;
        }
        long member = userId(wrap(publishedStart[group] + extras.nextInt(publishedSize[group])));
        long conversation = publishedGroupConversation(group);
        if (v < THREAD_READ_SHARE) {
            threadReads++;
            return valid(ChatEvent.threadRead(member, conversation, thread, seq, now()));
        }
        threadFollows++;
        boolean following = extras.nextDouble() >= UNFOLLOW_SHARE;
        return valid(ChatEvent.threadFollowed(member, conversation, thread, following, now()));
    }

    /**
     * The root of the thread message {@code seq} replies in, or 0 for a conversation message; the
     * conversation's messages start at {@code firstSeq}. Draws nothing without replies, so that
     * such traffic stays what it was.
     */
    private long threadOf(long seq, long firstSeq) {
        if (workload.replyShare() == 0) {
            return 0;
        }
        long root = rootOf(seq, firstSeq);
        if (root == seq || extras.nextDouble() >= workload.replyShare()) {
            return 0;
        }
        replies++;
        return root;
    }

    /** The job's copy of a message with a conversation for its sender, per setting. */
    private void ownCopy(long thread) {
        trackedOwnCopies++;
        if (thread > 0) {
            ownCopies++;
        }
    }

    private static long rootOf(long seq, long firstSeq) {
        return firstSeq + (seq - firstSeq) / THREAD_BLOCK * THREAD_BLOCK;
    }

    /** For the workload's {@code editShare}: a message that mentions the whole channel. */
    private boolean mentionsAll() {
        return workload.editShare() > 0 && extras.nextDouble() < workload.editShare();
    }

    /** For the workload's {@code editShare}: the message is edited with the next record. */
    private boolean drawEdit() {
        if (workload.editShare() > 0 && extras.nextDouble() < workload.editShare()) {
            edits++;
            return true;
        }
        return false;
    }

    /**
     * Deletes the message with the next record, for the workload's {@code deletedShare}; the job
     * tells each of the conversation's {@code receivers} (participants or members) once.
     */
    private void maybeDelete(long conversation, long seq, int receivers) {
        if (workload.deletedShare() > 0 && extras.nextDouble() < workload.deletedShare()) {
            deletion = ConversationEvent.deleted(conversation, seq);
            deletions++;
            deletionDeliveries += receivers;
        }
    }

    private TrafficRecord conversationRecord(ConversationEvent event) {
        return TrafficRecord.conversation(event, ConversationEventJson.text(event, now()));
    }

    private TrafficRecord inboxOpen() {
        int user = recentReceiver();
        if (allReadStep()) {
            return allRead(user);
        }
        Arrays.fill(wroteSinceOpen, user * words, (user + 1) * words, 0L);
        inboxOpens++;
        long t = now();
        // Every later event is later than this open, so the open covers exactly what came before.
        floor = t + 1;
        return valid(ChatEvent.inboxOpened(userId(user), t));
    }

    /** Whether a read step is an ALL_READ, for the workload's share; draws nothing at share 0. */
    private boolean allReadStep() {
        return workload.allReadShare() > 0 && extras.nextDouble() < workload.allReadShare();
    }

    /** An ALL_READ: an inbox open that also reads everything the user received before it. */
    private TrafficRecord allRead(int user) {
        Arrays.fill(wroteSinceOpen, user * words, (user + 1) * words, 0L);
        allReads++;
        long t = now();
        floor = t + 1;
        return valid(ChatEvent.allRead(userId(user), t));
    }

    /** Null when the drawn reader has had no conversation message yet. */
    private TrafficRecord conversationRead() {
        int user = recentReceiver();
        if (allReadStep()) {
            return allRead(user);
        }
        long conversation = lastConversation[user];
        if (conversation == 0) {
            return null;
        }
        long seq = currentSeq(conversation);
        long readSeq = seq;
        if (random.nextDouble() < READ_BEHIND_SHARE) {
            // Another device, or a read that raced the newest messages.
            readSeq = Math.max(0, seq - 1 - random.nextInt(3));
        }
        double u = extras.nextDouble();
        if (u < PREFERENCE_SHARE) {
            preferences++;
            return valid(
                    ChatEvent.preference(
                            userId(user),
                            conversation,
                            PREFERENCES[extras.nextInt(PREFERENCES.length)],
                            now()));
        }
        if (u < PREFERENCE_SHARE + MARK_SHARE) {
            marks++;
            return valid(ChatEvent.markedUnread(userId(user), conversation, now()));
        }
        if (workload.replyShare() > 0 && seq > 1) {
            TrafficRecord thread = threadStep(userId(user), conversation, seq);
            if (thread != null) {
                return thread;
            }
        }
        conversationReads++;
        return valid(ChatEvent.conversationRead(userId(user), conversation, readSeq, now()));
    }

    /**
     * A read or a follow of the thread of the conversation's newest message ({@code seq}), for
     * their shares of the read steps; null for a conversation read.
     */
    private TrafficRecord threadStep(long user, long conversation, long seq) {
        long root = rootOf(seq, 1);
        if (root == seq) {
            // The newest message is a root without replies yet: the previous block's thread.
            root = rootOf(seq - 1, 1);
        }
        double v = extras.nextDouble();
        if (v < THREAD_READ_SHARE) {
            threadReads++;
            return valid(ChatEvent.threadRead(user, conversation, root, seq, now()));
        }
        if (v < THREAD_READ_SHARE + THREAD_FOLLOW_SHARE) {
            threadFollows++;
            boolean following = extras.nextDouble() >= UNFOLLOW_SHARE;
            return valid(ChatEvent.threadFollowed(user, conversation, root, following, now()));
        }
        return null;
    }

    private TrafficRecord malformed() {
        malformed++;
        int user = drawUser();
        long id = userId(user);
        long t = now();
        Malformed kind = MALFORMED[random.nextInt(MALFORMED.length)];
        Topic topic;
        String text;
        switch (kind) {
            case TRUNCATED_JSON:
                ChatEvent whole =
                        random.nextBoolean()
                                ? ChatEvent.message(userId(wrap(user + 1)), id, t)
                                : ChatEvent.inboxOpened(id, t);
                topic = ChatEventJson.isMessage(whole) ? Topic.MESSAGES : Topic.READS;
                String json = ChatEventJson.text(whole);
                text = json.substring(0, 1 + random.nextInt(json.length() - 1));
                break;
            case WRONG_TYPE:
                topic = Topic.MESSAGES;
                text =
                        "{\"senderId\":\""
                                + userId(wrap(user + 1))
                                + "\",\"receiverId\":"
                                + id
                                + ",\"sentAt\":"
                                + t
                                + "}";
                break;
            default:
                topic = Topic.READS;
                text = "{\"type\":\"INBOX_CLOSED\",\"userId\":" + id + ",\"readAt\":" + t + "}";
        }
        return new TrafficRecord(
                topic,
                Long.toString(id).getBytes(StandardCharsets.UTF_8),
                text.getBytes(StandardCharsets.UTF_8),
                null,
                null,
                kind);
    }

    // --- choosing senders ---

    /**
     * Whether the next steered message should come from someone who has already written: at random
     * with probability {@code redundancy}, unless the count has drifted too far from it (fan-out
     * records and receivers fresh from an open leave no choice, so it drifts).
     */
    private boolean wantRedundant() {
        double lag = workload.redundancy() * (messages + 1) - redundant;
        if (lag > REDUNDANCY_SLACK) {
            return true;
        }
        if (lag < -REDUNDANCY_SLACK) {
            return false;
        }
        return random.nextDouble() < workload.redundancy();
    }

    /** The ring distance from {@code receiver} to the friend who writes. */
    private int chooseFriend(int receiver) {
        int friends = workload.friends();
        if (wantRedundant()) {
            int j = friend(receiver, random.nextInt(friends), true);
            if (j >= 0) {
                return friendDelta(j);
            }
        }
        // Best friends (nearest on the ring) write most: friend index skewed toward 0.
        double u = random.nextDouble();
        int j = friend(receiver, (int) (friends * u * u), false);
        if (j < 0) {
            // Every friend has written since the last open: redundant whatever was wanted.
            j = random.nextInt(friends);
        }
        return friendDelta(j);
    }

    /** The first friend index from {@code from} on, cyclically, that has (not) written; or -1. */
    private int friend(int receiver, int from, boolean wrote) {
        int friends = workload.friends();
        int j = from;
        for (int i = 0; i < friends; i++) {
            if (isMarked(receiver, friendDelta(j)) == wrote) {
                return j;
            }
            if (++j == friends) {
                j = 0;
            }
        }
        return -1;
    }

    /** Friend j: +1, -1, +2, -2, ... on the ring. */
    private static int friendDelta(int j) {
        int distance = j / 2 + 1;
        return (j & 1) == 0 ? distance : -distance;
    }

    /**
     * The member other than {@code receiver} who writes. A group message is many records whose
     * redundancy depends on whom the sender has written to since their opens, so the sender is the
     * member whose message would bring the redundant count closest to its target: in a busy group,
     * the few members who keep writing.
     */
    private int chooseGroupSender(int receiver, int first) {
        int size = workload.groupSize();
        double lag = workload.redundancy() * messages - redundant;
        double wanted = workload.redundancy() * (size - 1) + lag;
        int from = random.nextInt(size);
        int best = -1;
        double bestMiss = Double.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            int candidate = first + (from + i) % size;
            if (candidate == receiver) {
                continue;
            }
            int wrote = 0;
            for (int member = first; member < first + size; member++) {
                if (member != candidate && isMarked(member, candidate - member)) {
                    wrote++;
                }
            }
            double miss = Math.abs(wrote - wanted);
            if (miss < bestMiss) {
                best = candidate;
                bestMiss = miss;
                if (miss < 0.5) {
                    break;
                }
            }
        }
        return best;
    }

    // --- state ---

    /**
     * Someone who received a message lately: people open their inbox and read because messages
     * arrived, so opens and reads follow the traffic each user gets, group messages included.
     */
    private int recentReceiver() {
        int filled = (int) Math.min(messages, recent.length);
        return filled == 0 ? drawUser() : recent[random.nextInt(filled)];
    }

    private void received(int receiver, boolean wasRedundant) {
        recent[(int) (messages & (recent.length - 1))] = receiver;
        messages++;
        if (wasRedundant) {
            redundant++;
        }
    }

    /** Records that the user at ring distance {@code delta} wrote; returns whether it had. */
    private boolean mark(int receiver, int delta) {
        int bit = bit(delta);
        int word = receiver * words + (bit >>> 6);
        long mask = 1L << bit;
        boolean had = (wroteSinceOpen[word] & mask) != 0;
        wroteSinceOpen[word] |= mask;
        return had;
    }

    private boolean isMarked(int receiver, int delta) {
        int bit = bit(delta);
        return (wroteSinceOpen[receiver * words + (bit >>> 6)] & (1L << bit)) != 0;
    }

    /** Bits 0..reach-1: ahead on the ring; reach..2*reach-1: behind. */
    private int bit(int delta) {
        return delta > 0 ? delta - 1 : reach - delta - 1;
    }

    private int pairSlot(int receiver, int delta) {
        // The pair is kept by its member behind on the ring, at the distance ahead.
        return delta > 0
                ? receiver * ahead + delta - 1
                : wrap(receiver + delta) * ahead - delta - 1;
    }

    private long currentSeq(long conversation) {
        return conversation < firstGroupConversation
                ? pairSeq[(int) (conversation - 1)]
                : groupSeq[(int) (conversation - firstGroupConversation)];
    }

    private int groupOf(int position) {
        int group = position / workload.groupSize();
        return group < groupSeq.length ? group : -1;
    }

    private int drawUser() {
        return position(zipf.sample(random) - 1);
    }

    private int position(int rank) {
        return (int) (rank * multiplier % n);
    }

    private int wrap(int position) {
        return position < 0 ? position + n : position >= n ? position - n : position;
    }

    /** Ids follow the ranks, so that the busiest users are the first ids. */
    private long userId(int position) {
        return workload.firstUserId() + position * inverse % n;
    }

    private long now() {
        long t =
                clock != null
                        ? clock.getAsLong()
                        : syntheticStart + (long) ((records - 1) * syntheticMillisPerRecord);
        if (t < floor) {
            t = floor;
        }
        floor = t;
        return t;
    }

    private static TrafficRecord valid(ChatEvent event) {
        return new TrafficRecord(
                ChatEventJson.isMessage(event) ? Topic.MESSAGES : Topic.READS,
                ChatEventJson.key(event),
                ChatEventJson.value(event),
                event,
                null,
                null);
    }

    /** A multiplier coprime to n that scatters consecutive ranks over the ring. */
    private static long coprimeMultiplier(int n) {
        // The golden ratio's fraction of n spreads consecutive ranks far apart.
        long m = Math.max(1, (long) (n * 0.6180339887498949));
        while (gcd(m, n) != 1) {
            m++;
        }
        return m % n == 0 ? 1 : m;
    }

    /** x with a * x = 1 mod n, for a coprime to n (extended Euclid). */
    private static long inverseMod(long a, int n) {
        long r0 = n;
        long r1 = a % n;
        long t0 = 0;
        long t1 = 1;
        while (r1 != 0) {
            long q = r0 / r1;
            long r = r0 - q * r1;
            r0 = r1;
            r1 = r;
            long t = t0 - q * t1;
            t0 = t1;
            t1 = t;
        }
        return ((t0 % n) + n) % n;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
