package dev.unread.ops;

import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.EventParser;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.testing.EventStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import dev.unread.testing.ThreadStreams;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.producer.ProducerRecord;
import redis.clients.jedis.Jedis;

/**
 * Savepoints of earlier versions kept in {@code savepoint-tools/src/test/resources/savepoints},
 * each beside {@code records.tsv}: the Kafka records its job had read, with their partitions.
 * Published again in the same order to a fresh broker, they land at the same offsets, so the
 * restored sources resume exactly after them, as they would on the cluster the savepoint came from.
 * A broker holds one such history: each test class that restores one has its own.
 */
final class StoredSavepoints {

    static final Path ROOT =
            FlinkConf.findDir().resolveSibling("savepoint-tools/src/test/resources/savepoints");

    /** One Kafka record as stored: which topic, the partition, key and value (JSON). */
    record Record(boolean message, int partition, String key, String value) {}

    private StoredSavepoints() {}

    /**
     * The settings the stored savepoint was made with, except where outputs go: the default topic
     * names (its Kafka state names them), the broker, a test database and key prefix.
     */
    static UnreadConfig config(KafkaBroker kafka, MySqlTestDatabase db, String prefix) {
        Map<String, String> settings = new HashMap<>();
        settings.put("kafka-bootstrap", kafka.bootstrapServers());
        settings.put("jdbc-url", db.jdbcUrl());
        settings.put("redis-key-prefix", prefix);
        settings.put("flush-interval-ms", "50");
        settings.put("checkpoint-interval-ms", "500");
        UnreadConfig config = UnreadConfig.with(settings);
        kafka.kafka()
                .createTopics(
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic,
                        config.deadLetterTopic);
        return config;
    }

    /**
     * Restores {@code stored}, a savepoint of a version that had the readers stage (2 or later),
     * over Redis as that version left it, and checks that Redis stays so before any new event (the
     * restored state needs no upgrade step that writes: no reader that version did not have, since
     * its readers stage kept who takes part) and that the events {@code after} the stored ones
     * count as the oracle says over everything, threads included (follows the stored state holds
     * keep their value, those made by taking part as defaults).
     */
    static void restoreAndCountOn(
            KafkaBroker kafka,
            Path stored,
            Function<List<ChatEvent>, List<ChatEvent>> after,
            Path work)
            throws Exception {
        List<Record> records = readRecords(stored.resolve("records.tsv"));
        List<ChatEvent> before = events(records);
        // What the stored version wrote: its follows, which version 4 keeps as they were.
        Oracle old = Oracle.afterUpgrade(before, List.of());
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

                List<ChatEvent> more = after.apply(before);
                publish(kafka, config, records(more));
                // Who follows a thread from before the restore as the stored version kept it.
                Oracle now = Oracle.afterUpgrade(before, more);
                if (now.redisThreadHashes(prefix, false).isEmpty()) {
                    throw new AssertionError("the events after the restore make no thread count");
                }
                ProductionJob.awaitRedis(config, now);
                ProductionJob.awaitReaders(prefix, now.redisReaders(prefix));
            } finally {
                job.cancel();
            }
        } finally {
            TestRedis.deleteKeys(prefix);
        }
    }

    /**
     * Redis as a job of version 2 or later leaves it after {@code old}'s events: every count,
     * mention, total, thread count, mark and reader.
     */
    private static void writeWhatItWrote(String prefix, Oracle old) {
        try (Jedis jedis = TestRedis.connect(0)) {
            old.redisSenderKeys(prefix).forEach(jedis::set);
            old.redisConversationHashes(prefix).forEach(jedis::hset);
            old.redisMentionHashes(prefix).forEach(jedis::hset);
            old.redisTotals(prefix).forEach(jedis::hset);
            old.redisThreadHashes(prefix, false).forEach(jedis::hset);
            old.redisThreadHashes(prefix, true).forEach(jedis::hset);
            old.redisMarkedSets(prefix)
                    .forEach((key, members) -> jedis.sadd(key, members.toArray(String[]::new)));
            old.redisReaders(prefix).forEach(jedis::zadd);
        }
    }

    /**
     * Runs this build's production job on {@code events} from empty state at parallelism 2, stops
     * it with a savepoint once Redis holds what the events make, and stores that savepoint in
     * {@code stored} beside the records it read.
     */
    static void store(KafkaBroker kafka, Path stored, List<ChatEvent> events, Path work)
            throws Exception {
        List<Record> records = records(events);
        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = config(kafka, db, prefix);
            publish(kafka, config, records);
            ProductionJob job = ProductionJob.start(config, 2, null);
            ProductionJob.awaitRedis(config, Oracle.of(events));
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
                            ChatEventJson.isMessage(e),
                            (int) Math.floorMod(e.userId, (long) EmbeddedKafka.PARTITIONS),
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
                            r.message() ? config.messagesTopic : config.readsTopic,
                            r.partition(),
                            KafkaBroker.utf8(r.key()),
                            KafkaBroker.utf8(r.value())));
        }
        kafka.produce(out);
    }

    /** The stored records parsed back into events by the job's own parser. */
    static List<ChatEvent> events(List<Record> records) throws Exception {
        EventParser parser = new EventParser();
        List<ChatEvent> events = new ArrayList<>();
        for (Record r : records) {
            byte[] value = r.value().getBytes(StandardCharsets.UTF_8);
            events.add(r.message() ? parser.parseMessage(value) : parser.parseRead(value));
        }
        return events;
    }

    static List<Record> readRecords(Path file) throws IOException {
        List<Record> records = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] fields = line.split("\t", 4);
            records.add(
                    new Record(
                            fields[0].equals("messages"),
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
                    (r.message() ? "messages" : "reads")
                            + "\t"
                            + r.partition()
                            + "\t"
                            + r.key()
                            + "\t"
                            + r.value());
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
