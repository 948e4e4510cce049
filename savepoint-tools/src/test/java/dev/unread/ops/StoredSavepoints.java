package dev.unread.ops;

import static dev.unread.kafka.EmbeddedKafka.PARTITIONS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.EventJson;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationParser;
import dev.unread.events.EventParser;
import dev.unread.testing.ChatRecords;
import dev.unread.testing.EventStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import dev.unread.testing.ThreadStreams;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import redis.clients.jedis.Jedis;

/**
 * Savepoints of earlier versions kept in {@code savepoint-tools/src/test/resources/savepoints},
 * each beside {@code records.tsv}: the Kafka records its job had read, with their topics and
 * partitions. Published again in the same order to fresh topics, they land at the same offsets, so
 * the restored sources resume exactly after them, as they would on the cluster the savepoint came
 * from. A broker holds one such history at a time: {@link #config} deletes the last one's topics.
 */
final class StoredSavepoints {

    static final Path ROOT =
            FlinkConf.findDir().resolveSibling("savepoint-tools/src/test/resources/savepoints");

    /** The input topics, by the names records.tsv gives them. */
    enum Topic {
        MESSAGES,
        READS,
        CONVERSATIONS;

        String stored() {
            return name().toLowerCase(Locale.ROOT);
        }

        String in(UnreadConfig config) {
            return switch (this) {
                case MESSAGES -> config.messagesTopic;
                case READS -> config.readsTopic;
                case CONVERSATIONS -> config.conversationsTopic;
            };
        }
    }

    /** One Kafka record as stored: which topic, the partition, key and value (JSON). */
    record Record(Topic topic, int partition, String key, String value) {}

    /**
     * Events as the oracle takes them: per user ({@code chat-messages}, {@code chat-reads}) and per
     * conversation ({@code chat-conversations}).
     */
    record Traffic(List<ChatEvent> events, List<ConversationEvent> conversations) {

        static final Traffic NONE = new Traffic(List.of(), List.of());

        static Traffic of(List<ChatEvent> events) {
            return new Traffic(events, List.of());
        }

        Traffic and(Traffic more) {
            List<ChatEvent> allEvents = new ArrayList<>(events);
            allEvents.addAll(more.events);
            List<ConversationEvent> allConversations = new ArrayList<>(conversations);
            allConversations.addAll(more.conversations);
            return new Traffic(allEvents, allConversations);
        }

        /** The records producers publish for it: the per-user ones, then the conversations'. */
        List<Record> records() {
            List<Record> records = StoredSavepoints.records(events);
            for (ConversationEvent e : conversations) {
                records.add(
                        new Record(
                                Topic.CONVERSATIONS,
                                (int) Math.floorMod(e.conversationId, (long) PARTITIONS),
                                EventJson.key(e.conversationId),
                                ChatRecords.conversationJson(e)));
            }
            return records;
        }
    }

    private StoredSavepoints() {}

    /**
     * The settings the stored savepoint was made with, except where outputs go: the default topic
     * names (its Kafka state names them), the broker, a test database and key prefix. The topics
     * are created afresh: those of a savepoint restored before on this broker are deleted first.
     */
    static UnreadConfig config(KafkaBroker kafka, MySqlTestDatabase db, String prefix)
            throws Exception {
        Map<String, String> settings = new HashMap<>();
        settings.put("kafka-bootstrap", kafka.bootstrapServers());
        settings.put("jdbc-url", db.jdbcUrl());
        settings.put("redis-key-prefix", prefix);
        settings.put("flush-interval-ms", "50");
        settings.put("checkpoint-interval-ms", "500");
        UnreadConfig config = UnreadConfig.with(settings);
        deleteTopics(
                kafka,
                Set.of(
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic,
                        config.deadLetterTopic));
        kafka.kafka()
                .createTopics(
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic,
                        config.deadLetterTopic);
        return config;
    }

    /** Deletes those of {@code topics} the broker has, and waits until they are gone. */
    private static void deleteTopics(KafkaBroker kafka, Set<String> topics) throws Exception {
        try (Admin admin = kafka.kafka().admin()) {
            Set<String> present = new HashSet<>(admin.listTopics().names().get());
            present.retainAll(topics);
            if (present.isEmpty()) {
                return;
            }
            admin.deleteTopics(present).all().get();
            Poll.until(
                    "topics " + present + " deleted",
                    ProductionJob.TIMEOUT,
                    () ->
                            Collections.disjoint(admin.listTopics().names().get(), present)
                                    ? true
                                    : null);
        }
    }

