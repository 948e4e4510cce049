package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.UnreadJob;
import dev.unread.channels.ChannelRecipeReads;
import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.cli.JobApiReads;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.OracleChannels;
import dev.unread.testing.RedisClusterServer;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Channels read back as the oracle counts them (docs/contract.md, "Channels"): the job writes
 * channel traffic to one Redis node and to a real Redis Cluster, and each member's counts by the
 * recipe, read raw, and by the API equal the oracle's. On the cluster each channel's keys sit on
 * the slot of its hash tag, the channels spread over the primaries, and the API's counting round
 * goes to each primary holding any of them, with the answer the same as on one node.
 */
class ChannelReadsITCase {

    @RegisterExtension static final RedisClusterServer REDIS = new RedisClusterServer();
    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();
    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    @TempDir Path checkpoints;

    private static final long USER = 7;
    private static final int CHANNELS = 50;

    @Test
    void aMemberOfChannelsOnEveryPrimaryIsCountedAsOnOneNode() throws Exception {
        long seed = JobHarness.seed("ChannelReadsOnRedisClusterITCase");
        String prefix = JobHarness.prefix("channel-cluster", seed);
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.putAll(REDIS.settings());
            UnreadConfig config = KAFKA.freshTopics(settings);
            Set<Integer> primaries = new HashSet<>();
            try (RedisClusterClient redis =
                    RedisEndpoint.of(config.redisUrl, config.redisClusterNodes, null)
                            .clusterClient("channel-test", 5000, new ConnectionPoolConfig())) {
                String tracks = RedisNames.channelTracksKey(prefix, USER);
                for (long c = 1; c <= CHANNELS; c++) {
                    // Roots 10 and 20, 20 mentioning everyone; a reply in thread 10.
                    redis.setbit(RedisNames.channelSeqsKey(prefix, c), 10, true);
                    redis.setbit(RedisNames.channelSeqsKey(prefix, c), 20, true);
                    redis.zadd(RedisNames.channelAllKey(prefix, c), 20, "20");
                    redis.zadd(RedisNames.channelThreadKey(prefix, c, 10), 15, "15");
                    redis.hset(tracks, Long.toString(c), "{\"members\":[[2]],\"read\":5}");
                    redis.hset(tracks, RedisNames.threadField(c, 10), "{}");
                    primaries.add(REDIS.primaryOwning(RedisNames.channelSeqsKey(prefix, c)));
                }
            }
            assertThat(primaries).as("primaries holding the channels").hasSizeGreaterThan(1);

            JsonNode answer = JobApiReads.get(config, "/api/users/" + USER + "/unread");

            for (long c = 1; c <= CHANNELS; c++) {
                assertThat(answer.path("conversations").path(Long.toString(c)).asLong())
                        .as("channel %d", c)
                        .isEqualTo(2);
                assertThat(answer.path("mentions").path(Long.toString(c)).asLong()).isEqualTo(1);
                assertThat(answer.path("threads").path(RedisNames.threadField(c, 10)).asLong())
                        .isEqualTo(1);
            }
            assertThat(answer.path("totals").toString())
                    .isEqualTo(
                            "{\"messages\":100,\"mentions\":50,\"conversations\":50,"
                                    + "\"threads\":50}");
        }
    }

    @Test
    void theJobsChannelsReadFromTheClusterAsTheOracleCountsThem() throws Exception {
        theJobsChannelsReadAsTheOracleCountsThem(
                "a Redis Cluster",
                REDIS.settings(),
                config ->
                        RedisEndpoint.of(config.redisUrl, config.redisClusterNodes, null)
                                .clusterClient("channel-test", 5000, new ConnectionPoolConfig()),
                REDIS::deleteKeys);
    }

    @Test
    void theJobsChannelsReadFromOneNodeAsTheOracleCountsThem() throws Exception {
        theJobsChannelsReadAsTheOracleCountsThem(
                "one Redis node",
                Map.of(),
                config -> RedisClient.create(TestRedis.HOST, TestRedis.PORT),
                TestRedis::deleteKeys);
    }

    /**
     * The job writes channel traffic (memberships early and late, replies, mentions, edits,
     * deletions, ALL_READs and erasures, among other traffic) to {@code redis} ({@code settings}
     * point the job there); once it has read and checkpointed every record, each member's counts by
     * the recipe, read raw, and each member's answer from the API equal the oracle's.
     */
    private void theJobsChannelsReadAsTheOracleCountsThem(
            String redis,
            Map<String, String> redisSettings,
            Function<UnreadConfig, UnifiedJedis> client,
            Consumer<String> deleteKeys)
            throws Exception {
        long seed = JobHarness.seed("ChannelReadsITCase, " + redis);
        String context = "channels on " + redis + ", " + JobHarness.context(seed);
        String prefix = JobHarness.prefix("channel-job", seed);
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.putAll(redisSettings);
            UnreadConfig config = KAFKA.freshTopics(settings);
            // Seed 840747 leaves no member a count to compare.
            JobHarness.Traffic traffic =
                    JobHarness.firstTrafficWith(
                            seed,
                            s -> JobHarness.trafficWithChannels(config, s, 2000, List.of()),
                            t -> !ChannelRecipeReads.expected(t.oracle().channels()).isEmpty());
            Oracle oracle = traffic.oracle();
            OracleChannels channels = oracle.channels();
            Set<Long> members = new TreeSet<>();
            channels.channels().forEach(c -> members.addAll(channels.users(c)));
            Map<String, Counts> expected = ChannelRecipeReads.expected(channels);
            assertThat(expected).as("counts to compare, " + context).isNotEmpty();

            KAFKA.produce(traffic.records());
            JobClient job =
                    JobHarness.start(
                            UnreadJob.forProduction(config),
                            config,
                            checkpoints,
                            "channels on " + redis);
            try (UnifiedJedis reads = client.apply(config)) {
                JobHarness.awaitAllReadAndCheckpointed(KAFKA, config);
                Map<String, Counts> raw = new TreeMap<>();
                for (long user : members) {
                    raw.putAll(ChannelRecipeReads.read(reads, prefix, user));
                }
                assertThat(raw).as("counts by the recipe, " + context).isEqualTo(expected);
                apiAgrees(
                        config,
                        oracle,
                        members,
                        ChannelRecipeReads.channelsOnly(expected),
                        context);
            } finally {
                job.cancel().get();
                deleteKeys.accept(prefix);
            }
        }
    }

    /**
     * {@code GET /api/unread} of every member: the channels' own counts ({@link
     * ChannelRecipeReads#channelsOnly}, the answer's per-conversation fields) and the badge.
     */
    private static void apiAgrees(
            UnreadConfig config,
            Oracle oracle,
            Set<Long> members,
            Map<String, Counts> expected,
            String context)
            throws Exception {
        String ids = members.stream().map(String::valueOf).collect(Collectors.joining(","));
        JsonNode answers = JobApiReads.get(config, "/api/unread?userIds=" + ids).get("users");
        Map<String, Counts> answered = new TreeMap<>();
        for (JsonNode answer : answers) {
            long user = answer.get("userId").asLong();
            String who = "user " + user + ", " + context;
            Set<String> channels = new TreeSet<>();
            for (String key : List.of("conversations", "mentions", "channelMentions")) {
                answer.get(key).fieldNames().forEachRemaining(channels::add);
            }
            for (String c : channels) {
                answered.put(
                        user + "/" + c,
                        new Counts(
                                answer.get("conversations").path(c).asLong(),
                                answer.get("mentions").path(c).asLong(),
                                answer.get("channelMentions").path(c).asLong()));
            }
            assertThat(answer.get("unreadSenders").asLong())
                    .as("badge of " + who)
                    .isEqualTo(oracle.badge(user));
        }
        assertThat(answered).as("the API's channel counts, " + context).isEqualTo(expected);
    }
}
