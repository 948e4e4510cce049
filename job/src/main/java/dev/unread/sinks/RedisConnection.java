package dev.unread.sinks;

import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one Redis connection of a sink writer. It sends commands pipelined, at most {@link
 * #BATCH_SIZE} per round trip, and survives short outages: on any error it drops the connection,
 * waits ({@link #FIRST_BACKOFF_MS}, doubling) and reconnects, and after {@link #MAX_ATTEMPTS}
 * failed attempts it throws, so that the task fails and Flink restores from the last checkpoint
 * instead of losing a write.
 *
 * <p>A writer runs in its task's single thread, so one plain connection is enough and the
 * connection needs no locking. It is opened on first use, which puts the first connect under the
 * same retries as everything else.
 */
final class RedisConnection implements AutoCloseable {

    /** One Redis command, appended to a pipeline; sent again as-is when a round trip fails. */
    @FunctionalInterface
    interface Command {
        void appendTo(Pipeline pipeline);
    }

    static final int BATCH_SIZE = 1000;
    static final int MAX_ATTEMPTS = 5;
    static final long FIRST_BACKOFF_MS = 100;
    private static final int TIMEOUT_MS = 2000;

    private static final Logger LOG = LoggerFactory.getLogger(RedisConnection.class);

    private final RedisUrl url;
    private final JedisClientConfig clientConfig;
    private Jedis jedis;

    RedisConnection(RedisUrl url) {
        this.url = url;
        this.clientConfig = url.clientConfig("unread-job", TIMEOUT_MS);
    }

    /**
     * Sends {@code commands} in order and returns once Redis has answered every one of them.
     * After a failure the round trip that failed is sent again whole: the counts are absolute,
     * so a repeated command is harmless, and a receipt may be published twice (at least once).
     *
     * @throws IOException when Redis failed {@link #MAX_ATTEMPTS} times in a row, or refused a
     *     command that many times
     */
    void send(List<Command> commands) throws IOException, InterruptedException {
        int acknowledged = 0;
        long backoffMs = FIRST_BACKOFF_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                while (acknowledged < commands.size()) {
                    int end = Math.min(acknowledged + BATCH_SIZE, commands.size());
                    roundTrip(commands.subList(acknowledged, end));
                    acknowledged = end;
                }
                return;
            } catch (JedisException e) {
                disconnect();
                if (attempt >= MAX_ATTEMPTS) {
                    throw new IOException(
                            "Redis at " + url + " failed " + attempt + " times in a row; "
                                    + (commands.size() - acknowledged) + " commands not written",
                            e);
                }
                LOG.warn(
                        "Redis at {} failed (attempt {} of {}), retrying in {} ms: {}",
                        url, attempt, MAX_ATTEMPTS, backoffMs, e.toString());
                Thread.sleep(backoffMs);
                backoffMs *= 2;
            }
        }
    }

    private void roundTrip(List<Command> batch) {
        if (jedis == null) {
            jedis = url.connect(clientConfig);
        }
        Pipeline pipeline = jedis.pipelined();
        for (Command command : batch) {
            command.appendTo(pipeline);
        }
        // A refused command (WRONGTYPE, NOPERM, READONLY after a failover) comes back as a reply,
        // not as an exception: raise it, or the write would be lost without a trace.
        for (Object reply : pipeline.syncAndReturnAll()) {
            if (reply instanceof JedisException refused) {
                throw refused;
            }
        }
    }

    private void disconnect() {
        if (jedis != null) {
            try {
                jedis.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing a failed Redis connection failed too", e);
            }
            jedis = null;
        }
    }

    @Override
    public void close() {
        disconnect();
    }
}
