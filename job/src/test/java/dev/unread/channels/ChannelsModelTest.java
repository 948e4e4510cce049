package dev.unread.channels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unread.contract.Count;
import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ParticipantNotices;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.groups.ConversationReaders;
import dev.unread.groups.GroupFanOut;
import dev.unread.testing.ChannelTraffic;
import dev.unread.testing.ChannelTraffic.Arrival;
import dev.unread.testing.CounterOnRocksDb;
import dev.unread.testing.EventStreams;
import dev.unread.testing.ObservedChannels;
import dev.unread.testing.Oracle;
import dev.unread.testing.Oracle.Member;
import dev.unread.testing.OracleChannels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Model-based randomized test of channels through the job's three keyed stages as the job wires
 * them: {@link GroupFanOut} (by conversation) hands a channel's records to the {@link ChannelStage}
 * and each member its memberships and the messages naming it; the {@link UnreadCounter} (by user)
 * learns its channels and forwards the user's facts about them; the stage (by channel) writes the
 * index and the tracks, and its members' cursors go with the membership events to the {@link
 * ConversationReaders} (by conversation). Records and facts arrive in every order the contract
 * allows, with duplicates ({@link ChannelTraffic}); each member's counts of the channel and of each
 * thread it follows, read from the writes with the readers' recipe, each badge and each mark must
 * equal what the {@link Oracle} derives from the contract alone, and each {@code chat:readers:{C}}
 * score lie within its bounds; and Redis rebuilt from the stage's state alone ({@link
 * ChannelStateWrites}, what {@code savepoint republish} writes) must equal what the writes left,
 * track by track.
 */
class ChannelsModelTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(
            longs = {
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 78, 142, 175
            })
    void channelTrafficInAnyAllowedOrderEndsInTheOraclesCounts(long seed) throws Exception {
        assumeTrue(Long.getLong("channels.seed", seed) == seed, "-Dchannels.seed runs one seed");
        Random random = new Random(seed);
        ChannelTraffic generator =
                new ChannelTraffic(random, 1, 70_001, OracleChannels.DEFAULT_MAX_CHANNEL_SEQ);
        ChannelTraffic.Traffic traffic = generator.traffic(50 + random.nextInt(250), 8);
        List<Arrival> order = generator.published(traffic, 0.2);
        Oracle oracle = Oracle.of(Arrival.facts(order), Arrival.records(order));
        OracleChannels channels = oracle.channels();

        Map<Long, Long> badges = new HashMap<>();
        Set<List<Long>> marked = new HashSet<>();
        try (Stages stages = new Stages()) {
            for (Arrival arrival : order) {
                if (arrival.record() != null) {
                    stages.record(arrival.record());
                } else {
                    stages.fact(arrival.fact());
                }
                stages.badges(badges, marked);
            }
            List<String> wrong = new ArrayList<>();
            for (long c : channels.channels()) {
                for (long u : channels.users(c)) {
                    channelCounts(channels, stages.stage.redis, u, c, wrong);
                    threadCounts(channels, stages.stage.redis, u, c, wrong);
                }
            }
            for (long u : badges.keySet()) {
                if (badges.get(u) != oracle.badge(u)) {
                    wrong.add("u" + u + " badge " + badges.get(u) + ", oracle " + oracle.badge(u));
                }
            }
            for (long c : channels.channels()) {
                for (long u : channels.users(c)) {
                    if (marked.contains(List.of(u, c)) != oracle.markedUnread(u, c)) {
                        wrong.add("u" + u + " c" + c + " marked " + !oracle.markedUnread(u, c));
                    }
                }
            }
            StringBuilder readers = new StringBuilder();
            ObservedChannels.compareCursors(
                    readers, "Redis readers", channels.readersScores(), stages.scores);
            if (!readers.isEmpty()) {
                wrong.add(readers.toString());
            }
            wrong.addAll(rebuiltFromState(stages.stage, channels, order));
            if (!wrong.isEmpty() && Boolean.getBoolean("channels.debug")) {
                order.forEach(a -> System.out.println(a.record() != null ? a.record() : a.fact()));
            }
            assertThat(wrong).as("seed " + seed).isEmpty();
        }
    }

    private static void channelCounts(
            OracleChannels channels, ChannelRedisModel redis, long u, long c, List<String> wrong) {
        ChannelRedisModel.Counts want =
                new ChannelRedisModel.Counts(
                        channels.unread(u, c),
                        channels.mentions(u, c),
                        channels.channelMentions(u, c));
        ChannelRedisModel.Counts got = redis.counts(u, c);
        if (!got.equals(want)) {
            wrong.add(
                    "u"
                            + u
                            + " c"
                            + c
                            + " "
                            + got
                            + ", oracle "
                            + want
                            + " (track "
                            + redis.track(u, c, 0)
                            + "; oracle floor "
                            + channels.floor(u, c)
                            + ", read "
                            + channels.lastReadSeq(u, c)
                            + ")");
        }
    }

    /**
     * Each thread of C that U follows by the oracle or has a field of: whether U follows it and its
     * counts, as a reader sees them. A field says U follows; a root with no reply yet may have none
     * for its default followers, as the stage keeps a thread for a default follow alone from its
     * first reply on (its counts are 0 either way).
     */
    private static void threadCounts(
            OracleChannels channels, ChannelRedisModel redis, long u, long c, List<String> wrong) {
        Set<Long> threads = new TreeSet<>(channels.followedThreads(u, c));
        threads.addAll(redis.threads(u, c));
        for (long t : threads) {
            ChannelRedisModel.Counts want =
                    new ChannelRedisModel.Counts(
                            channels.threadUnread(u, c, t),
                            channels.threadMentions(u, c, t),
                            channels.threadChannelMentions(u, c, t));
            ChannelRedisModel.Counts got = redis.threadCounts(u, c, t);
            boolean follows = channels.follows(u, c, t);
            boolean field = redis.follows(u, c, t);
            boolean followsRight = follows ? field || !channels.replied(c, t) : !field;
            if (!got.equals(want) || !followsRight) {
                wrong.add(
                        "u"
                                + u
                                + " c"
                                + c
                                + " thread "
                                + t
                                + " "
                                + got
                                + ", oracle "
                                + want
                                + (follows ? " following" : " not following")
                                + " (track "
                                + redis.track(u, c, t)
                                + "; oracle floor "
                                + channels.floor(u, c)
                                + ", thread read "
                                + channels.threadCursor(u, c, t)
                                + ")");
            }
        }
    }

    /**
     * What {@code savepoint republish} writes from the stage's state alone ({@link
     * ChannelStateWrites}) against what the stage's writes left in Redis: every member's track of
     * each channel and of each of its threads, and the counts a reader reads from them.
     */
    private static List<String> rebuiltFromState(
            ChannelStageHarness stage, OracleChannels channels, List<Arrival> order)
            throws Exception {
        ChannelRedisModel rebuilt = stage.fromState(channels.channels());
        List<String> wrong = new ArrayList<>();
        for (long c : channels.channels()) {
            for (long u : channels.users(c)) {
                if (!rebuilt.counts(u, c).equals(stage.redis.counts(u, c))
                        || !Objects.equals(rebuilt.track(u, c, 0), stage.redis.track(u, c, 0))) {
                    wrong.add("rebuilt u" + u + " c" + c + " " + rebuilt.track(u, c, 0));
                }
                for (ConversationEvent e : Arrival.records(order)) {
                    long t = e.threadSeq;
                    if (e.conversationId == c
                            && t > 0
                            && (!Objects.equals(rebuilt.track(u, c, t), stage.redis.track(u, c, t))
                                    || !rebuilt.threadCounts(u, c, t)
                                            .equals(stage.redis.threadCounts(u, c, t)))) {
                        wrong.add("rebuilt u" + u + " c" + c + " t" + t);
                    }
                }
            }
        }
        return wrong;
    }

    /**
     * The four stages, each record handed on at once as it leaves the one before, and the readers'
     * scores as the sink writes them: ZADD GT, or ZREM of a member who left or was erased.
     */
    private static final class Stages implements AutoCloseable {

        final KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut;
        final KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter;
        final ChannelStageHarness stage;
        final KeyedOneInputStreamOperatorTestHarness<Long, ReaderUpdate, ReaderUpdate> readers;
        final Map<Member, Long> scores = new TreeMap<>();

        Stages() throws Exception {
            fanOut =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(new GroupFanOut()),
                            e -> e.conversationId,
                            Types.LONG);
            fanOut.setStateBackend(new EmbeddedRocksDBStateBackend());
            fanOut.open();
            counter = CounterOnRocksDb.harness();
            counter.open();
            stage = ChannelStageHarness.open();
            readers =
                    new KeyedOneInputStreamOperatorTestHarness<>(
                            new KeyedProcessOperator<>(
                                    new ConversationReaders(
                                            ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS)),
                            u -> u.conversationId,
                            Types.LONG);
            readers.setStateBackend(new EmbeddedRocksDBStateBackend());
            readers.open();
        }

        void record(ConversationEvent record) throws Exception {
            List<ReaderUpdate> notices = new ArrayList<>();
            new ParticipantNotices.Members().flatMap(record, new ListCollector<>(notices));
            readers(notices);
            fanOut.processElement(new StreamRecord<>(record));
            Queue<StreamRecord<ConversationEvent>> toStage =
                    fanOut.getSideOutput(GroupFanOut.CHANNEL_RECORDS);
            StreamRecord<ConversationEvent> next;
            while (toStage != null && (next = toStage.poll()) != null) {
                stage.records(next.getValue());
            }
            List<ChatEvent> toUsers = new ArrayList<>();
            for (Object o : fanOut.getOutput()) {
                if (o instanceof StreamRecord<?> r) {
                    // The fan-out reuses its delivery record.
                    toUsers.add(EventStreams.copy((ChatEvent) r.getValue()));
                }
            }
            fanOut.getOutput().clear();
            for (ChatEvent e : toUsers) {
                fact(e);
            }
            readers(stage.takeCursors().stream().map(ReaderUpdate::cursor).toList());
        }

        void fact(ChatEvent fact) throws Exception {
            counter.processElement(new StreamRecord<>(fact));
            Queue<StreamRecord<ChatEvent>> toStage =
                    counter.getSideOutput(UnreadCounter.CHANNEL_FACTS);
            StreamRecord<ChatEvent> next;
            while (toStage != null && (next = toStage.poll()) != null) {
                stage.facts(next.getValue());
            }
            readers(stage.takeCursors().stream().map(ReaderUpdate::cursor).toList());
        }

        /** {@code updates} through the readers' stage, its output applied to {@link #scores}. */
        @SuppressWarnings("unchecked")
        private void readers(List<ReaderUpdate> updates) throws Exception {
            for (ReaderUpdate update : updates) {
                readers.processElement(new StreamRecord<>(update));
            }
            for (Object o : readers.getOutput()) {
                if (o instanceof StreamRecord<?> r) {
                    ReaderUpdate score = ((StreamRecord<ReaderUpdate>) r).getValue();
                    Member member = new Member(score.conversationId, score.userId);
                    if (score.participant) {
                        scores.merge(member, score.lastReadSeq, Math::max);
                    } else {
                        scores.remove(member);
                    }
                }
            }
            readers.getOutput().clear();
        }

        /**
         * The newest badge of each user and the (user, conversation) marks the counter wrote, and
         * clears what it wrote.
         */
        @SuppressWarnings("unchecked")
        void badges(Map<Long, Long> badges, Set<List<Long>> marked) {
            for (Object o : counter.getOutput()) {
                if (!(o instanceof StreamRecord<?> r)) {
                    continue;
                }
                UnreadCount count = ((StreamRecord<UnreadCount>) r).getValue();
                if (count.kind == Count.SENDERS) {
                    // An erasure's record holds the erasure's time, and every key goes.
                    badges.put(count.userId, count.erased ? 0 : count.count);
                    if (count.erased) {
                        marked.removeIf(m -> m.get(0) == count.userId);
                    }
                } else if (count.kind == Count.MARKED) {
                    List<Long> mark = List.of(count.userId, count.conversationId);
                    if (count.count > 0) {
                        marked.add(mark);
                    } else {
                        marked.remove(mark);
                    }
                }
            }
            counter.getOutput().clear();
        }

        @Override
        public void close() throws Exception {
            fanOut.close();
            counter.close();
            stage.close();
            readers.close();
        }
    }
}
