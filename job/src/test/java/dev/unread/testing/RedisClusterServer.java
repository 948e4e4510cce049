package dev.unread.testing;

import dev.unread.contract.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster per test class, from Debian's {@code redis-server}: three primaries and
 * three replicas on free ports of 127.0.0.1, joined by {@code redis-cli --cluster create}, data
 * under /tmp, all removed after the class. A short {@link #NODE_TIMEOUT_MS} makes a replica take
 * over a killed primary within seconds.
 *
 * <pre>{@code
 * @RegisterExtension static final RedisClusterServer CLUSTER = new RedisClusterServer();
 *
 * settings.putAll(CLUSTER.settings());              // the job or the API on the cluster
 * int port = CLUSTER.killPrimary(0);               // kill -9
 * CLUSTER.awaitFailover(port);
 * }</pre>
 */
public final class RedisClusterServer implements BeforeAllCallback, AfterAllCallback {

    public static final int NODE_TIMEOUT_MS = 1000;
    private static final int NODES = 6;
    private static final Duration READY = Duration.ofSeconds(60);

    private final List<RedisProcess> nodes = new ArrayList<>();
    private Path dir;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = RedisProcess.tempDir("unread-redis-cluster-");
        try {
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
                                        // A replica takes over however long it was cut off: the
                                        // test kills, it
                                        // does not partition.
                                        "--cluster-replica-validity-factor", "0")));
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            nodes.forEach(n -> create.add("127.0.0.1:" + n.port));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            Process cli =
                    new ProcessBuilder(create)
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("create.log").toFile())
                            .start();
            if (cli.waitFor() != 0) {
                throw new AssertionError(
                        "redis-cli --cluster create failed, see " + dir.resolve("create.log"));
            }
            awaitHealthy("the cluster formed");
        } catch (Exception | AssertionError e) {
            afterAll(context);
            throw e;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (RedisProcess node : nodes) {
            node.close();
        }
        nodes.clear();
        RedisProcess.delete(dir);
        dir = null;
    }

    /** {@code host:port,...} of every node started, as {@code --redis-cluster-nodes} takes. */
    public String seeds() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
    }

    /** The job's (or the API's) Redis settings for this cluster. */
    public Map<String, String> settings() {
        return Map.of(Settings.REDIS_CLUSTER_NODES.name(), seeds());
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

    /**
     * The port of the primary owning the slot of {@code key} (or channel), as the primaries alive
     * say; -1 while none claims it (in the middle of a failover).
     */
    public int primaryOwning(String key) {
        int slot = JedisClusterCRC16.getSlot(key);
        for (int port : primaries()) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                for (var range : jedis.clusterShards()) {
                    for (var node : range.getNodes()) {
                        if (node.getPort() == port
                                && node.getRole().equals("master")
                                && range.getSlots().stream()
                                        .anyMatch(r -> r.get(0) <= slot && slot <= r.get(1))) {
                            return port;
                        }
                    }
                }
            }
        }
        return -1;
    }

    /** Ports of every node started, alive or not. */
    public List<Integer> ports() {
        return nodes.stream().map(n -> n.port).toList();
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
        Poll.until(
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
        Poll.until(
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

    /**
     * Strings under {@code prefix} on every primary: key → value; without the live push's version
     * keys, as {@link TestRedis#strings}.
     */
    public Map<String, String> strings(String prefix) {
        Map<String, String> strings = new TreeMap<>();
        eachPrimary(
                jedis -> {
                    for (String key : TestRedis.keys(jedis, prefix)) {
                        if (jedis.type(key).equals("string") && !TestRedis.isVersionKey(key)) {
                            strings.put(key, jedis.get(key));
                        }
                    }
                });
        return strings;
    }

    /** Hashes under {@code prefix} on every primary: key → field → value. */
    public Map<String, Map<String, String>> hashes(String prefix) {
        Map<String, Map<String, String>> hashes = new TreeMap<>();
        eachPrimary(
                jedis -> {
                    for (String key : TestRedis.keys(jedis, prefix)) {
                        if (jedis.type(key).equals("hash")) {
                            hashes.put(key, new TreeMap<>(jedis.hgetAll(key)));
                        }
                    }
                });
        return hashes;
    }

    /** How many keys under {@code prefix} each primary holds, by port. */
    public Map<Integer, Integer> keysPerPrimary(String prefix) {
        Map<Integer, Integer> counts = new HashMap<>();
        for (int port : primaries()) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                counts.put(port, TestRedis.keys(jedis, prefix).size());
            }
        }
        return counts;
    }

    public void deleteKeys(String prefix) {
        eachPrimary(
                jedis -> {
                    Set<String> keys = TestRedis.keys(jedis, prefix);
                    for (String key : keys) {
                        jedis.del(key);
                    }
                });
    }

    private void eachPrimary(java.util.function.Consumer<Jedis> action) {
        for (int port : primaries()) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                action.accept(jedis);
            }
        }
    }
}
