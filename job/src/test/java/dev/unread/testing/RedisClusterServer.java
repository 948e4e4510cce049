package dev.unread.testing;

import dev.unread.local.LocalRedisCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster per test class ({@link LocalRedisCluster}: three primaries and three
 * replicas of Debian's {@code redis-server} on free ports of 127.0.0.1), removed after the class,
 * with what tests read of its keys.
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

    public static final int NODE_TIMEOUT_MS = LocalRedisCluster.NODE_TIMEOUT_MS;

    private LocalRedisCluster cluster;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = LocalRedisCluster.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /** {@code host:port,...} of every node started, as {@code --redis-cluster-nodes} takes. */
    public String seeds() {
        return cluster.seeds();
    }

    /** The job's (or the API's) Redis settings for this cluster. */
    public Map<String, String> settings() {
        return cluster.settings();
    }

    /** Ports of the primaries now, as the nodes alive see them. */
    public List<Integer> primaries() {
        return cluster.primaries();
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
        return cluster.ports();
    }

    /** {@code kill -9} of the {@code index}-th primary; returns its port. */
    public int killPrimary(int index) throws InterruptedException {
        return cluster.killPrimary(index);
    }

    /** Starts a killed node again: it rejoins as a replica of the primary that replaced it. */
    public void restart(int port) throws Exception {
        cluster.restart(port);
    }

    /**
     * Waits until the nodes alive agree that the one at {@code port} failed and that every slot is
     * served again (its replica took over).
     */
    public void awaitFailover(int port) throws Exception {
        cluster.awaitFailover(port);
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
                        if (jedis.type(key).equals("string") && !TestRedis.isNotACount(key)) {
                            strings.put(key, jedis.get(key));
                        }
                    }
                });
        return strings;
    }

    /**
     * Hashes under {@code prefix} on every primary: key → field → value; without the counts' marks,
     * as {@link TestRedis#hashes}.
     */
    public Map<String, Map<String, String>> hashes(String prefix) {
        Map<String, Map<String, String>> hashes = new TreeMap<>();
        eachPrimary(
                jedis -> {
                    for (String key : TestRedis.keys(jedis, prefix)) {
                        if (jedis.type(key).equals("hash") && !TestRedis.isNotACount(key)) {
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