    /**
     * Restores {@code stored}, a savepoint of a version that had the readers stage (2 or later),
     * over Redis as that version left it, and checks that Redis stays so before any new event (the
     * restored state needs no upgrade step that writes: no reader that version did not have, since
     * its readers stage kept who takes part) and that the events {@code after} the stored ones
     * count as {@code oracle} says over everything (the stored traffic, and what came after),
     * threads included.
     */
    static void restoreAndCountOn(
            KafkaBroker kafka,
            Path stored,
            Function<Traffic, Traffic> after,
            BiFunction<Traffic, Traffic, Oracle> oracle,
            Path work)
            throws Exception {
        List<Record> records = readRecords(stored.resolve("records.tsv"));
        Traffic before = traffic(records);
        Oracle old = oracle.apply(before, Traffic.NONE);
        // The job may claim files of the savepoint it starts from: it gets a copy.
        Path savepoint = work.resolve(stored.getFileName().toString());
        copy(stored.resolve("savepoint"), savepoint);

        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(kafka, db, prefix);
            publish(kafka, config, records);
            writeWhatItWrote(prefix, old);

            ProductionJob job = ProductionJob.start(config, 3, savepoint.toUri().toString());
            try {
                ProductionJob.awaitRedis(config, old);
                ProductionJob.awaitReaders(prefix, old.redisReaders(prefix));

                Traffic more = after.apply(before);
                publish(kafka, config, more.records());
                Oracle now = oracle.apply(before, more);
                if (now.redisThreadHashes(prefix, false).isEmpty()) {
                    throw new AssertionError("the events after the restore make no thread count");
                }
                ProductionJob.awaitRedis(config, now);
                ProductionJob.awaitReaders(prefix, now.redisReaders(prefix));
                savesCompressed(job, now, work);
            } finally {
                job.cancel();
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Takes a savepoint of the restored job, which the job's settings compress
     * (execution.checkpointing.snapshot-compression), cancels the job (the test's cluster has no
     * slot to spare) and reads the savepoint back with the job's descriptors: every keyed-state
     * file compressed, and the badges the ones {@code now} gives.
     */
    static void savesCompressed(ProductionJob job, Oracle now, Path work) throws Exception {
        String again = job.savepoint(work.resolve("compressed"));
        job.cancel();
        SavepointBytes.Keyed keyed = SavepointBytes.keyed(again);
        assertThat(keyed.files()).isPositive();
        assertThat(keyed.compressedFiles()).isEqualTo(keyed.files());
        assertThat(keyed.raw()).isGreaterThan(keyed.stored());
        SavepointInspect.Summary state = SavepointInspect.inspect(again, 0);
        assertThat(state.badgeMismatches()).isZero();
        assertThat(state.senders())
                .isEqualTo(now.badges().values().stream().mapToLong(Long::longValue).sum());
    }

    /**
     * Redis as a job of version 2 or later leaves it after {@code old}'s events: every count,
     * mention (channel-wide ones too, from version 4), total, thread count, mark and reader.
     */
    private static void writeWhatItWrote(String prefix, Oracle old) {
        try (Jedis jedis = TestRedis.connect(0)) {
            old.redisSenderKeys(prefix).forEach(jedis::set);
            old.redisConversationHashes(prefix).forEach(jedis::hset);
            old.redisMentionHashes(prefix).forEach(jedis::hset);
            old.redisChannelMentionHashes(prefix).forEach(jedis::hset);
            old.redisThreadChannelMentionHashes(prefix).forEach(jedis::hset);
            old.redisTotals(prefix).forEach(jedis::hset);
            old.redisThreadHashes(prefix, false).forEach(jedis::hset);
            old.redisThreadHashes(prefix, true).forEach(jedis::hset);
            old.redisMarkedSets(prefix)
                    .forEach((key, members) -> jedis.sadd(key, members.toArray(String[]::new)));
            old.redisReaders(prefix).forEach(jedis::zadd);
        }
    }

    /**
     * Runs this build's production job on {@code traffic} from empty state at parallelism 2, stops
     * it with a savepoint once Redis holds what the traffic makes, and stores that savepoint in
     * {@code stored} beside the records it read.
     */
    static void store(KafkaBroker kafka, Path stored, Traffic traffic, Path work) throws Exception {
        List<Record> records = traffic.records();
        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(kafka, db, prefix);
            publish(kafka, config, records);
            ProductionJob job = ProductionJob.start(config, 2, null);
            ProductionJob.awaitRedis(config, Oracle.of(traffic.events(), traffic.conversations()));
            String savepoint = job.stopWithSavepoint(work);

            if (Files.exists(stored)) {
                FileUtils.deleteDirectory(stored.toFile());
            }
            copy(Path.of(URI.create(savepoint)), stored.resolve("savepoint"));
            writeRecords(stored.resolve("records.tsv"), records);
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * 300 events in the stored savepoints' conversations, with threads on roots of their own (see
     * {@link #withThreadsAfterTheUpgrade}).
     */
    static List<ChatEvent> eventsAfter(long seed) {
        return withThreadsAfterTheUpgrade(
                seed, new EventStreams(seed).withIds(30_000, 95_000).events(300));
    }

    /**
     * {@code after} moved past every seq an earlier version saw (its messages' seqs and its reads'
     * cursors raised by a million), with threads in its conversations: a root published before an
     * upgrade makes no follower (docs/contract.md, "Threads", Upgrade), so the threads a test
     * counts after a restore are on roots published after it.
     */
    private static List<ChatEvent> withThreadsAfterTheUpgrade(long seed, List<ChatEvent> after) {
        List<ChatEvent> moved = new ArrayList<>(after.size());
        for (ChatEvent e : after) {
            boolean seqOfTheConversation =
                    e.hasConversation()
                            && e.seq > 0
                            && (e.kind == ChatEvent.Kind.MESSAGE
                                    || e.kind == ChatEvent.Kind.CONVERSATION_READ);
            if (seqOfTheConversation) {
                e.seq += 1_000_000;
            }
            moved.add(e);
        }
        moved.addAll(ThreadStreams.threads(new Random(seed), moved));
        return moved;
    }

    /** Each event as its record, in a partition chosen by user, so that offsets reproduce. */
    static List<Record> records(List<ChatEvent> events) {
        List<Record> records = new ArrayList<>();
        for (ChatEvent e : events) {
            records.add(
                    new Record(
                            ChatEventJson.isMessage(e) ? Topic.MESSAGES : Topic.READS,
                            (int) Math.floorMod(e.userId, (long) PARTITIONS),
                            Long.toString(e.userId),
                            ChatEventJson.text(e)));
        }
        return records;
    }

    static void publish(KafkaBroker kafka, UnreadConfig config, List<Record> records) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (Record r : records) {
            out.add(
                    new ProducerRecord<>(
                            r.topic().in(config),
                            r.partition(),
                            KafkaBroker.utf8(r.key()),
                            KafkaBroker.utf8(r.value())));
        }
        kafka.produce(out);
    }

    /** The stored records parsed back into events by the job's own parsers. */
    static Traffic traffic(List<Record> records) throws Exception {
        EventParser parser = new EventParser();
        ConversationParser conversationParser = new ConversationParser();
        List<ChatEvent> events = new ArrayList<>();
        List<ConversationEvent> conversations = new ArrayList<>();
        for (Record r : records) {
            byte[] value = r.value().getBytes(StandardCharsets.UTF_8);
            switch (r.topic()) {
                case MESSAGES -> events.add(parser.parseMessage(value));
                case READS -> events.add(parser.parseRead(value));
                case CONVERSATIONS -> conversations.add(conversationParser.parse(value));
            }
        }
        return new Traffic(events, conversations);
    }

    static List<Record> readRecords(Path file) throws IOException {
        List<Record> records = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] fields = line.split("\t", 4);
            records.add(
                    new Record(
                            Topic.valueOf(fields[0].toUpperCase(Locale.ROOT)),
                            Integer.parseInt(fields[1]),
                            fields[2],
                            fields[3]));
        }
        return records;
    }

    static void writeRecords(Path file, List<Record> records) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Record r : records) {
            lines.add(
                    r.topic().stored() + "\t" + r.partition() + "\t" + r.key() + "\t" + r.value());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
