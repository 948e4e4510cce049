package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.channels.ChannelStage;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ParticipantNotices;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.ReplyRouting;
import dev.unread.events.UnreadCount;
import dev.unread.testing.AllReadStreams;
import dev.unread.testing.DeletionStreams;
import dev.unread.testing.EventStreams;
import dev.unread.testing.GroupStreams;
import dev.unread.testing.Oracle;
import dev.unread.testing.RedisModel;
import dev.unread.testing.ThreadStreams;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based randomized test of group conversations through the job's three keyed stages as the
 * job wires them: {@link GroupFanOut} (by conversation), {@link UnreadCounter} (by user, with
 * per-receiver traffic from {@link EventStreams} in the same conversations) and {@link
 * ConversationReaders} (by conversation). Conversation records arrive in random orders that keep
 * the contract's one precondition, with duplicates, and the fan-out's notices of the per-receiver
 * traffic's participants and its replies ({@link ReplyRouting}) anywhere among them (another
 * topic). At the counter everything arrives shuffled, with duplicates of what reaches it straight
 * from the topics, except that one conversation's records from the fan-out to one user keep the
 * fan-out's order, as the Flink channel between the two stages keeps them, and each erasure of a
 * member comes before the member's events with a later time (the contract's rule for erasures),
 * before and after the deletions and deliveries of its groups. At the readers the counter's cursors
 * of one user in one conversation keep the counter's order for the same reason, the erasure's
 * removal among them. The counts, applied as the Redis sink applies them, and the readers' scores
 * must equal what the {@link Oracle} derives from the contract alone.
 *
 * <p>Seeds: 1..100 by default; {@code -Dunread.seeds=N} runs 1..N, {@code -Dunread.seed=N} only
 * seed N. Every {@link #ROCKSDB_EVERY}th seed runs on RocksDB, the rest on the heap backend.
 */
class GroupsModelTest {

    private static final int ROCKSDB_EVERY = 8;
    private static final double DUPLICATE_SHARE = 0.2;
    private static final int ERASED_ONE_IN = 4;

    static Stream<Long> seeds() {
        String one = System.getProperty("unread.seed");
        if (one != null && !one.isBlank()) {
            return Stream.of(Long.parseLong(one.trim()));
        }
        return LongStream.rangeClosed(1, Long.getLong("unread.seeds", 100)).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void groupTrafficInAnyAllowedOrderEndsInTheOraclesState(long seed) throws Exception {
        EventStreams streams = new EventStreams(seed);
        List<ChatEvent> perReceiver = streams.events();
        GroupStreams groups = new GroupStreams(streams.random(), 10_001, 80_001);
        check(
                seed,
                streams,
                groups,
                perReceiver,
                groups.traffic(1 + streams.random().nextInt(200), 12));
    }

    /**
     * The same with threads in the groups: replies (some before their root, some mentioning),
     * follows, unfollows and follows again, thread reads racing the replies, members leaving and
     * coming back, preferences, deleted replies and roots. Senders follow by the job's copies of
     * their messages alone, as the oracle reads the contract.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void groupThreadsInAnyAllowedOrderEndInTheOraclesState(long seed) throws Exception {
        ThreadCase c = ThreadCase.of(seed);
        check(seed, c.streams, c.groups, c.perReceiver, c.traffic);
    }

    /**
     * The thread traffic of the seeds above, as they publish it, reaches the cases it is there for;
     * else the model test above would pass on traffic that never tries them.
     */
    @Test
    void threadTrafficReachesTheCasesItIsFor() {
        Set<String> seen = new TreeSet<>();
        for (long seed = 1; seed <= 100; seed++) {
            ThreadCase c = ThreadCase.of(seed);
            List<ConversationEvent> published =
                    c.groups.published(c.traffic.records(), DUPLICATE_SHARE);
            GroupThreadCases.collect(
                    c.traffic, published, Oracle.of(c.traffic.reads(), c.traffic.records()), seen);
        }
        assertThat(seen).containsExactlyInAnyOrder(GroupThreadCases.ALL);
    }

    /**
     * docs/contract.md, "Threads": a member who replies follows the thread with no THREAD_FOLLOWED
     * of theirs, by the copy of the group's message the fan-out gives its sender. The replies of
     * the others reach Alice first, so her thread shows nothing until her own reply's copy comes.
     */
    @Test
    void aMembersOwnReplyMakesThemAFollowerThroughTheJobAlone() throws Exception {
        long group = 90_001;
        long alice = 1;
        long bob = 2;
        long carol = 3;
        long dave = 4;
        long t = EventStreams.T0;
        List<ConversationEvent> records =
                List.of(
                        ConversationEvent.joined(group, alice, 1),
                        ConversationEvent.joined(group, bob, 2),
                        ConversationEvent.joined(group, carol, 3),
                        ConversationEvent.joined(group, dave, 4),
                        ConversationEvent.message(group, 5, bob, t),
                        namingRootSender(ConversationEvent.reply(group, 6, 5, alice, t + 1), bob),
                        namingRootSender(ConversationEvent.reply(group, 7, 5, bob, t + 2), bob),
                        namingRootSender(ConversationEvent.reply(group, 8, 5, carol, t + 3), bob));
        List<ChatEvent> fannedOut =
                run(
                                new KeyedProcessOperator<>(new GroupFanOut()),
                                e -> e.conversationId,
                                records,
                                false)
                        .output;
        List<ChatEvent> toUsers = new ArrayList<>(fannedOut);
        ChatEvent aliceOwn =
                fannedOut.stream()
                        .filter(e -> e.userId == alice && e.senderId == alice)
                        .findFirst()
                        .orElseThrow();
        toUsers.remove(aliceOwn);
        Run<ChatEvent, UnreadCount> counted =
                run(new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, toUsers, false);
        RedisModel redis = new RedisModel();
        counted.output.forEach(redis::apply);
        assertThat(redis.threads).doesNotContainKey(Oracle.THREADS_KEY + alice);

        counted.harness.getOutput().clear();
        counted.harness.processElement(aliceOwn, 0L);
        counted.harness.extractOutputValues().forEach(redis::apply);
        String thread = group + ":5";
        // Bob wrote the root, Carol and Alice a reply; Dave only reads along.
        assertThat(redis.threads)
                .isEqualTo(
                        Map.of(
                                Oracle.THREADS_KEY + alice, Map.of(thread, "2"),
                                Oracle.THREADS_KEY + bob, Map.of(thread, "2"),
                                Oracle.THREADS_KEY + carol, Map.of(thread, "2")))
                .isEqualTo(Oracle.of(List.of(), records).redisThreadHashes("", false));
        counted.harness.close();
    }

    private static ConversationEvent namingRootSender(ConversationEvent reply, long rootSender) {
        reply.rootSenderId = rootSender;
        return reply;
    }

    /**
     * docs/contract.md, "Threads": mentioned in a group MESSAGE means as fanned out. Carol, named
     * in the root's mentions before she joined, is no follower of its thread once she is a member;
     * Dave wrote the root before he joined and follows it, as the replies name him its sender. Both
     * then get the same two replies.
     */
    @Test
    void aRootsSenderFollowsButNotAMentionedNonMember() throws Exception {
        long group = 90_002;
        long alice = 1;
        long bob = 2;
        long carol = 3;
        long dave = 4;
        long t = EventStreams.T0;
        List<ConversationEvent> records =
                List.of(
                        ConversationEvent.joined(group, alice, 1),
                        ConversationEvent.joined(group, bob, 2),
                        ConversationEvent.message(group, 3, dave, t, carol),
                        ConversationEvent.joined(group, carol, 4),
                        ConversationEvent.joined(group, dave, 5),
                        namingRootSender(ConversationEvent.reply(group, 6, 3, alice, t + 1), dave),
                        namingRootSender(ConversationEvent.reply(group, 7, 3, bob, t + 2), dave));
        List<ChatEvent> fannedOut =
                run(
                                new KeyedProcessOperator<>(new GroupFanOut()),
                                e -> e.conversationId,
                                records,
                                false)
                        .output;
        Run<ChatEvent, UnreadCount> counted =
                run(
                        new KeyedProcessOperator<>(new UnreadCounter()),
                        e -> e.userId,
                        fannedOut,
                        false);
        RedisModel redis = new RedisModel();
        counted.output.forEach(redis::apply);
        String thread = group + ":3";
        assertThat(redis.threads)
                .containsEntry(Oracle.THREADS_KEY + dave, Map.of(thread, "2"))
                .doesNotContainKey(Oracle.THREADS_KEY + carol)
                .isEqualTo(Oracle.of(List.of(), records).redisThreadHashes("", false));
        counted.harness.close();
    }

    /**
     * docs/contract.md, "Deleted messages", every order (issue 32): a deletion that reaches the
     * fan-out before a member's MEMBER_JOINED still keeps the message out of that member's counts.
     * Here the member was never told the deletion; the message comes stamped.
     */
    @Test
    void aDeletionBeforeAMembersJoinKeepsTheMessageOutOfTheirCounts() throws Exception {
        long group = 90_003;
        long sender = 1;
        long member = 2;
        long t = EventStreams.T0;
        List<ConversationEvent> arrivals =
                List.of(
                        ConversationEvent.deleted(group, 28),
                        ConversationEvent.joined(group, member, 3),
                        ConversationEvent.joined(group, sender, 4),
                        ConversationEvent.message(group, 27, sender, t),
                        ConversationEvent.message(group, 28, sender, t + 1, member));
        RedisModel redis = throughTheStages(List.of(), arrivals);
        Oracle oracle = Oracle.of(List.of(), arrivals);
        assertThat(redis.conversations)
                .isEqualTo(Map.of(Oracle.CONVERSATIONS_KEY + member, Map.of("" + group, "1")))
                .isEqualTo(oracle.redisConversationHashes());
        assertThat(redis.mentions).isEmpty();
        assertThat(redis.totals).isEqualTo(oracle.redisTotals(""));
        assertThat(redis.senders).isEqualTo(Map.of(Oracle.SENDERS_KEY + member, "1"));
    }

    /**
     * The same for a reply of a one-to-one conversation whose deletion and a conversation read past
     * it come first (issue 32): the read cuts the receiver's own memory of the deletion, which the
     * conversation cursor governs and a reply's does not; the fan-out's stamp still tells.
     */
    @Test
    void aReplyWhoseDeletionAndAConversationReadPastItCameFirstCountsNowhere() throws Exception {
        long conversation = 70_009;
        long sender = 1;
        long receiver = 2;
        long t = EventStreams.T0;
        ChatEvent root = ChatEvent.message(sender, receiver, conversation, 1, t);
        ChatEvent deletedReply = ChatEvent.reply(sender, receiver, conversation, 3, 1, t + 1, true);
        ChatEvent keptReply = ChatEvent.reply(sender, receiver, conversation, 4, 1, t + 2, true);
        List<ChatEvent> first =
                List.of(root, ChatEvent.conversationRead(receiver, conversation, 5, t + 3));
        List<ConversationEvent> toFanOut =
                List.of(
                        ConversationEvent.participant(conversation, receiver),
                        ConversationEvent.deleted(conversation, 3),
                        ConversationEvent.receivedReply(deletedReply),
                        ConversationEvent.receivedReply(keptReply));
        RedisModel redis = throughTheStages(first, toFanOut);
        Oracle oracle =
                Oracle.of(
                        concat(first, List.of(deletedReply, keptReply)),
                        List.of(ConversationEvent.deleted(conversation, 3)));
        String thread = conversation + ":1";
        assertThat(redis.threads)
                .isEqualTo(Map.of(Oracle.THREADS_KEY + receiver, Map.of(thread, "1")))
                .isEqualTo(oracle.redisThreadHashes("", false));
        assertThat(redis.threadMentions)
                .isEqualTo(Map.of(Oracle.THREAD_MENTIONS_KEY + receiver, Map.of(thread, "1")))
                .isEqualTo(oracle.redisThreadHashes("", true));
        assertThat(redis.totals).isEqualTo(oracle.redisTotals(""));
    }

    /**
     * {@code straight} into the counter as they come, then the fan-out's output of {@code toFanOut}
     * in its order; Redis as the sink leaves it.
     */
    private static RedisModel throughTheStages(
            List<ChatEvent> straight, List<ConversationEvent> toFanOut) throws Exception {
        List<ChatEvent> toUsers = ThreadStreams.withOwnCopies(straight);
        toUsers.addAll(
                run(
                                new KeyedProcessOperator<>(new GroupFanOut()),
                                e -> e.conversationId,
                                toFanOut,
                                false)
                        .output);
        Run<ChatEvent, UnreadCount> counted =
                run(new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, toUsers, true);
        RedisModel redis = new RedisModel();
        counted.output.forEach(redis::apply);
        counted.harness.close();
        return redis;
    }

    /**
     * The thread traffic of one seed, drawn as the model test draws it: group threads, and
     * per-receiver threads in conversations of their own (a seq is one message's, so a
     * conversation's replies are either published once or per receiver), with deletions of their
     * messages anywhere among the group records and conversation reads past their replies.
     */
    private record ThreadCase(
            EventStreams streams,
            GroupStreams groups,
            List<ChatEvent> perReceiver,
            GroupStreams.Traffic traffic) {
        static ThreadCase of(long seed) {
            EventStreams streams = new EventStreams(seed);
            GroupStreams groups = new GroupStreams(streams.random(), 10_001, 80_001);
            GroupStreams.Traffic threads =
                    groups.threadTraffic(1 + streams.random().nextInt(200), 12);
            List<ChatEvent> perReceiver = new ArrayList<>(streams.events());
            List<ChatEvent> oneToOne =
                    ThreadStreams.withThreads(
                            streams.random(),
                            new EventStreams(-seed).withIds(10_001, 70_001).events());
            perReceiver.addAll(oneToOne);
            perReceiver.addAll(ThreadStreams.readsPastReplies(streams.random(), oneToOne));
            GroupStreams.Traffic traffic =
                    new GroupStreams.Traffic(
                            DeletionStreams.among(threads.records(), oneToOne, streams.random()),
                            threads.reads());
            return new ThreadCase(streams, groups, perReceiver, traffic);
        }
    }

    private static void check(
            long seed,
            EventStreams streams,
            GroupStreams groups,
            List<ChatEvent> perReceiver,
            GroupStreams.Traffic traffic)
            throws Exception {
        // Every other seed as a job with --track-root-senders.
        boolean track = seed % 2 == 0;
        String context =
                "seed "
                        + seed
                        + (track ? " --track-root-senders" : "")
                        + " [rerun: -Dunread.seed="
                        + seed
                        + "]";
        boolean rocksDb = seed % ROCKSDB_EVERY == 0;
        if (seed % 4 != 1) {
            // Mark all as read over group deliveries, stamped deleted ones among them.
            traffic =
                    new GroupStreams.Traffic(
                            traffic.records(),
                            AllReadStreams.withAllReads(
                                    streams.random(), traffic.reads(), traffic.records()));
        }
        // Members erased at the time of one of their events, before and after the deletions and
        // deliveries of their groups: a chat-reads event each, put in place at the counter.
        List<ChatEvent> reads = new ArrayList<>(traffic.reads());
        for (ChatEvent e :
                streams.withErasures(concat(perReceiver, traffic.reads()), ERASED_ONE_IN)) {
            if (e.kind == ChatEvent.Kind.USER_ERASED) {
                reads.add(streams.random().nextInt(reads.size() + 1), e);
            }
        }
        traffic = new GroupStreams.Traffic(traffic.records(), reads);
        List<ConversationEvent> published = groups.published(traffic.records(), DUPLICATE_SHARE);

        List<ReaderUpdate> messageParticipants = new ArrayList<>();
        ParticipantNotices notices = new ParticipantNotices();
        notices.open(null);
        for (ChatEvent e : perReceiver) {
            notices.flatMap(e, new ListCollector<>(messageParticipants));
        }
        List<ConversationEvent> toFanOut = new ArrayList<>(published);
        for (ReaderUpdate p : messageParticipants) {
            toFanOut.add(
                    streams.random().nextInt(toFanOut.size() + 1),
                    ConversationEvent.participant(p.conversationId, p.userId));
        }
        // As the job does: every chat-messages reply (every message, when tracking root senders)
        // also to its sender's key, and replies to others through the fan-out.
        List<ChatEvent> straight = new ArrayList<>(traffic.reads());
        for (ChatEvent e :
                ThreadStreams.withOwnCopies(
                        streams.withDuplicates(perReceiver, DUPLICATE_SHARE), track)) {
            if (ReplyRouting.viaConversation(e)) {
                toFanOut.add(
                        streams.random().nextInt(toFanOut.size() + 1),
                        ConversationEvent.receivedReply(e));
            } else {
                straight.add(e);
            }
        }
        List<ChatEvent> fannedOut =
                run(
                                new KeyedProcessOperator<>(
                                        new GroupFanOut(
                                                track, ChannelStage.DEFAULT_MAX_CHANNEL_SEQ)),
                                e -> e.conversationId,
                                toFanOut,
                                rocksDb)
                        .output;

        List<ChatEvent> toUsers =
                EventStreams.withErasuresInPlace(
                        inChannelOrder(
                                streams.random(),
                                streams.shuffled(streams.withDuplicates(straight, DUPLICATE_SHARE)),
                                fannedOut,
                                e -> e.conversationId + "/" + e.userId));
        Run<ChatEvent, UnreadCount> counted =
                run(
                        new KeyedProcessOperator<>(new UnreadCounter(0, track)),
                        e -> e.userId,
                        toUsers,
                        rocksDb);

        List<ReaderUpdate> readerNotices = new ArrayList<>(messageParticipants);
        for (ConversationEvent e : published) {
            new ParticipantNotices.Members().flatMap(e, new ListCollector<>(readerNotices));
        }
        // The events an erasure covers, which the counter hands the readers stage on a stream of
        // their own: in any order against the notices and the cursors, as the job's union allows.
        var knownReaders = counted.harness.getSideOutput(UnreadCounter.KNOWN_READERS);
        for (Object o : knownReaders == null ? List.of() : knownReaders) {
            readerNotices.add(((StreamRecord<ReaderUpdate>) o).getValue());
        }
        // The harness has no side output at all when no cursor advanced.
        var counterCursors = counted.harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS);
        List<ReaderUpdate> cursors = new ArrayList<>();
        for (Object o : counterCursors == null ? List.of() : counterCursors) {
            cursors.add(ReaderUpdate.cursor(((StreamRecord<ConversationCursor>) o).getValue()));
        }
        // A user's cursors in a conversation keep the counter's order, as the channel between the
        // two stages keeps it: an erasure's removal comes before the user's later cursors.
        List<ReaderUpdate> toReaders =
                inChannelOrder(
                        streams.random(),
                        shuffled(streams, readerNotices),
                        cursors,
                        u -> u.conversationId + "/" + u.userId);
        List<ReaderUpdate> readers =
                run(
                                new KeyedProcessOperator<>(
                                        new ConversationReaders(
                                                ConversationReaders
                                                        .DEFAULT_MAX_RECEIPT_PARTICIPANTS)),
                                u -> u.conversationId,
                                toReaders,
                                rocksDb)
                        .output;

        Oracle oracle = Oracle.of(concat(perReceiver, traffic.reads()), traffic.records(), track);
        RedisModel redis = new RedisModel();
        counted.output.forEach(redis::apply);
        assertThat(redis.senders).as(context).isEqualTo(oracle.redisSenderKeys());
        assertThat(redis.conversations).as(context).isEqualTo(oracle.redisConversationHashes());
        assertThat(redis.mentions).as(context).isEqualTo(oracle.redisMentionHashes(""));
        assertThat(redis.marked).as(context).isEqualTo(oracle.redisMarkedSets(""));
        assertThat(redis.threads).as(context).isEqualTo(oracle.redisThreadHashes("", false));
        assertThat(redis.threadMentions).as(context).isEqualTo(oracle.redisThreadHashes("", true));
        assertThat(redis.channelMentions)
                .as(context)
                .isEqualTo(oracle.redisChannelMentionHashes(""));
        assertThat(redis.threadChannelMentions)
                .as(context)
                .isEqualTo(oracle.redisThreadChannelMentionHashes(""));
        assertThat(redis.totals).as(context).isEqualTo(oracle.redisTotals(""));
        Map<String, Map<String, Double>> scores = new TreeMap<>();
        for (ReaderUpdate r : readers) {
            // As the sink writes them: ZADD GT, or ZREM of a member who left.
            Map<String, Double> set =
                    scores.computeIfAbsent(
                            Oracle.READERS_KEY + r.conversationId, k -> new TreeMap<>());
            if (r.participant) {
                set.merge(Long.toString(r.userId), (double) r.lastReadSeq, Math::max);
            } else {
                set.remove(Long.toString(r.userId));
            }
        }
        scores.values().removeIf(Map::isEmpty);
        assertThat(scores).as(context).isEqualTo(oracle.redisReaders(""));
        counted.harness.close();
    }

    /**
     * {@code stage}'s output merged into {@code others} at random, the records of one {@code
     * channel} (one conversation's records to one user) in the order the stage emitted them: the
     * order a channel between two stages keeps, on which the fan-out's stamp of a deleted message
     * and an erasure's removal of the user's cursors rely.
     */
    static <T> List<T> inChannelOrder(
            java.util.Random random,
            List<T> others,
            List<T> stage,
            java.util.function.Function<T, String> channel) {
        Map<String, ArrayDeque<T>> channels = new LinkedHashMap<>();
        for (T e : stage) {
            channels.computeIfAbsent(channel.apply(e), k -> new ArrayDeque<>()).add(e);
        }
        List<ArrayDeque<T>> sources = new ArrayList<>(channels.values());
        sources.add(new ArrayDeque<>(others));
        int left = others.size() + stage.size();
        List<T> merged = new ArrayList<>(left);
        for (; left > 0; left--) {
            int pick = random.nextInt(left);
            for (ArrayDeque<T> source : sources) {
                if (pick < source.size()) {
                    merged.add(source.poll());
                    break;
                }
                pick -= source.size();
            }
        }
        return merged;
    }

    private record Run<I, O>(
            KeyedOneInputStreamOperatorTestHarness<Long, I, O> harness, List<O> output) {}

    /** Runs {@code inputs} through a fresh harness; the harness stays open for side outputs. */
    private static <I, O> Run<I, O> run(
            OneInputStreamOperator<I, O> operator,
            KeySelector<I, Long> key,
            List<I> inputs,
            boolean rocksDb)
            throws Exception {
        KeyedOneInputStreamOperatorTestHarness<Long, I, O> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(operator, key, Types.LONG);
        harness.getExecutionConfig()
                .configure(
                        JobSettings.of(UnreadConfig.with(Map.of())),
                        GroupsModelTest.class.getClassLoader());
        if (rocksDb) {
            harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        }
        harness.open();
        for (I input : inputs) {
            harness.processElement(input, 0L);
        }
        List<O> output = new ArrayList<>();
        for (Object o : harness.getOutput()) {
            if (o instanceof StreamRecord) {
                output.add(((StreamRecord<O>) o).getValue());
            }
        }
        return new Run<>(harness, output);
    }

    private static <T> List<T> shuffled(EventStreams streams, List<T> values) {
        List<T> copy = new ArrayList<>(values);
        java.util.Collections.shuffle(copy, streams.random());
        return copy;
    }

    private static List<ChatEvent> concat(Collection<ChatEvent> a, Collection<ChatEvent> b) {
        List<ChatEvent> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
