package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.RedisClusterServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClusterClient;

/**
 * The API counts a member's channels on a real Redis Cluster (docs/contract.md, "Channels"):
 * channels"): each channel's keys on the slot of its hash tag, the channels spread over the
 * primaries, the counting round sent to each primary holding any of them, and the answer the same
 * as on one node.
 */
class ChannelReadsOnRedisClusterITCase {

    @RegisterExtension static final RedisClusterServer REDIS = new RedisClusterServer();
    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

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

            JsonNode answer;
            try (StateQueryApi api =
                    StateQueryApi.start(JobApi.config(config, Map.of()).port(0).build())) {
                HttpResponse<String> response =
                        HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(
                                                        URI.create(
                                                                "http://127.0.0.1:"
                                                                        + api.port()
                                                                        + "/api/users/"
                                                                        + USER
                                                                        + "/unread"))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                answer = new ObjectMapper().readTree(response.body());
            }

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
}
