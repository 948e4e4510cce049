package dev.unread.local;

import dev.unread.contract.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Cluster of {@link RedisProcess}es: three primaries and three replicas on free ports
 * of 127.0.0.1, joined by the CLUSTER commands {@code redis-cli --cluster create} sends, data under
 * /tmp, all removed on {@link #close()}. A short {@link #NODE_TIMEOUT_MS} makes a replica take over
 * a killed primary within seconds. The tests' {@code RedisClusterServer} and the benchmark start
 * it.
 */
public final class LocalRedisCluster implements AutoCloseable {

    public static final int NODE_TIMEOUT_MS = 1000;
    private static final int NODES = 6;
    private static final int SLOTS = 16384;
    private static final Duration READY = Duration.ofSeconds(60);

    private final List<RedisProcess> nodes = new ArrayList<>();
    private final Path dir;

    private LocalRedisCluster(Path dir) {
        this.dir = dir;
    }

    /** Starts the six nodes, creates the cluster and waits until every slot is served. */
    public static LocalRedisCluster start() throws Exception {
        LocalRedisCluster cluster =
                new LocalRedisCluster(RedisProcess.tempDir("unread-redis-cluster-"));
        try {
            cluster.create();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void create() throws Exception {
        for (int port : RedisProcess.freePorts(NODES)) {
            nodes.add(
                    RedisProcess.start(
                            port,
                            dir.resolve(String.valueOf(port)),
                            List.of(
                                    "--port", String.valueOf(port),
                                    "--cluster-enabled", "yes",
                                    "--cluster-config-file", "nodes.conf",
                                    "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MS),
                                    // A replica takes over however long it was cut off: a test
                                    // kills, it does not partition.
                                    "--cluster-replica-validity-factor", "0")));
        }
        // What redis-cli --cluster create does, by commands: the binary Maven Central ships is
        // redis-server alone. Three primaries share the 16384 slots, every node meets the first,
        // then each replica follows its primary.
        int primaries = NODES / 2;
        for (int i = 0; i < primaries; i++) {
            int from = SLOTS * i / primaries;
            int[] slots = IntStream.range(from, SLOTS * (i + 1) / primaries).toArray();
            try (Jedis jedis = new Jedis("127.0.0.1", nodes.get(i).port)) {
                jedis.clusterAddSlots(slots);
            }
        }
        try (Jedis first = new Jedis("127.0.0.1", nodes.get(0).port)) {
            for (RedisProcess node : nodes.subList(1, NODES)) {
                first.clusterMeet("127.0.0.1", node.port);
            }
        }
        Await.until(
                "every node knows all " + NODES + " nodes",
                READY,
                () -> {
                    for (RedisProcess node : nodes) {
                        try (Jedis jedis = new Jedis("127.0.0.1", node.port)) {
                            if (!jedis.clusterInfo().contains("cluster_known_nodes:" + NODES)
                                    || jedis.clusterNodes().contains("handshake")) {
                                return null;
                            }
                        }
                    }
                    return true;
                });
        for (int i = primaries; i < NODES; i++) {
            String primary;
            try (Jedis jedis = new Jedis("127.0.0.1", nodes.get(i - primaries).port)) {
                primary = jedis.clusterMyId();
            }
            try (Jedis jedis = new Jedis("127.0.0.1", nodes.get(i).port)) {
                jedis.clusterReplicate(primary);
            }
        }
        awaitHealthy("the cluster formed");
    }

    @Override
    public void close() throws InterruptedException {
        for (RedisProcess node : nodes) {
            node.close();
        }
        nodes.clear();
        RedisProcess.delete(dir);
    }

    /** {@code host:port,...} of every node started, as {@code --redis-cluster-nodes} takes. */
    public String seeds() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
    }

    /** The job's (or the API's) Redis settings for this cluster. */
    public Map<String, String> settings() {
        return Map.of(Settings.REDIS_CLUSTER_NODES.name(), seeds());
    }

    /** Ports of every node started, alive or not. */
    public List<Integer> ports() {
        return nodes.stream().map(n -> n.port).toList();
    }

    /** Ports of the primaries now, as the nodes alive see them. */
    public List<Integer> primaries() {
        List<Integer> primaries = new ArrayList<>();
        for (RedisProcess node : nodes) {
            if (node.alive()) {
                try (Jedis jedis = new Jedis("127.0.0.1", node.port)) {
                    if (jedis.info("replication").contains("role:master")) {
                        primaries.add(node.port);
                    }
                }
            }
        }
        return primaries;
    }

    /** {@code kill -9} of the {@code index}-th primary; returns its port. */
    public int killPrimary(int index) throws InterruptedException {
        int port = primaries().get(index);
        node(port).kill();
        return port;
    }

    /** Starts a killed node again: it rejoins as a replica of the primary that replaced it. */
    public void restart(int port) throws Exception {
        node(port).start();
        awaitHealthy("node " + port + " rejoined");
    }

    /**
     * Waits until the nodes alive agree that the one at {@code port} failed and that every slot is
     * served again (its replica took over).
     */
    public void awaitFailover(int port) throws Exception {
        Await.until(
                "a replica took over from the primary at " + port,
                READY,
                () -> {
                    for (RedisProcess node : nodes) {
                        if (!node.alive()) {
                            continue;
                        }
                        try (Jedis jedis = new Jedis("127.0.0.1", node.port)) {
                            String failed =
                                    jedis.clusterNodes()
                                            .lines()
                                            .filter(l -> l.contains(":" + port + "@"))
                                            .findFirst()
                                            .orElse("");
                            if (!failed.contains("fail") || !clusterOk(jedis)) {
                                return null;
                            }
                        }
                    }
                    return primaries().size() == 3 ? true : null;
                });
    }

    private void awaitHealthy(String what) throws Exception {
        Await.until(
                what + " (every node: cluster_state ok, 3 primaries with replicas)",
                READY,
                () -> {
                    for (RedisProcess node : nodes) {
                        try (Jedis jedis = new Jedis("127.0.0.1", node.port)) {
                            if (!clusterOk(jedis)
                                    || jedis.clusterNodes()
                                                    .lines()
                                                    .filter(
                                                            l ->
                                                                    l.contains("slave")
                                                                            && !l.contains("fail")
                                                                            && l.contains(
                                                                                    "connected"))
                                                    .count()
                                            < 3) {
                                return null;
                            }
                        }
                    }
                    return true;
                });
    }

    private static boolean clusterOk(Jedis jedis) {
        String info = jedis.clusterInfo();
        return info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384");
    }

    private RedisProcess node(int port) {
        return nodes.stream().filter(n -> n.port == port).findFirst().orElseThrow();
    }
}
