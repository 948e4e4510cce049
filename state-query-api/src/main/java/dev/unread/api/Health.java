package dev.unread.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.AuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisAccessControlException;

/**
 * {@code GET /health}: Redis answers PING, MySQL hands out a valid connection, a Kafka broker
 * describes the cluster, and the embedder's extra check passes. The checks run in parallel so that
 * the answer takes as long as the slowest one, not the sum.
 */
final class Health implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Health.class);

    /** A load balancer may probe every second; Kafka's answer is reused this long. */
    private static final long KAFKA_CACHE_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** How long one round of checks answers every probe. */
    private static final long CACHE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisUnread redis;
    private final MySqlCursorReader mysql;
    private final KafkaReads kafka;
    private final HealthCheck extra;
    private final ApiMetrics metrics;
    private final ExecutorService executor;

    private final Object cacheLock = new Object();
    private long checkedAt;
    private Map<String, String> checked;

    private final Object kafkaLock = new Object();
    private long kafkaCheckedAt;
    private String kafkaProblem;

    Health(
            RedisUnread redis,
            MySqlCursorReader mysql,
            KafkaReads kafka,
            HealthCheck extra,
            ApiMetrics metrics) {
        this.redis = redis;
        this.mysql = mysql;
        this.kafka = kafka;
        this.extra = extra;
        this.metrics = metrics;
        this.executor =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "unread-api-health");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /**
     * Check name → null when up, else the reason. One round of checks serves every probe for {@link
     * #CACHE_NANOS}: {@code /health} is open to anyone, and each round pings Redis and MySQL (and
     * logs each failure).
     */
    Map<String, String> check() {
        synchronized (cacheLock) {
            long now = System.nanoTime();
            if (checked == null || now - checkedAt > CACHE_NANOS) {
                checked = checkNow();
                checkedAt = System.nanoTime();
            }
            return checked;
        }
    }

    private Map<String, String> checkNow() {
        Map<String, CompletableFuture<String>> running = new LinkedHashMap<>();
        running.put(
                DependencyException.REDIS,
                async(() -> dependency(DependencyException.REDIS, redis::ping)));
        running.put(
                DependencyException.MYSQL,
                async(() -> dependency(DependencyException.MYSQL, mysql::ping)));
        running.put(DependencyException.KAFKA, async(this::kafka));
        if (extra != null) {
            running.put(extra.name(), async(this::extra));
        }
        Map<String, String> problems = new LinkedHashMap<>();
        running.forEach((name, result) -> problems.put(name, result.join()));
        return problems;
    }

    private CompletableFuture<String> async(Supplier<String> check) {
        return CompletableFuture.supplyAsync(check, executor);
    }

    private String kafka() {
        synchronized (kafkaLock) {
            long now = System.nanoTime();
            if (kafkaCheckedAt == 0 || now - kafkaCheckedAt > KAFKA_CACHE_NANOS) {
                kafkaProblem = dependency(DependencyException.KAFKA, kafka::ping);
                kafkaCheckedAt = System.nanoTime();
            }
            return kafkaProblem;
        }
    }

    private String dependency(String name, Runnable ping) {
        try {
            ping.run();
            return null;
        } catch (RuntimeException e) {
            metrics.dependencyError(name);
            if (e instanceof DependencyException d && d.misconfigured) {
                LOG.warn("health: {}: {}", name, d.getMessage());
                return d.getMessage();
            }
            Throwable cause = e instanceof DependencyException ? e.getCause() : e;
            LOG.warn("health: {} unavailable: {}", name, String.valueOf(cause));
            LOG.debug("{} failure", name, cause);
            String refused = refusal(cause);
            return refused != null ? refused : "unreachable";
        }
    }

    /**
     * What a server that answered but refused the credentials said, from the first refusal in
     * {@code failure}'s causes; null when there is none. Reachable but refusing is fixed elsewhere
     * than an outage, so it reads differently. Redis' refusal is named by its error code alone
     * (WRONGPASS, NOAUTH, NOPERM), which never holds the password: the rest of its message is the
     * server's prose.
     */
    private static String refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof AuthenticationException) {
                return "authentication failed";
            }
            if (t instanceof JedisAccessControlException) {
                String code = String.valueOf(t.getMessage()).split(" ", 2)[0];
                // NOPERM: the user logged in, but its ACL forbids the command.
                return (code.equals("NOPERM") ? "permission denied (" : "authentication failed (")
                        + code
                        + ")";
            }
        }
        return null;
    }

    private String extra() {
        try {
            return extra.problem();
        } catch (Exception e) {
            LOG.warn("health: check {} failed", extra.name(), e);
            return "check failed";
        }
    }

    /** Names of the failed checks, for the error message. */
    static List<String> failed(Map<String, String> problems) {
        return problems.entrySet().stream()
                .filter(e -> e.getValue() != null)
                .map(Map.Entry::getKey)
                .toList();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
