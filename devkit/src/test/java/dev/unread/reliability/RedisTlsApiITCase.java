package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.contract.Count;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import dev.unread.testing.TestRedis;
import dev.unread.testing.TlsRedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * The API on a Redis that speaks only TLS and knows only an ACL user ({@link TlsRedisServer}): it
 * reads the counts with the right user, password and CA; with a wrong password it answers 503
 * "redis unavailable" at once, its health check says the password was refused, and its settings
 * never show the password.
 */
class RedisTlsApiITCase {

    @RegisterExtension static final TlsRedisServer TLS = new TlsRedisServer();

    private final HttpClient http = HttpClient.newHttpClient();

    private static ApiConfig config(String url, String prefix) {
        return ApiConfig.builder()
                .port(0)
                .timeoutMs(2000)
                .redisUrl(url)
                .redisCaFile(TLS.caFile().toString())
                .redisKeyPrefix(prefix)
                .build();
    }

    private HttpResponse<String> get(StateQueryApi api, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theApiReadsOverTlsAsAnAclUser() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        ApiConfig config = config(TLS.url(), prefix);
        RedisEndpoint redis = RedisEndpoint.of(TLS.url(), "", TLS.caFile().toString());
        try (Jedis jedis = redis.connect("test", 5000);
                StateQueryApi api = StateQueryApi.start(config)) {
            jedis.set(Count.SENDERS.key(prefix, 10086), "3");
            jedis.hset(Count.CONVERSATION.key(prefix, 10086), "80001", "18");
            jedis.hset(Count.MENTIONS.key(prefix, 10086), "80001", "2");
            jedis.sadd(Count.MARKED.key(prefix, 10086), "80002");
            jedis.hset(
                    Count.TOTAL_MESSAGES.key(prefix, 10086),
                    Map.of(
                            RedisNames.TOTAL_MESSAGES, "18",
                            RedisNames.TOTAL_MENTIONS, "2",
                            RedisNames.TOTAL_CONVERSATIONS, "2"));
            try {
                HttpResponse<String> response = get(api, "/api/unread?userIds=10086,10087");
                assertThat(response.statusCode()).isEqualTo(200);
                // Every key of a user's counts is read as the ACL user.
                assertThat(response.body())
                        .isEqualTo(
                                "{\"users\":["
                                        + "{\"userId\":10086,\"unreadSenders\":3,\"conversations\":{\"80001\":18},"
                                        + "\"mentions\":{\"80001\":2},\"channelMentions\":{},"
                                        + "\"totals\":{\"messages\":18,\"mentions\":2,\"conversations\":2,"
                                        + "\"threads\":0},\"markedUnread\":[80002],"
                                        + "\"threads\":{},\"threadMentions\":{},"
                                        + "\"threadChannelMentions\":{}},"
                                        + "{\"userId\":10087,\"unreadSenders\":0,\"conversations\":{},"
                                        + "\"mentions\":{},\"channelMentions\":{},"
                                        + "\"totals\":{\"messages\":0,\"mentions\":0,\"conversations\":0,"
                                        + "\"threads\":0},\"markedUnread\":[],"
                                        + "\"threads\":{},\"threadMentions\":{},"
                                        + "\"threadChannelMentions\":{}}]}");
            } finally {
                jedis.del(
                        Count.SENDERS.key(prefix, 10086),
                        Count.CONVERSATION.key(prefix, 10086),
                        Count.MENTIONS.key(prefix, 10086),
                        Count.MARKED.key(prefix, 10086),
                        Count.TOTAL_MESSAGES.key(prefix, 10086));
            }
        }
    }

    @Test
    @Timeout(60)
    void aWrongPasswordIs503AndNeverShown() throws Exception {
        String wrong = "not-" + TLS.password();
        ApiConfig config = config(TLS.url(wrong), TestRedis.uniquePrefix());
        assertThat(config.toString()).doesNotContain(wrong).contains("unread:***@");
        try (StateQueryApi api = StateQueryApi.start(config)) {
            HttpResponse<String> response = get(api, "/api/users/10086/unread");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("redis unavailable").doesNotContain(wrong);
            HttpResponse<String> health = get(api, "/health");
            assertThat(health.statusCode()).isEqualTo(503);
            // Reachable but refusing: not to be taken for an outage.
            assertThat(health.body())
                    .contains("\"redis\":\"DOWN: authentication failed (WRONGPASS)\"")
                    .doesNotContain(wrong);
        }
    }
}
