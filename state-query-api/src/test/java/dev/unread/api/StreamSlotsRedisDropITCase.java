package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

/**
 * Streams cut because Redis dropped the subscription connection give their slots back: the
 * instance's cap is filled, Redis kills the connection (CLIENT KILL), and once the streams have
 * ended no slot is held and the cap may be filled again, drop after drop. Before, every slot of a
 * cut stream stayed taken, and the first drop at the cap left the instance answering 429 to every
 * stream for good.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamSlotsRedisDropITCase {

    private static final int CAP = 3;
    private static final int DROPS = 3;
    private static final long FIRST_USER = 401;

    @RegisterExtension
    static final StartedApi STARTED =
            StartedApi.with(c -> c.streamHeartbeatMs(60_000).streamMaxTotal(CAP));

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
    void streamsCutByALostSubscriptionGiveTheirSlotsBack() throws Exception {
        for (int drop = 1; drop <= DROPS; drop++) {
            List<LiveClient.Sse> streams = new ArrayList<>();
            try {
                // Polled: until the subscription is made again, a stream gets 503.
                int round = drop;
                Poll.until(
                        () -> fillTheCap(streams),
                        () -> "before drop " + round + ": slots held " + slotsHeld());
                try (LiveClient.Sse over = sse(FIRST_USER + CAP)) {
                    assertThat(over.response.statusCode()).isEqualTo(429);
                }

                assertThat(dropSubscription()).as("subscription connections killed").isOne();

                Poll.until(() -> streams.stream().allMatch(LiveClient::ended));
                Poll.until(
                        () -> slotsHeld() == 0,
                        () -> "after drop " + round + ": slots held " + slotsHeld() + " of " + CAP);
            } finally {
                streams.forEach(LiveClient::close);
            }
        }
        Poll.until(() -> opens(FIRST_USER), () -> "slots held " + slotsHeld());
        Poll.until(() -> slotsHeld() == 0, () -> "slots held " + slotsHeld());
    }

    /** Whether a stream of {@code userId} opens and gets its snapshot; closes it. */
    private boolean opens(long userId) throws Exception {
        try (LiveClient.Sse stream = sse(userId)) {
            if (stream.response.statusCode() != 200) {
                return false;
            }
            assertThat(stream.next().get("type").asText()).isEqualTo("SNAPSHOT");
            return true;
        }
    }

    /**
     * Opens one stream for each of {@link #CAP} users into {@code streams}, each past its snapshot;
     * false, with none left open, when one was refused.
     */
    private boolean fillTheCap(List<LiveClient.Sse> streams) throws Exception {
        for (int i = 0; i < CAP; i++) {
            LiveClient.Sse stream = sse(FIRST_USER + i);
            streams.add(stream);
            if (stream.response.statusCode() != 200) {
                streams.forEach(LiveClient::close);
                streams.clear();
                return false;
            }
            assertThat(stream.next().get("type").asText()).isEqualTo("SNAPSHOT");
        }
        return true;
    }

    /**
     * Kills this API's subscription connection alone: other tests share the Redis, and every API
     * names its connection the same, so it is told apart by its local port, one of this JVM's own.
     */
    private long dropSubscription() throws IOException {
        Set<String> ownPorts = ownRedisPorts();
        long killed = 0;
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            for (String client : jedis.clientList(ClientType.PUBSUB).split("\n")) {
                String id = field(client, "id");
                String addr = field(client, "addr");
                if (LiveStreams.CLIENT_NAME.equals(field(client, "name"))
                        && addr != null
                        && ownPorts.contains(addr.substring(addr.lastIndexOf(':') + 1))) {
                    killed += jedis.clientKill(ClientKillParams.clientKillParams().id(id));
                }
            }
        }
        return killed;
    }

    private static String field(String client, String name) {
        for (String pair : client.trim().split(" ")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** The local ports of this process' TCP connections to 127.0.0.1:6379, from /proc. */
    private static Set<String> ownRedisPorts() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // Closed since it was listed.
                }
            }
        }
        Set<String> ports = new HashSet<>();
        // A JDK socket may be IPv6 with the IPv4 address mapped (::ffff:127.0.0.1): tcp6.
        for (String table : new String[] {"tcp", "tcp6"}) {
            for (String line : Files.readAllLines(Path.of("/proc/self/net", table))) {
                String[] columns = line.trim().split("\\s+");
                if (columns.length > 9
                        && columns[2].endsWith("0100007F:18EB")
                        && inodes.contains(columns[9])) {
                    String local = columns[1];
                    String port = local.substring(local.lastIndexOf(':') + 1);
                    ports.add(Integer.toString(Integer.parseInt(port, 16)));
                }
            }
        }
        return ports;
    }

    private LiveClient.Sse sse(long userId) throws Exception {
        return LiveClient.sse("http://127.0.0.1:" + api.port() + StateQueryApi.eventsPath(userId));
    }

    /** The slots held, as /metrics shows the count the cap is checked against. */
    private double slotsHeld() {
        String prefix = "unread_api_streams ";
        return http.get("/metrics")
                .body()
                .lines()
                .filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length()).trim()))
                .findFirst()
                .orElse(Double.NaN);
    }
}
