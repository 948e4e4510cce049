package dev.unread.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.ChatRecords;
import dev.unread.testing.EventStreams;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.Oracle;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bench's Kafka Streams peer gives the badges the oracle gives, on shuffled streams with
 * duplicates and a malformed record, and again after a restart that restores its stores from their
 * changelogs (a fresh state directory) and reads the rest of the records.
 */
class BadgePeerITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    private String prefix;
    private Path stateDir;

    @BeforeEach
    void setUp() throws Exception {
        prefix = TestRedis.uniquePrefix();
        stateDir = TempDirs.create("peer-");
    }

    @AfterEach
    void tearDown() throws Exception {
        TestRedis.deleteKeys(prefix);
        TempDirs.delete(stateDir);
    }

    @Test
    void badgesEqualTheOraclesBeforeAndAfterARestartFromTheChangelogs() throws Exception {
        long seed = System.nanoTime();
        EventStreams streams = new EventStreams(seed);
        List<ChatEvent> events = streams.withDuplicates(streams.shuffled(events(streams)), 0.1);
        UnreadConfig config =
                KAFKA.freshTopics(Map.of("redis-key-prefix", prefix, "flush-interval-ms", "50"));
        List<ChatEvent> first = events.subList(0, events.size() / 2);
        List<ChatEvent> rest = events.subList(events.size() / 2, events.size());

        KAFKA.produce(ChatRecords.of(config, first));
        KAFKA.produce(config.messagesTopic, "7", "{\"senderId\": ");
        long published = first.size() + 1;
        runUntilCaughtUp(config, stateDir.resolve("a"), published, seed);
        assertThat(TestRedis.strings(prefix + Oracle.SENDERS_KEY))
                .as("badges after the first half, seed %d", seed)
                .isEqualTo(Oracle.of(first).redisSenderKeys(prefix));

        KAFKA.produce(ChatRecords.of(config, rest));
        runUntilCaughtUp(config, stateDir.resolve("b"), rest.size(), seed);
        assertThat(TestRedis.strings(prefix + Oracle.SENDERS_KEY))
                .as("badges after a restart and the second half, seed %d", seed)
                .isEqualTo(Oracle.of(events).redisSenderKeys(prefix));
    }

    /** Several streams of users of their own: inboxes with many senders, opens between. */
    private static List<ChatEvent> events(EventStreams streams) {
        List<ChatEvent> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.addAll(EventStreams.withUsersMovedBy(streams.events(), i * 1000L));
        }
        return all;
    }

    /** Runs a peer until it has processed {@code records} more records and caught up. */
    private static void runUntilCaughtUp(UnreadConfig config, Path dir, long records, long seed)
            throws Exception {
        try (BadgePeer peer =
                BadgePeer.start(new BadgePeer.Settings(config, "it-" + seed, 2, dir))) {
            Poll.until(
                    "the peer to process and commit " + records + " records, seed " + seed,
                    JobHarness.CONVERGENCE,
                    () -> peer.processed() >= records && peer.caughtUp() ? true : null);
            assertThat(peer.redisCommands()).as("commands sent").isPositive();
        }
    }
}
