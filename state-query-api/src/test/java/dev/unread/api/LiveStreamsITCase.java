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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.AbstractPipeline;

/**
 * The live streams against the real server and Redis, with the JDK's SSE (java.net.http) and
 * WebSocket clients. The test plays the job's part: it writes the counts and the version as the
 * job's Redis sink does, then publishes UNREAD_CHANGED (RedisCountsTest pins that the sink does
 * exactly this).
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveStreamsITCase {

    private static final int BUFFER = 8;

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void startApi() throws Exception {
        stores = new TestStores();
        api =
                StateQueryApi.start(
                        stores.config(KafkaBroker.createTopic())
                                .streamHeartbeatMs(300)
                                .streamBuffer(BUFFER)
                                .streamWriteTimeoutMs(2000)
                                .build());
        http = new Http(api);
    }

    @AfterAll
    void stopApi() throws Exception {
        if (api != null) {
            api.close();
        }
        stores.close();
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
        try (AbstractPipeline p = stores.redis.pipelined()) {
            if (badge >= 0) {
                p.set(Count.SENDERS.key(stores.keyPrefix, userId), Long.toString(badge));
            }
            String fields = "";
            if (conversation > 0) {
                p.hset(
                        Count.CONVERSATION.key(stores.keyPrefix, userId),
                        Long.toString(conversation),
                        Long.toString(count));
                fields = ",\"conversations\":{\"" + conversation + "\":" + count + "}";
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
            for (LiveClient client : List.of(sse, ws)) {
                assertThat(client.next())
                        .isEqualTo(
                                Http.JSON.readTree(
                                        "{\"type\":\"SNAPSHOT\","
                                                + "\"userId\":101,\"version\":100,\"unreadSenders\":2,"
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

            for (LiveClient client : List.of(sse, ws)) {
                assertThat(client.next())
                        .isEqualTo(
                                Http.JSON.readTree(
                                        "{\"type\":\"UNREAD_CHANGED\",\"userId\":101,\"version\":200,"
                                                + "\"unreadSenders\":0,\"conversations\":{\"80001\":1}}"));
                assertThat(client.next()).isEqualTo(Http.JSON.readTree(receipt));
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
            assertThat(bystander.next().get("version").asLong()).isEqualTo(200);
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
        try (LiveClient first = sse(user)) {
            assertThat(first.next().get("unreadSenders").asLong()).isEqualTo(1);
        }
        jobFlush(user, 300, 5, 80002, 4);

        for (LiveClient again : List.of(sse(user), webSocket(user))) {
            try (again) {
                JsonNode snapshot = again.next();
                assertThat(snapshot.get("type").asText()).isEqualTo("SNAPSHOT");
                assertThat(snapshot.get("version").asLong()).isEqualTo(300);
                assertThat(snapshot.get("unreadSenders").asLong()).isEqualTo(5);
                assertThat(snapshot.get("conversations").get("80002").asLong()).isEqualTo(4);
            }
        }
    }

    @Test
    void changesNotNewerThanWhatTheClientHoldsAreDropped() throws Exception {
        long user = 103;
        jobFlush(user, 500, 1, 0, 0);
        try (LiveClient sse = sse(user);
                LiveClient ws = webSocket(user)) {
            sse.next();
            ws.next();
            for (long version : new long[] {400, 500, 600, 550, 700}) {
                jobFlush(user, version, version, 0, 0);
            }
            for (LiveClient client : List.of(sse, ws)) {
                assertThat(client.next().get("version").asLong()).isEqualTo(600);
                assertThat(client.next().get("version").asLong()).isEqualTo(700);
            }
        }
    }

    /**
     * While a writer flushes version after version as fast as it can, streams open and close: each
     * must get a snapshot, then every later version exactly once and in order, up to the last, so
     * nothing published between its snapshot and its subscription is lost.
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
                // The counts are at least as new as the version, never older.
                assertThat(snapshot.get("unreadSenders").asLong()).isGreaterThanOrEqualTo(version);
                while (version < last) {
                    JsonNode change = client.next();
                    assertThat(change.get("version").asLong()).isEqualTo(version + 1);
                    version++;
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
     * messages: it is cut off, while a client of the same user reading along gets every message.
     */
    @Test
    void aSlowClientIsCutOffWithoutHoldingUpTheOthers() throws Exception {
        long user = 106;
        String padding = "x".repeat(64 * 1024);
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
            while (cutOff() == 0) {
                assertThat(version).as("cut off within 200 MB").isLessThan(3200);
                for (int i = 0; i < BUFFER / 2; i++, version++) {
                    stores.redis.publish(
                            RedisNames.unreadChangedChannel(stores.keyPrefix, user),
                            "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                                    + user
                                    + ",\"version\":"
                                    + version
                                    + ",\"padding\":\""
                                    + padding
                                    + "\"}");
                }
                for (LiveClient client : List.of(fast, fastWs)) {
                    for (long v = version - BUFFER / 2; v < version; v++) {
                        assertThat(client.next().get("version").asLong()).isEqualTo(v);
                    }
                }
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
