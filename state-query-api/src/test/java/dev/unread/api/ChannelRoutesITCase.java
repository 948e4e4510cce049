package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Channels through the real HTTP server (docs/contract.md, "Channels"): the index and tracks
 * written from random channel facts as the job writes them, then each user's {@code GET
 * /api/users/{userId}/unread}, the batch read and the stream's snapshot against the oracle's count
 * of the same facts; and a member's token reads its channel's readers.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChannelRoutesITCase {

    private static final String TOKEN = "channel-routes-service-token";

    @RegisterExtension
    static final StartedApi STARTED = StartedApi.with(c -> c.token(TOKEN).jwtSecret(Jwts.SECRET));

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        api = STARTED.api();
        http = STARTED.http();
    }

    @Test
    void everyRouteAnswersTheOraclesCountsOfTheChannels() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<Long> users = LongStream.rangeClosed(20_001, 20_006).boxed().toList();
        ChannelFacts facts =
                ChannelFacts.random(random, users, List.of(81_001L, 81_002L, 81_003L), 80);
        ChannelIndexWrites writes = new ChannelIndexWrites();
        writes.write(stores.redis, stores.keyPrefix, facts);
        writes.writeMarks(stores.redis, stores.keyPrefix, facts);
        ChannelOracle.Others nothingElse =
                new ChannelOracle.Others(0, Map.of(), Map.of(), totals(), List.of());
        String service = "Bearer " + TOKEN;

        JsonNode batch =
                Http.json(
                        http.get(
                                "/api/unread?userIds="
                                        + users.stream()
                                                .map(String::valueOf)
                                                .collect(Collectors.joining(",")),
                                "Authorization",
                                service));

        for (int i = 0; i < users.size(); i++) {
            long user = users.get(i);
            String expected = text(ChannelOracle.expected(facts, user, nothingElse));
            JsonNode single =
                    Http.json(http.get("/api/users/" + user + "/unread", "Authorization", service));
            assertThat(text(single)).as("seed %d, user %d", seed, user).isEqualTo(expected);
            assertThat(text(batch.get("users").get(i)))
                    .as("seed %d, user %d in the batch", seed, user)
                    .isEqualTo(expected);
        }
        long user = users.get(0);
        try (LiveClient.Sse stream =
                LiveClient.sse(
                        "http://127.0.0.1:" + api.port() + "/api/users/" + user + "/events",
                        "Authorization",
                        service)) {
            JsonNode snapshot = stream.next();
            assertThat(snapshot.get("type").asText()).isEqualTo(MessageTypes.SNAPSHOT);
            JsonNode expected =
                    Http.JSON.readTree(text(ChannelOracle.expected(facts, user, nothingElse)));
            for (String section :
                    new String[] {
                        "conversations",
                        "mentions",
                        "channelMentions",
                        "threads",
                        "threadMentions",
                        "threadChannelMentions"
                    }) {
                assertThat(snapshot.get(section))
                        .as("seed %d, the snapshot's %s", seed, section)
                        .isEqualTo(expected.get(section));
            }
        }
    }

    /** The job's totals of no other conversation, in the answers' order. */
    private static Map<String, Long> totals() {
        Map<String, Long> totals = new LinkedHashMap<>();
        for (String field :
                new String[] {
                    RedisNames.TOTAL_MESSAGES,
                    RedisNames.TOTAL_MENTIONS,
                    RedisNames.TOTAL_CONVERSATIONS,
                    RedisNames.TOTAL_THREADS
                }) {
            totals.put(field, 0L);
        }
        return totals;
    }

    /** The answer's text, so that order and numbers compare as a client reads them. */
    private static String text(Object answer) throws Exception {
        return Http.JSON.writeValueAsString(answer);
    }

    @Test
    void aMembersTokenReadsItsChannelsReadersAndNoOtherUsers() {
        long member = 20_101;
        long channel = 81_101;
        stores.redis.hset(
                RedisNames.channelTracksKey(stores.keyPrefix, member),
                RedisNames.channelTrackField(channel),
                "{\"members\":[[5]]}");
        String path = "/api/conversations/" + channel + "/readers?seq=1";

        assertThat(http.get(path, "Authorization", "Bearer " + Jwts.forUser(member)).statusCode())
                .isEqualTo(200);
        assertThat(
                        http.get(path, "Authorization", "Bearer " + Jwts.forUser(member + 1))
                                .statusCode())
                .isEqualTo(403);
    }
}
