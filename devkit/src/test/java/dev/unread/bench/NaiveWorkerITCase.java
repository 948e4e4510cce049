package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.bench.NaiveWorker.Mode;
import dev.unread.bench.NaiveWorker.Result;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import dev.unread.testing.ChatRecords;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * {@link NaiveWorker} against a real broker and Redis. The expected commands and sets are counted
 * from the published records themselves, never from the worker's own counters.
 */
class NaiveWorkerITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    private static final String REDIS_URL = "redis://127.0.0.1:6379/0";
    private static final long START = 1_767_225_600_000L;
    private static final int RECORDS = 4000;

    /** Small enough that senders repeat: most messages are redundant, as in real inboxes. */
    private static final Workload WORKLOAD =
            Workload.builder().receivers(100).friends(10).malformedShare(0.01).seed(11).build();

    private String prefix;

    @BeforeEach
    void newPrefix() {
        prefix = TestRedis.uniquePrefix();
    }

    @AfterEach
    void deleteKeys() {
        TestRedis.deleteKeys(prefix);
    }

    @Test
    void perEventAndPipelinedSendOneCommandPerMessageFromSomeoneElseAndOnePerInboxOpen()
            throws Exception {
        Published published = publish(WORKLOAD);
        assertThat(published.inboxOpens).as("opens in the workload").isPositive();
        assertThat(published.malformed + published.conversationReads)
                .as("records that must cost nothing")
                .isPositive();

        for (Mode mode : List.of(Mode.PER_EVENT, Mode.PIPELINED)) {
            Result result = run(published, prefix + mode + ":", mode);

            assertThat(result.mode()).isEqualTo(mode);
            assertThat(result.messages()).as("%s messages", mode).isEqualTo(published.messages);
            assertThat(result.inboxOpens()).as("%s opens", mode).isEqualTo(published.inboxOpens);
            assertThat(result.redisCommands())
                    .as("%s commands", mode)
                    .isEqualTo(published.fromOthers + published.inboxOpens);
            assertThat(result.commandsPerMessage())
                    .isEqualTo((double) result.redisCommands() / result.messages());
        }
    }

    @Test
    void checkBeforeWriteAddsEverySenderAtLeastOnceAndAtMostOncePerMessage() throws Exception {
        Published published = publish(WORKLOAD);

        Result result = run(published, prefix, Mode.CHECK_BEFORE_WRITE);

        assertThat(result.messages()).isEqualTo(published.messages);
        assertThat(result.inboxOpens()).isEqualTo(published.inboxOpens);
        // Which SADDs an open makes necessary again depends on how the two topics interleave;
        // the bounds do not.
        long adds = result.redisCommands() - published.fromOthers - published.inboxOpens;
        assertThat(adds).isBetween(published.distinctPairs(), published.fromOthers);
    }

    @Test
    void withoutInboxOpensEachSetHoldsExactlyTheDistinctSendersInEveryMode() throws Exception {
        Published published = publish(WORKLOAD.toBuilder().inboxOpenRate(0).build());
        assertThat(published.distinctPairs())
                .as("a redundant workload: far fewer new senders than messages")
                .isLessThan(published.fromOthers / 2);

        for (Mode mode : Mode.values()) {
            String modePrefix = prefix + mode + ":";
            Result result = run(published, modePrefix, mode);

            long expectedCommands =
                    mode == Mode.CHECK_BEFORE_WRITE
                            ? published.fromOthers + published.distinctPairs()
                            : published.fromOthers;
            assertThat(result.redisCommands()).as("%s commands", mode).isEqualTo(expectedCommands);
            assertThat(result.messages()).as("%s messages", mode).isEqualTo(published.messages);
            assertThat(result.inboxOpens()).as("%s opens", mode).isZero();
            assertThat(sets(modePrefix)).as("%s sets", mode).isEqualTo(published.senders);
            assertThat(scard(modePrefix, published.busiestReceiver()))
                    .as("%s badge of the busiest receiver", mode)
                    .isEqualTo(published.senders.get(published.busiestReceiver()).size());
        }
    }

    @Test
    void selfMessagesConversationReadsAndMalformedRecordsCostNoCommand() throws Exception {
        UnreadConfig topics = KAFKA.freshTopics(Map.of());
        List<ProducerRecord<byte[], byte[]>> records =
                new ArrayList<>(
                        ChatRecords.of(
                                topics,
                                List.of(
                                        ChatEvent.message(2, 1, START),
                                        ChatEvent.message(3, 1, START + 1),
                                        ChatEvent.message(2, 1, START + 2),
                                        ChatEvent.message(1, 1, START + 3),
                                        ChatEvent.message(4, 5, 9, 1, START + 4),
                                        ChatEvent.conversationRead(5, 9, 1, START + 5))));
        records.add(record(topics.messagesTopic, "{\"senderId\":2,\"receiverId\":"));
        records.add(record(topics.readsTopic, "{\"type\":\"NOPE\",\"userId\":1,\"readAt\":1}"));
        KAFKA.produce(records);

        for (Mode mode : Mode.values()) {
            String modePrefix = prefix + mode + ":";
            Result result =
                    NaiveWorker.run(
                            KAFKA.bootstrapServers(),
                            topics.messagesTopic,
                            topics.readsTopic,
                            records.size(),
                            REDIS_URL,
                            modePrefix,
                            mode);

            assertThat(result.messages()).as("%s messages", mode).isEqualTo(5);
            assertThat(result.inboxOpens()).as("%s opens", mode).isZero();
            // Four messages from someone else; checking first adds a SISMEMBER to each and skips
            // the SADD of the repeated sender.
            assertThat(result.redisCommands())
                    .as("%s commands", mode)
                    .isEqualTo(mode == Mode.CHECK_BEFORE_WRITE ? 4 + 3 : 4);
            assertThat(sets(modePrefix))
                    .as("%s sets", mode)
                    .isEqualTo(Map.of(1L, Set.of(2L, 3L), 5L, Set.of(4L)));
        }
    }

    @Test
    void anInboxOpenDeletesThatUsersSetAndNoOther() throws Exception {
        UnreadConfig messages = KAFKA.freshTopics(Map.of());
        KAFKA.produce(
                ChatRecords.of(
                        messages,
                        List.of(
                                ChatEvent.message(2, 1, START),
                                ChatEvent.message(3, 1, START),
                                ChatEvent.message(4, 6, START))));
        // On topics of its own, so that the open surely comes after the messages.
        UnreadConfig open = KAFKA.freshTopics(Map.of());
        KAFKA.produce(ChatRecords.of(open, List.of(ChatEvent.inboxOpened(1, START + 1))));

        for (Mode mode : Mode.values()) {
            String modePrefix = prefix + mode + ":";
            NaiveWorker.run(
                    KAFKA.bootstrapServers(),
                    messages.messagesTopic,
                    messages.readsTopic,
                    3,
                    REDIS_URL,
                    modePrefix,
                    mode);
            assertThat(scard(modePrefix, 1)).as("%s badge before the open", mode).isEqualTo(2);

            Result result =
                    NaiveWorker.run(
                            KAFKA.bootstrapServers(),
                            open.messagesTopic,
                            open.readsTopic,
                            1,
                            REDIS_URL,
                            modePrefix,
                            mode);

            assertThat(result.inboxOpens()).as("%s opens", mode).isEqualTo(1);
            assertThat(result.messages()).as("%s messages", mode).isZero();
            assertThat(result.redisCommands()).as("%s commands", mode).isEqualTo(1);
            assertThat(sets(modePrefix)).as("%s sets", mode).isEqualTo(Map.of(6L, Set.of(4L)));
        }
    }

    @Test
    void stopsAfterTheRequestedNumberOfRecords() throws Exception {
        UnreadConfig topics = KAFKA.freshTopics(Map.of());
        List<ChatEvent> events = new ArrayList<>();
        for (long sender = 2; sender <= 11; sender++) {
            events.add(ChatEvent.message(sender, 1, START));
        }
        KAFKA.produce(ChatRecords.of(topics, events));

        Result result =
                NaiveWorker.run(
                        KAFKA.bootstrapServers(),
                        topics.messagesTopic,
                        topics.readsTopic,
                        4,
                        REDIS_URL,
                        prefix,
                        Mode.PIPELINED);

        assertThat(result.messages()).isEqualTo(4);
        assertThat(result.redisCommands()).isEqualTo(4);
        assertThat(scard(prefix, 1)).isEqualTo(4);
    }

    @Test
    void failsNamingWhatItGotWhenTheRecordsStopArriving() throws Exception {
        UnreadConfig topics = KAFKA.freshTopics(Map.of());
        KAFKA.produce(
                ChatRecords.of(
                        topics,
                        List.of(ChatEvent.message(2, 1, START), ChatEvent.inboxOpened(1, START))));

        assertThatThrownBy(
                        () ->
                                NaiveWorker.run(
                                        KAFKA.bootstrapServers(),
                                        topics.messagesTopic,
                                        topics.readsTopic,
                                        3,
                                        REDIS_URL,
                                        prefix,
                                        Mode.PER_EVENT,
                                        Duration.ofSeconds(2)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("consumed 2 of 3 records")
                .hasMessageContaining(topics.messagesTopic);
    }

    @Test
    void failsOnATopicThatDoesNotExist() {
        assertThatThrownBy(
                        () ->
                                NaiveWorker.run(
                                        KAFKA.bootstrapServers(),
                                        "no-such-messages",
                                        "no-such-reads",
                                        1,
                                        REDIS_URL,
                                        prefix,
                                        Mode.PER_EVENT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no-such-messages");
    }

    @Test
    void deleteKeysRemovesTheWorkersKeysAndNothingElse() throws Exception {
        // A glob character in the prefix must not widen what is deleted.
        String workerPrefix = prefix + "a*";
        Published published = publish(WORKLOAD.toBuilder().inboxOpenRate(0).build());
        run(published, workerPrefix, Mode.PIPELINED);
        String jobKey = workerPrefix + "unread:senders:1";
        String lookalike = prefix + "ab" + "naive:unread:1";
        try (Jedis redis = TestRedis.connect(0)) {
            redis.set(jobKey, "3");
            redis.sadd(lookalike, "2");
        }

        long removed = NaiveWorker.deleteKeys(REDIS_URL, workerPrefix);

        assertThat(removed).isEqualTo(published.senders.size());
        assertThat(sets(workerPrefix)).isEmpty();
        try (Jedis redis = TestRedis.connect(0)) {
            assertThat(redis.exists(jobKey)).isTrue();
            assertThat(redis.exists(lookalike)).isTrue();
        }
    }

    /**
     * What was published, counted from the records: all of them, valid messages, those of them from
     * someone else than the receiver, opens, reads, malformed ones, and each receiver's distinct
     * senders over all messages (the set only while nothing deletes it).
     */
    private static final class Published {
        UnreadConfig topics;
        long records;
        long messages;
        long fromOthers;
        long inboxOpens;
        long conversationReads;
        long malformed;
        final Map<Long, Set<Long>> senders = new TreeMap<>();

        long distinctPairs() {
            return senders.values().stream().mapToLong(Set::size).sum();
        }

        long busiestReceiver() {
            return senders.entrySet().stream()
                    .max(Map.Entry.comparingByValue((a, b) -> Integer.compare(a.size(), b.size())))
                    .orElseThrow()
                    .getKey();
        }
    }

    /** Publishes {@link #RECORDS} generated records the way the benchmark does. */
    private static Published publish(Workload workload) throws Exception {
        Published published = new Published();
        published.topics = KAFKA.freshTopics(Map.of());
        published.records = RECORDS;
        // The synthetic clock makes a second generator with the same workload yield the same
        // records, so this one tells what the producer's one publishes.
        TrafficGenerator expected = TrafficGenerator.synthetic(workload, START, 1000);
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = expected.next();
            ChatEvent event = record.event();
            if (event == null) {
                published.malformed++;
            } else if (event.kind == ChatEvent.Kind.MESSAGE) {
                published.messages++;
                if (event.senderId != event.userId) {
                    published.fromOthers++;
                    published
                            .senders
                            .computeIfAbsent(event.userId, u -> new HashSet<>())
                            .add(event.senderId);
                }
            } else if (event.kind == ChatEvent.Kind.INBOX_OPENED) {
                published.inboxOpens++;
            } else {
                published.conversationReads++;
            }
        }
        try (TrafficProducer producer =
                new TrafficProducer(
                        KAFKA.bootstrapServers(),
                        published.topics.messagesTopic,
                        published.topics.readsTopic,
                        published.topics.conversationsTopic)) {
            producer.publish(TrafficGenerator.synthetic(workload, START, 1000), RECORDS);
            assertThat(producer.failed()).isZero();
            assertThat(producer.acknowledged()).isEqualTo(RECORDS);
        }
        return published;
    }

    private static Result run(Published published, String keyPrefix, Mode mode) throws Exception {
        return NaiveWorker.run(
                KAFKA.bootstrapServers(),
                published.topics.messagesTopic,
                published.topics.readsTopic,
                published.records,
                REDIS_URL,
                keyPrefix,
                mode);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
        return new ProducerRecord<>(topic, KafkaBroker.utf8("1"), KafkaBroker.utf8(value));
    }

    /** The worker's sets under {@code keyPrefix}: receiver → senders. */
    private static Map<Long, Set<Long>> sets(String keyPrefix) {
        String setPrefix = keyPrefix + "naive:unread:";
        Map<Long, Set<Long>> sets = new TreeMap<>();
        try (Jedis redis = TestRedis.connect(0)) {
            for (String key : TestRedis.keys(redis, RedisKeys.glob(keyPrefix) + "naive:")) {
                Set<Long> senders = new HashSet<>();
                for (String sender : redis.smembers(key)) {
                    senders.add(Long.parseLong(sender));
                }
                sets.put(Long.parseLong(key.substring(setPrefix.length())), senders);
            }
        }
        return sets;
    }

    private static long scard(String keyPrefix, long userId) {
        try (Jedis redis = TestRedis.connect(0)) {
            return redis.scard(keyPrefix + "naive:unread:" + userId);
        }
    }
}
