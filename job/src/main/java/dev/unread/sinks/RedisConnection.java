package dev.unread.sinks;

import dev.unread.contract.RedisEndpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The Redis connection of a sink writer: one connection to a single node ({@link NodeExchange}), or
 * a client of a Redis Cluster ({@link ClusterExchange}, which says how a batch meets the cluster).
 * It sends commands pipelined, at most {@link #BATCH_SIZE} per round trip, and survives short
 * outages: on any error it drops the connection or reads the slot map again, waits ({@link
 * #FIRST_BACKOFF_MS}, doubling) and retries, and after {@link #MAX_ATTEMPTS} failed attempts it
 * throws, so that the task fails and Flink restores from the last checkpoint instead of losing a
 * write.
 *
 * <p>A command refused with WRONGTYPE (its key holds another type: a leftover, or another
 * application's key in the job's key space) would fail every retry and every restart, so the
 * command's {@link Command#replacingWrongType() replacement} is sent instead, and the keys so
 * replaced are counted and logged. A command without one fails as any other refusal.
 *
 * <p>A writer runs in its task's single thread, so the connection needs no locking. It is opened on
 * first use, which puts the first connect under the same retries as everything else.
 */
final class RedisConnection implements AutoCloseable {

    /** One Redis command, appended to a pipeline; sent again as-is when a round trip fails. */
    @FunctionalInterface
    interface Command {
        Response<?> appendTo(AbstractPipeline pipeline);

        /**
         * What to send instead when Redis answered WRONGTYPE: the same write after replacing the
         * key with one of the right type, answering 1 when it replaced the key and 0 when an
         * earlier replacement had; null when the key must not be replaced.
         */
        default Command replacingWrongType() {
            return null;
        }

        /**
         * How many keys, fields or members the command removes (DEL, HDEL, SREM, ZREM), 0 for a
         * command that removes nothing: its reply says how many were there, and the rest changed
         * nothing ({@link Sent#unchanged}). Counted per target, not per command, so that batching
         * several into one command hides none that were absent.
         */
        default int removes() {
            return 0;
        }

        /**
         * The refusal in {@code reply}, or null when Redis did what was asked: a reply that is a
         * JedisException, or for a command that is a whole transaction, one inside its EXEC's
         * replies (Redis runs the rest of a transaction past a refused command).
         */
        default JedisException refusal(Object reply) {
            return reply instanceof JedisException refused ? refused : null;
        }

        /**
         * For a {@link #replacingWrongType replacement}: how many keys its reply says it replaced.
         */
        default int replacedKeys(Object reply) {
            return Long.valueOf(1).equals(reply) ? 1 : 0;
        }
    }

    /** {@code command}, a removal of {@code targets} keys: see {@link Command#removes}. */
    static Command removal(int targets, Command command) {
        return new Command() {
            @Override
            public Response<?> appendTo(AbstractPipeline pipeline) {
                return command.appendTo(pipeline);
            }

            @Override
            public Command replacingWrongType() {
                return command.replacingWrongType();
            }

            @Override
            public int removes() {
                return targets;
            }
        };
    }

    /**
     * A command whose reply decides what is sent after it: its batch ends with it, and the commands
     * {@link #then} makes of its reply are sent next, before the rest of the list. A retried round
     * trip asks again.
     */
    interface Then extends Command {
        List<Command> then(Object reply);
    }

    /**
     * A script for {@link Command#replacingWrongType}: deletes KEYS[1] unless it is of {@code type}
     * or absent, then runs {@code write}; answers 1 when it deleted the key, 0 otherwise.
     */
    static String replacingScript(String type, String write) {
        return "local replaced = 0\n"
                + "local type = redis.call('TYPE', KEYS[1]).ok\n"
                + "if type ~= '"
                + type
                + "' and type ~= 'none' then\n"
                + "  redis.call('DEL', KEYS[1])\n"
                + "  replaced = 1\n"
                + "end\n"
                + write
                + "return replaced";
    }

    /**
     * Not a command: what follows it in a list is sent only once Redis acknowledged everything
     * before it. The primaries of one cluster round trip answer in any order, so a write readers
     * must not see before others (a user's version, after the user's counts) waits behind this.
     */
    static final Command BARRIER =
            p -> {
                throw new IllegalStateException("a barrier is never sent");
            };

    /**
     * What {@link #send} did: the commands Redis acknowledged (barriers are none, and what a {@link
     * Then} made of its reply counts), the keys of the wrong type it replaced, and what removals
     * named that Redis did not hold, which changed nothing (fields, members or keys).
     */
    static final class Sent {
        private final int commands;
        private final int replaced;
        private final int unchanged;

        Sent(int commands, int replaced, int unchanged) {
            this.commands = commands;
            this.replaced = replaced;
            this.unchanged = unchanged;
        }

        int commands() {
            return commands;
        }

        int replaced() {
            return replaced;
        }

        int unchanged() {
            return unchanged;
        }
    }

    static final int BATCH_SIZE = 1000;
    static final int MAX_ATTEMPTS = 5;
    static final long FIRST_BACKOFF_MS = 100;
    private static final int TIMEOUT_MS = 2000;
    private static final String CLIENT_NAME = "unread-job";

    private static final Logger LOG = LoggerFactory.getLogger(RedisConnection.class);

    private final RedisEndpoint endpoint;
    private final RedisExchange exchange;

    /** Failed attempts that were retried: Redis down, slow or failing over, and recovered. */
    private long retries;

    RedisConnection(RedisEndpoint endpoint) {
        this.endpoint = endpoint;
        this.exchange =
                endpoint.isCluster()
                        ? new ClusterExchange(endpoint, CLIENT_NAME, TIMEOUT_MS)
                        : new NodeExchange(endpoint, CLIENT_NAME, TIMEOUT_MS);
    }

    /** Pipelined exchanges with a node so far, retries included: a cluster batch, one per node. */
    long roundTrips() {
        return exchange.roundTrips();
    }

    /**
     * Failed attempts retried so far. A send that fails after its last attempt fails the task and
     * shows as a restart; these are the failures that did not, but cost a backoff each.
     */
    long retries() {
        return retries;
    }

    /** Whether this is a cluster, where Pub/Sub goes through sharded channels (SPUBLISH). */
    boolean sharded() {
        return endpoint.isCluster();
    }

    /**
     * PUBLISH of {@code message} on {@code channel}, or on a cluster ({@code sharded}) SPUBLISH: a
     * classic PUBLISH is copied to every node of a cluster, a shard channel's message goes only to
     * the primary owning the channel's slot (and its replicas), where its subscribers SSUBSCRIBE.
     */
    static Command publish(boolean sharded, String channel, String message) {
        return sharded
                ? p -> ((ClusterPipeline) p).spublish(channel, message)
                : p -> p.publish(channel, message);
    }

    /**
     * Sends {@code commands} in order and returns once Redis has answered every one of them. After
     * a failure the round trip that failed is sent again whole: the counts are absolute, so a
     * repeated command is harmless, and a receipt may be published twice (at least once).
     *
     * @return the commands sent and the keys of the wrong type replaced
     * @throws IOException when Redis failed {@link #MAX_ATTEMPTS} times in a row, or refused a
     *     command that many times
     * @throws InterruptedException when the thread was interrupted (the writer closed): the round
     *     trip on the wire completes, nothing after it is sent
     */
    Sent send(List<Command> commands) throws IOException, InterruptedException {
        // Grows by what each Then makes of its reply.
        List<Command> pending = new ArrayList<>(commands);
        int acknowledged = 0;
        int replaced = 0;
        int[] unchanged = {0};
        long backoffMs = FIRST_BACKOFF_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                while (acknowledged < pending.size()) {
                    if (Thread.interrupted()) {
                        // The writer was closed (its task cancelled, the job restoring): a later
                        // round trip could land after the restored job's writes of the same keys.
                        throw new InterruptedException(
                                "closed; "
                                        + (pending.size() - acknowledged)
                                        + " commands of the flush not sent");
                    }
                    if (pending.get(acknowledged) == BARRIER) {
                        acknowledged++;
                        continue;
                    }
                    int end = Math.min(acknowledged + BATCH_SIZE, pending.size());
                    for (int i = acknowledged; i < end; i++) {
                        if (pending.get(i) == BARRIER) {
                            end = i;
                            break;
                        }
                        if (pending.get(i) instanceof Then) {
                            end = i + 1;
                            break;
                        }
                    }
                    List<Object> replies = new ArrayList<>(end - acknowledged);
                    replaced += roundTrip(pending.subList(acknowledged, end), replies, unchanged);
                    if (pending.get(end - 1) instanceof Then then) {
                        pending.addAll(end, then.then(replies.get(replies.size() - 1)));
                    }
                    acknowledged = end;
                }
                int sent = 0;
                for (Command command : pending) {
                    if (command != BARRIER) {
                        sent++;
                    }
                }
                return new Sent(sent, replaced, unchanged[0]);
            } catch (JedisException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    exchange.close();
                    throw new IOException(
                            "Redis at "
                                    + endpoint
                                    + " failed "
                                    + attempt
                                    + " times in a row; "
                                    + (pending.size() - acknowledged)
                                    + " commands not written; "
                                    + "last: "
                                    + reason(e),
                            e);
                }
                retries++;
                LOG.warn(
                        "Redis at {} failed (attempt {} of {}), retrying in {} ms: {}",
                        endpoint,
                        attempt,
                        MAX_ATTEMPTS,
                        backoffMs,
                        reason(e));
                Thread.sleep(backoffMs);
                backoffMs *= 2;
                exchange.recover();
            }
        }
    }

    /** The exception and its causes in one line: a TLS failure hides its reason in a cause. */
    private static String reason(Throwable e) {
        StringBuilder reason = new StringBuilder(e.toString());
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            reason.append(" <- ").append(cause);
        }
        return reason.toString();
    }

    /**
     * Sends one batch and puts each command's reply in {@code replies} (a replaced key's: its
     * script's); returns how many keys of the wrong type it replaced, and adds to {@code
     * unchanged[0]} what its removals named that was not there.
     */
    private int roundTrip(List<Command> batch, List<Object> replies, int[] unchanged) {
        replies.addAll(exchange.exchange(batch));
        // Read before a replacing script's reply takes the command's place; added only once the
        // batch succeeded, so that a retried one is counted once.
        int removedNothing = 0;
        for (int i = 0; i < replies.size(); i++) {
            int targets = batch.get(i).removes();
            if (targets > 0 && replies.get(i) instanceof Long removed) {
                removedNothing += targets - removed.intValue();
            }
        }
        List<Command> replacing = new ArrayList<>();
        List<Integer> replacingAt = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            // A refused command (WRONGTYPE, NOPERM, READONLY after a failover) comes back as a
            // reply, not as an exception: raise it, or the write would be lost without a trace.
            JedisException refused = batch.get(i).refusal(replies.get(i));
            if (refused != null) {
                Command replacement = wrongType(refused) ? batch.get(i).replacingWrongType() : null;
                if (replacement == null) {
                    throw refused;
                }
                replacing.add(replacement);
                replacingAt.add(i);
            }
        }
        if (replacing.isEmpty()) {
            unchanged[0] += removedNothing;
            return 0;
        }
        int replaced = 0;
        List<Object> scripts = exchange.exchange(replacing);
        for (int i = 0; i < scripts.size(); i++) {
            Object reply = scripts.get(i);
            JedisException refused = replacing.get(i).refusal(reply);
            if (refused != null) {
                throw refused;
            }
            replies.set(replacingAt.get(i), reply);
            replaced += replacing.get(i).replacedKeys(reply);
        }
        LOG.warn(
                "Redis at {}: replaced {} keys of the wrong type in the job's key space",
                endpoint,
                replaced);
        unchanged[0] += removedNothing;
        return replaced;
    }

    private static boolean wrongType(JedisException refused) {
        return refused instanceof JedisDataException
                && refused.getMessage() != null
                && refused.getMessage().startsWith("WRONGTYPE");
    }

    @Override
    public void close() {
        exchange.close();
    }
}
