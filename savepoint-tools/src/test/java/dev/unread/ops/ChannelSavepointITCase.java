package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.channels.ChannelRedisModel;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisNames;
import dev.unread.ops.StoredSavepoints.Traffic;
import dev.unread.testing.ChannelTraffic;
import dev.unread.testing.ChannelTraffic.Arrival;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.OracleChannels;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The savepoint tools on channels (the shared design's "Upgrades to version 5"): the production
 * pipeline counts seeded channel traffic (members joining and leaving, roots and replies, mentions
 * by id and of everyone, deletions, edits, reads, follows, preferences, ALL_READ, erasures) until
 * every member's counts by the readers' recipe are the oracle's, and is stopped with a savepoint;
 * {@code savepoint republish} of it into an empty database must then write every index key and
 * tracks hash exactly as the running job had (the versions aside), so that readers read the same
 * counts; and {@code savepoint inspect --user} shows a member's tracks as the job wrote them.
 */
class ChannelSavepointITCase {

    private static final long SEED = 20261207L;
    private static final long FIRST_USER = 42_001;
    private static final long FIRST_CHANNEL = 97_001;

    /** Where the running job writes, and the empty database the republish writes into. */
    private static final int JOB_DATABASE = 0;

    private static final int EMPTY_DATABASE = 1;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void republishIntoAnEmptyRedisWritesWhatTheRunningJobWrote(@TempDir Path work)
            throws Exception {
        ChannelTraffic generator =
                new ChannelTraffic(
                        new Random(SEED),
                        FIRST_USER,
                        FIRST_CHANNEL,
                        OracleChannels.DEFAULT_MAX_CHANNEL_SEQ);
        List<Arrival> order = generator.published(generator.traffic(150, 6), 0.1);
        Traffic traffic = new Traffic(Arrival.facts(order), Arrival.records(order));
        OracleChannels oracle = Oracle.of(traffic.events(), traffic.conversations()).channels();
        String prefix = TestRedis.uniquePrefix();
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            UnreadConfig config = StoredSavepoints.config(KAFKA, db, prefix);
            StoredSavepoints.publish(KAFKA, config, traffic.records());
            String savepoint;
            ProductionJob job = ProductionJob.start(config, 2, null);
            try {
                awaitTheOraclesCounts(prefix, oracle);
                savepoint = job.stopWithSavepoint(work);
            } finally {
                job.cancel();
            }
            Map<String, Object> written = ChannelKeys.contents(JOB_DATABASE, prefix);
            assertThat(written).as("what the running job wrote of the channels").isNotEmpty();
            Map<String, ChannelRedisModel.Counts> read =
                    ChannelKeys.counts(JOB_DATABASE, prefix, oracle);
            assertThat(read.keySet()).as("followed threads").anyMatch(k -> k.contains(" t"));

            SavepointRepublish.Written republished =
                    SavepointRepublish.republish(
                            savepoint,
                            TestRedis.config(
                                    "redis://127.0.0.1:6379/" + EMPTY_DATABASE, prefix, 50));

            assertThat(ChannelKeys.contents(EMPTY_DATABASE, prefix)).isEqualTo(written);
            assertThat(ChannelKeys.counts(EMPTY_DATABASE, prefix, oracle)).isEqualTo(read);
            assertThat(republished.channelIndexes()).isEqualTo(oracle.channels().size());
            assertThat(republished.tracks()).isEqualTo(trackFields(written, prefix));

            long busiest = busiestMember(prefix, oracle);
            Map<String, String> tracks = tracks(prefix, busiest);
            assertThat(tracks).hasSizeGreaterThan(1);
            assertThat(SavepointUser.inspect(savepoint, busiest).tracks()).isEqualTo(tracks);
            assertThat(SavepointUser.inspect(savepoint, FIRST_USER - 1).tracks()).isEmpty();
        } finally {
            TestRedis.deleteKeys(JOB_DATABASE, prefix);
            TestRedis.deleteKeys(EMPTY_DATABASE, prefix);
        }
    }

    private static void awaitTheOraclesCounts(String prefix, OracleChannels oracle)
            throws Exception {
        try {
            Poll.until(
                    "every member's counts the oracle's",
                    ProductionJob.TIMEOUT,
                    () ->
                            ChannelKeys.differences(JOB_DATABASE, prefix, oracle).isEmpty()
                                    ? true
                                    : null);
        } catch (AssertionError timedOut) {
            assertThat(ChannelKeys.differences(JOB_DATABASE, prefix, oracle))
                    .as("seed %d", SEED)
                    .isEmpty();
            throw timedOut;
        }
    }

    /** The fields of every tracks hash among {@code contents}. */
    private static long trackFields(Map<String, Object> contents, String prefix) {
        return contents.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix + RedisNames.CHANNEL_TRACKS))
                .mapToLong(e -> ((Map<?, ?>) e.getValue()).size())
                .sum();
    }

    /** The member with the most track fields in the job's database: channels and threads. */
    private static long busiestMember(String prefix, OracleChannels oracle) {
        return oracle.channels().stream()
                .flatMap(c -> oracle.users(c).stream())
                .max(
                        Comparator.<Long>comparingInt(u -> tracks(prefix, u).size())
                                .thenComparing(Comparator.reverseOrder()))
                .orElseThrow();
    }

    private static Map<String, String> tracks(String prefix, long userId) {
        try (Jedis jedis = TestRedis.connect(JOB_DATABASE)) {
            return jedis.hgetAll(RedisNames.channelTracksKey(prefix, userId));
        }
    }
}
