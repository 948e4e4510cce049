package dev.unread.sinks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one Redis connection of a sink writer. It sends commands pipelined, at most {@link
 * #BATCH_SIZE} per round trip, and survives short outages: on any error it drops the connection,
 * waits ({@link #FIRST_BACKOFF_MS}, doubling) and reconnects, and after {@link #MAX_ATTEMPTS}
 * failed attempts it throws, so that the task fails and Flink restores from the last checkpoint
 * instead of losing a write.
 *
 * <p>A command refused with WRONGTYPE (its key holds another type: a leftover, or another
 * application's key in the job's key space) would fail every retry and every restart, so the
 * command's {@link Command#replacingWrongType() replacement} is sent instead, and the keys so
 * replaced are counted and logged. A command without one fails as any other refusal.
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

        /**
         * What to send instead when Redis answered WRONGTYPE: the same write after replacing the
         * key with one of the right type, answering 1 when it replaced the key and 0 when an
         * earlier replacement had; null when the key must not be replaced.
         */
        default Command replacingWrongType() {
            return null;
        }
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
     * @return how many keys of the wrong type were replaced
     * @throws IOException when Redis failed {@link #MAX_ATTEMPTS} times in a row, or refused a
     *     command that many times
     */
    int send(List<Command> commands) throws IOException, InterruptedException {
        int acknowledged = 0;
        int replaced = 0;
        long backoffMs = FIRST_BACKOFF_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                while (acknowledged < commands.size()) {
                    int end = Math.min(acknowledged + BATCH_SIZE, commands.size());
                    replaced += roundTrip(commands.subList(acknowledged, end));
                    acknowledged = end;
                }
                return replaced;
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

    /** Sends one batch; returns how many keys of the wrong type it replaced. */
    private int roundTrip(List<Command> batch) {
        if (jedis == null) {
            jedis = url.connect(clientConfig);
        }
        List<Object> replies = pipelined(batch);
        List<Command> replacing = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            // A refused command (WRONGTYPE, NOPERM, READONLY after a failover) comes back as a
            // reply, not as an exception: raise it, or the write would be lost without a trace.
            if (replies.get(i) instanceof JedisException refused) {
                Command replacement = wrongType(refused) ? batch.get(i).replacingWrongType() : null;
                if (replacement == null) {
                    throw refused;
                }
                replacing.add(replacement);
            }
        }
        if (replacing.isEmpty()) {
            return 0;
        }
        int replaced = 0;
        for (Object reply : pipelined(replacing)) {
            if (reply instanceof JedisException refused) {
                throw refused;
            }
            if (Long.valueOf(1).equals(reply)) {
                replaced++;
            }
        }
        LOG.warn("Redis at {}: replaced {} keys of the wrong type in the job's key space",
                url, replaced);
        return replaced;
    }

    private List<Object> pipelined(List<Command> commands) {
        Pipeline pipeline = jedis.pipelined();
        for (Command command : commands) {
            command.appendTo(pipeline);
        }
        return pipeline.syncAndReturnAll();
    }

    private static boolean wrongType(JedisException refused) {
        return refused instanceof JedisDataException
                && refused.getMessage() != null
                && refused.getMessage().startsWith("WRONGTYPE");
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
