package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.AbstractPipeline;

/**
 * The live streams against the real server and Redis, with the JDK's SSE (java.net.http) and
 * WebSocket clients. The test plays the job's part: it writes the counts and the version as the
 * job's Redis sink does, then publishes UNREAD_CHANGED (RedisCountsTest pins that the sink does
 * exactly this). The stream's counts are the API's: read again on a notice, under the API's own
 * rising version; ChannelPushITCase covers the channels.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveStreamsITCase {

    private static final int BUFFER = 8;

    @RegisterExtension
    static final StartedApi STARTED =
            StartedApi.with(
                    c -> c.streamHeartbeatMs(300).streamBuffer(BUFFER).streamWriteTimeoutMs(2000));

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        api = STARTED.api();
        http = STARTED.http();
    }

    private String url(String scheme, long userId, String route) {
        return scheme + "://127.0.0.1:" + api.port() + "/api/users/" + userId + "/" + route;
    }

    private LiveClient sse(long userId) throws Exception {
        return LiveClient.sse(url("http", userId, "events"));
    }

    private LiveClient webSocket(long userId) throws Exception {
        return LiveClient.webSocket(url("ws", userId, "ws"));
    }

    /** What the job's sink does in one flush for one user: counts, version, then the message. */
    private void jobFlush(long userId, long version, long badge, long conversation, long count) {
        jobFlush(
                userId,
                version,
                badge,
                conversation > 0
                        ? Map.of(Long.toString(conversation), Long.toString(count))
                        : Map.of());
    }

    /** As above, with the counts of {@code conversations}. */
    private void jobFlush(
            long userId, long version, long badge, Map<String, String> conversations) {
        try (AbstractPipeline p = stores.redis.pipelined()) {
            if (badge >= 0) {
                p.set(Count.SENDERS.key(stores.keyPrefix, userId), Long.toString(badge));
            }
            String fields = "";
            if (!conversations.isEmpty()) {
                p.hset(Count.CONVERSATION.key(stores.keyPrefix, userId), conversations);
                fields =
                        conversations.entrySet().stream()
                                .map(e -> "\"" + e.getKey() + "\":" + e.getValue())
                                .collect(Collectors.joining(",", ",\"conversations\":{", "}"));
            }
            p.setex(
                    RedisNames.versionKey(stores.keyPrefix, userId),
                    RedisNames.VERSION_TTL_SECONDS,
                    Long.toString(version));
            p.publish(
                    RedisNames.unreadChangedChannel(stores.keyPrefix, userId),
                    "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                            + userId
                            + ",\"version\":"
                            + version
                            + (badge >= 0 ? ",\"unreadSenders\":" + badge : "")
                            + fields
                            + "}");
            p.sync();
        }
    }

    @Test
    void bothStreamsStartWithTheSnapshotThenCarryChangesAndReceiptsOfTheirUserOnly()
            throws Exception {
        long user = 101;
        jobFlush(user, 100, 2, 80001, 3);
        try (LiveClient sse = sse(user);
                LiveClient ws = webSocket(user)) {
            long[] versions = new long[2];
            for (int i = 0; i < 2; i++) {
                JsonNode snapshot = List.of(sse, ws).get(i).next();
                versions[i] = snapshot.get("version").asLong();
                assertThat(withoutVersion(snapshot))
                        .isEqualTo(
                                Http.JSON.readTree(
                                        "{\"type\":\"SNAPSHOT\","
                                                + "\"userId\":101,\"unreadSenders\":2,"
                                                + "\"conversations\":{\"80001\":3},"
                                                + "\"mentions\":{},\"channelMentions\":{},"
                                                + "\"totals\":{\"messages\":0,"
                                                + "\"mentions\":0,\"conversations\":0,"
                                                + "\"threads\":0},\"markedUnread\":{},"
                                                + "\"threads\":{},\"threadMentions\":{},"
                                                + "\"threadChannelMentions\":{}}"));
            }

            jobFlush(user + 1, 150, 9, 0, 0);
            jobFlush(user, 200, 0, 80001, 1);
            String receipt =
                    "{\"type\":\"READ_RECEIPT\",\"conversationId\":80001,\"userId\":7,\"readSeq\":5}";
            stores.redis.publish(RedisNames.readReceiptsChannel(stores.keyPrefix, user), receipt);

            for (int i = 0; i < 2; i++) {
                LiveClient client = List.of(sse, ws).get(i);
                // The receipt passes on as it comes; the change is read again, so either is first.
                List<JsonNode> next = List.of(client.next(), client.next());
                JsonNode change =
                        next.get(0).get("type").asText().equals("UNREAD_CHANGED")
                                ? next.get(0)
                                : next.get(1);
                assertThat(next).contains(Http.JSON.readTree(receipt));
                assertThat(change.get("version").asLong()).isGreaterThan(versions[i]);
                assertThat(withoutVersion(change))
                        .isEqualTo(
                                Http.JSON.readTree(
                                        "{\"type\":\"UNREAD_CHANGED\",\"userId\":101,"
                                                + "\"unreadSenders\":0,\"conversations\":{\"80001\":1}}"));
            }
        }
    }

    @Test
    void theSnapshotCarriesTheFollowedThreadsAsUnreadChangedDoes() throws Exception {
        long user = 111;
        stores.redis.hset(
                Count.THREAD.key(stores.keyPrefix, user),
                Map.of("80001:1038", "4", "80001:9", "1"));
        stores.redis.hset(Count.THREAD_MENTIONS.key(stores.keyPrefix, user), "80001:1038", "2");
        stores.redis.hset(
                Count.THREAD_CHANNEL_MENTIONS.key(stores.keyPrefix, user), "80001:1038", "1");
        stores.redis.hset(Count.TOTAL_MESSAGES.key(stores.keyPrefix, user), "threads", "2");
        try (LiveClient sse = sse(user)) {
            JsonNode snapshot = sse.next();
            assertThat(snapshot.get("threads"))
                    .isEqualTo(Http.JSON.readTree("{\"80001:9\":1,\"80001:1038\":4}"));
            assertThat(snapshot.get("threadMentions"))
                    .isEqualTo(Http.JSON.readTree("{\"80001:1038\":2}"));
            assertThat(snapshot.get("threadChannelMentions"))
                    .isEqualTo(Http.JSON.readTree("{\"80001:1038\":1}"));
            assertThat(snapshot.get("totals").get("threads").asLong()).isEqualTo(2);
        }
    }

    @Test
    void aStreamMakesItsUserLiveForTheJobBeforeItsSnapshot() throws Exception {
        // Issue 24: the job writes versions and UNREAD_CHANGED only for live users.
        long user = 120;
        String live = RedisNames.liveUsersKey(stores.keyPrefix);
        stores.redis.zadd(live, 1, "119");
        long before = System.currentTimeMillis();
        try (LiveClient sse = sse(user)) {
            assertThat(sse.next().get("type").asText()).isEqualTo("SNAPSHOT");
            assertThat(stores.redis.zscore(live, Long.toString(user)))
                    .isBetween(
                            (double) before + RedisNames.LIVE_USER_TTL_MS,
                            (double) System.currentTimeMillis() + RedisNames.LIVE_USER_TTL_MS);
            // A user whose time passed long ago is dropped.
            assertThat(stores.redis.zscore(live, "119")).isNull();
        }
    }

    /**
     * Issue 45 item 4: the job's ERASED notice ends every stream of the user with it, last, and the
     * instance forgets the user, so that its refresh does not put the erased user back among the
     * live users; another user's stream goes on, and the user's next stream starts afresh.
     */
    @Test
    void anErasureEndsTheUsersStreamsWithErasedAndTheUserIsNoLongerLiveHere() throws Exception {
        long user = 125;
        long other = 126;
        String live = RedisNames.liveUsersKey(stores.keyPrefix);
        jobFlush(user, 100, 2, 80001, 3);
        try (LiveClient sse = sse(user);
                LiveClient ws = webSocket(user);
                LiveClient bystander = sse(other)) {
            for (LiveClient client : List.of(sse, ws, bystander)) {
                assertThat(client.next().get("type").asText()).isEqualTo("SNAPSHOT");
            }
            assertThat(stores.redis.zscore(live, Long.toString(user))).isNotNull();

            // What the job's sink does: the keys go, the user leaves the live users, the notice.
            stores.redis.del(Count.SENDERS.key(stores.keyPrefix, user));
            stores.redis.zrem(live, Long.toString(user));
            stores.redis.publish(
                    RedisNames.unreadChangedChannel(stores.keyPrefix, user),
                    MessageTypes.erased(user));

            for (LiveClient client : List.of(sse, ws)) {
                assertThat(client.next().get("type").asText()).isEqualTo(MessageTypes.ERASED);
                Poll.until(client::ended, () -> "stream not ended");
            }
            Poll.until(() -> streamsOpen() == 1, () -> http.get("/metrics").body());
            assertThat(stores.redis.zscore(live, Long.toString(user))).isNull();
            assertThat(stores.redis.zscore(live, Long.toString(other))).isNotNull();
            jobFlush(other, 200, 1, 0, 0);
            assertThat(bystander.next().get("unreadSenders").asLong()).isEqualTo(1);
        }
        try (LiveClient again = sse(user)) {
            JsonNode snapshot = again.next();
            assertThat(snapshot.get("type").asText()).isEqualTo("SNAPSHOT");
            assertThat(snapshot.get("unreadSenders").asLong()).isZero();
        }
    }

    @Test
    void aReconnectGetsAFreshSnapshot() throws Exception {
        long user = 102;
        jobFlush(user, 100, 1, 0, 0);
        long before;
        try (LiveClient first = sse(user)) {
            JsonNode snapshot = first.next();
            assertThat(snapshot.get("unreadSenders").asLong()).isEqualTo(1);
            before = snapshot.get("version").asLong();
        }
        jobFlush(user, 300, 5, 80002, 4);

        for (LiveClient again : List.of(sse(user), webSocket(user))) {
            try (again) {
                JsonNode snapshot = again.next();
                assertThat(snapshot.get("type").asText()).isEqualTo("SNAPSHOT");
                assertThat(snapshot.get("version").asLong()).isGreaterThan(before);
                before = snapshot.get("version").asLong();
                assertThat(snapshot.get("unreadSenders").asLong()).isEqualTo(5);
                assertThat(snapshot.get("conversations").get("80002").asLong()).isEqualTo(4);
            }
        }
    }

    @Test
    void changesAreReadAgainAndSentUnderTheApisRisingVersion() throws Exception {
        long user = 103;
        jobFlush(user, 500, 1, 0, 0);
        try (LiveClient sse = sse(user);
                LiveClient ws = webSocket(user)) {
            long[] versions = {
                sse.next().get("version").asLong(), ws.next().get("version").asLong()
            };
            for (long version : new long[] {400, 500, 600}) {
                jobFlush(user, version, version, 0, 0);
            }
            for (int i = 0; i < 2; i++) {
                versions[i] = awaitSenders(List.of(sse, ws).get(i), 600, versions[i]);
            }
            jobFlush(user, 700, 700, 0, 0);
            for (int i = 0; i < 2; i++) {
                awaitSenders(List.of(sse, ws).get(i), 700, versions[i]);
            }
        }
    }

    /**
     * Reads {@code client}'s changes until its badge is {@code badge}, each under a version above
     * the one before; the last version.
     */
    private static long awaitSenders(LiveClient client, long badge, long version) throws Exception {
        while (true) {
            JsonNode change = client.next();
            assertThat(change.get("type").asText()).isEqualTo("UNREAD_CHANGED");
            assertThat(change.get("version").asLong()).isGreaterThan(version);
            version = change.get("version").asLong();
            if (change.path("unreadSenders").asLong() == badge) {
                return version;
            }
        }
    }

    private static JsonNode withoutVersion(JsonNode message) {
        com.fasterxml.jackson.databind.node.ObjectNode copy =
                (com.fasterxml.jackson.databind.node.ObjectNode) message.deepCopy();
        copy.remove("version");
        return copy;
    }

    /**
     * While a writer flushes version after version as fast as it can, streams open and close: each
     * must get a snapshot, then changes that only go forward, up to the last, so nothing published
     * between its snapshot and its subscription is lost (close changes coalesce into one read).
     */
    @Test
    void nothingIsLostBetweenSubscriptionAndSnapshotWhileChangesKeepComing() throws Exception {
        long user = 104;
        int last = 3000;
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread writer =
                new Thread(
                        () -> {
                            for (int v = 1; v <= last; v++) {
                                jobFlush(user, v, v, 0, 0);
                            }
                            writing.set(false);
                        });
        List<LiveClient> clients = new ArrayList<>();
        // Room for every version: here a client that falls behind must not be cut off; and
        // for the twelve streams of one user.
        try (StateQueryApi roomy =
                StateQueryApi.start(
                        api.config().toBuilder()
                                .streamBuffer(2 * last)
                                .streamMaxPerUser(12)
                                .build())) {
            writer.start();
            while (writing.get() && clients.size() < 12) {
                String base = "://127.0.0.1:" + roomy.port() + "/api/users/" + user + "/";
                clients.add(
                        clients.size() % 2 == 0
                                ? LiveClient.sse("http" + base + "events")
                                : LiveClient.webSocket("ws" + base + "ws"));
            }
            writer.join();
            for (LiveClient client : clients) {
                JsonNode snapshot = client.next();
                assertThat(snapshot.get("type").asText()).isEqualTo("SNAPSHOT");
                long version = snapshot.get("version").asLong();
                long badge = snapshot.get("unreadSenders").asLong();
                while (badge < last) {
                    JsonNode change = client.next();
                    assertThat(change.get("version").asLong()).isGreaterThan(version);
                    assertThat(change.get("unreadSenders").asLong()).isGreaterThan(badge);
                    version = change.get("version").asLong();
                    badge = change.get("unreadSenders").asLong();
                }
            }
        } finally {
            for (LiveClient client : clients) {
                client.close();
            }
        }
        assertThat(clients).hasSizeGreaterThan(1);
    }

    @Test
    void idleStreamsGetHeartbeats() throws Exception {
        try (LiveClient sse = sse(105);
                LiveClient ws = webSocket(105)) {
            Poll.until(() -> sse.heartbeats.get() >= 2 && ws.heartbeats.get() >= 2);
        }
    }

    /**
     * A client that stops reading fills its socket and then its buffer of {@value #BUFFER}
     * messages: it is cut off, while a client of the same user reading along gets every change.
     * Each change is a thousand conversations' counts, so that the messages are large.
     */
    @Test
    void aSlowClientIsCutOffWithoutHoldingUpTheOthers() throws Exception {
        long user = 106;
        try (Socket slow = new Socket("127.0.0.1", api.port());
                LiveClient fast = sse(user);
                LiveClient fastWs = webSocket(user)) {
            OutputStream out = slow.getOutputStream();
            out.write(
                    ("GET /api/users/"
                                    + user
                                    + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Accept: text/event-stream\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            fast.next();
            fastWs.next();
            Poll.until(() -> streamsOpen() == 3, () -> http.get("/metrics").body());

            long version = 1;
            long[] versions = new long[2];
            while (cutOff() == 0) {
                assertThat(version).as("cut off within 200 MB").isLessThan(10_000);
                Map<String, String> counts = new java.util.HashMap<>();
                for (int c = 1; c <= 1000; c++) {
                    counts.put(Long.toString(80_000 + c), Long.toString(version));
                }
                jobFlush(user, version, version, counts);
                for (int i = 0; i < 2; i++) {
                    versions[i] = awaitSenders(List.of(fast, fastWs).get(i), version, versions[i]);
                }
                version++;
            }

            assertThat(fast.ended()).isFalse();
            assertThat(fastWs.ended()).isFalse();
            Poll.until(() -> streamsOpen() == 2, () -> http.get("/metrics").body());
            // The slow client's connection is closed: reading it to the end terminates.
            InputStream in = slow.getInputStream();
            slow.setSoTimeout(20_000);
            byte[] scrap = new byte[1 << 16];
            while (in.read(scrap) >= 0) {
                // Drain what the kernel held for it.
            }
        }
    }

    private double streamsOpen() {
        return metric("unread_api_streams ");
    }

    private double cutOff() {
        return metric("unread_api_streams_cut_off_total{reason=\"slow\"} ");
    }

    private double metric(String prefix) {
        return http.get("/metrics")
                .body()
                .lines()
                .filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
                .findFirst()
                .orElse(0);
    }
}
