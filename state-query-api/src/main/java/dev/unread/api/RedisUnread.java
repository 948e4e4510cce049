package dev.unread.api;

import dev.unread.contract.Count;
import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import dev.unread.contract.TrackJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Reads the counts the job keeps in Redis (docs/contract.md, "Redis"), from one node or a Redis
 * Cluster.
 */
final class RedisUnread implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisUnread.class);

    /** Readers listed by {@code GET /api/conversations/{cid}/readers}; the count is exact. */
    static final int MAX_READERS = 100;

    /** Jetty serves many requests at once; more than Jedis' default 8 connections. */
    private static final int MAX_CONNECTIONS = 32;

    private final UnifiedJedis client;

    /** On a cluster: the client, and the threads that read the nodes' replies of a batch. */
    private final RedisClusterClient cluster;

    private final ExecutorService replyReaders;
    private final String keyPrefix;
    private final RedisEndpoint endpoint;
    private final ApiMetrics metrics;
    private final TrackJson trackJson = new TrackJson();

    RedisUnread(ApiConfig config, ApiMetrics metrics) {
        this(config, metrics, client(config));
    }

    /**
     * Reads through {@code client}, a client of {@code config}'s Redis: a test counts the round
     * trips of a read on a client whose connections count them.
     */
    RedisUnread(ApiConfig config, ApiMetrics metrics, UnifiedJedis client) {
        this.metrics = metrics;
        this.endpoint = config.redisEndpoint();
        this.client = client;
        if (client instanceof RedisClusterClient clusterClient) {
            this.cluster = clusterClient;
            this.replyReaders =
                    Executors.newCachedThreadPool(
                            runnable -> {
                                Thread thread = new Thread(runnable, "redis-cluster-replies");
                                thread.setDaemon(true);
                                // Jedis 8.0.2 rethrows on this thread what broke a node's
                                // connection while it read the replies (a primary killed
                                // mid-batch), after leaving them unset: the request that waits
                                // for them answers 503 (withRedirection), so one line is enough.
                                thread.setUncaughtExceptionHandler(
                                        (t, e) ->
                                                LOG.warn(
                                                        "reading a cluster node's replies failed:"
                                                                + " {}",
                                                        String.valueOf(e)));
                                return thread;
                            });
        } else {
            this.cluster = null;
            this.replyReaders = null;
        }
        this.keyPrefix = config.redisKeyPrefix;
    }

    private static UnifiedJedis client(ApiConfig config) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(MAX_CONNECTIONS);
        pool.setMaxIdle(MAX_CONNECTIONS);
        pool.setMaxWait(Duration.ofMillis(config.timeoutMs));
        return config.redisEndpoint().client("unread-api", config.timeoutMs, pool);
    }

    /**
     * A user's counts with the version of the latest change in them, for a stream's snapshot: the
     * version is read before the counts in the same pipeline, and the job writes it after them, so
     * the counts are at least as new as the version (0: no change for a day).
     */
    CountAnswers.Snapshot snapshot(long userId) {
        return withRedirection(() -> snapshotOnce(userId));
    }

    private CountAnswers.Snapshot snapshotOnce(long userId) {
        Response<String> version;
        CountAnswers.UserReads reads;
        try (AbstractPipeline pipeline = pipelined()) {
            version = pipeline.get(RedisNames.versionKey(keyPrefix, userId));
            reads = new CountAnswers.UserReads(pipeline, keyPrefix, userId);
        }
        countChannels(List.of(reads));
        return new CountAnswers.Snapshot(
                version.get() == null ? 0 : Long.parseLong(version.get()), answer(reads));
    }

    /**
     * The second round trip of a read, when any of its users has channel tracks: the counting
     * commands of every such user's channels on one pipeline (docs/contract.md, "Channels in
     * Redis").
     */
    private void countChannels(List<CountAnswers.UserReads> reads) {
        List<CountAnswers.UserReads> counted = new ArrayList<>();
        for (CountAnswers.UserReads user : reads) {
            List<String> skipped = new ArrayList<>();
            if (user.hasChannels(trackJson, skipped::add)) {
                counted.add(user);
            }
            leftOut(user.userId, ApiMetrics.SKIPPED_TRACK, skipped);
        }
        if (counted.isEmpty()) {
            return;
        }
        int commands = 0;
        try (AbstractPipeline pipeline = pipelined()) {
            for (CountAnswers.UserReads user : counted) {
                commands += user.countChannels(pipeline, keyPrefix);
            }
        }
        metrics.channelCommands(commands);
    }

    /** The user's answer, once the pipelines synced, its unreadable channels left out. */
    private CountAnswers.UserUnread answer(CountAnswers.UserReads reads) {
        List<Long> unreadable = new ArrayList<>();
        CountAnswers.UserUnread answer = reads.answer(unreadable::add);
        leftOut(reads.userId, ApiMetrics.SKIPPED_INDEX, unreadable);
        return answer;
    }

    /**
     * One line per user and answer, however many were left out, and without the values, which may
     * be anyone's: the first field or channel names where to look.
     */
    private void leftOut(long userId, String reason, List<?> which) {
        if (which.isEmpty()) {
            return;
        }
        metrics.channelSkipped(reason, which.size());
        LOG.warn(
                "left out of user {}'s counts: {} {}, the first {}",
                userId,
                which.size(),
                reason.equals(ApiMetrics.SKIPPED_TRACK)
                        ? "channel tracks that are not the job's JSON"
                        : "channels whose index keys are of another type",
                which.get(0));
    }

    /**
     * The badge and the per-conversation counts of each user, in the order asked, read in one
     * pipelined round trip (a GET and an HGETALL per user); on a cluster one round trip per primary
     * holding any of the keys. A slot that moved since the client last read the cluster's slot map
     * (MOVED, after a failover) makes it read the map again and the batch once more. A user whose
     * keys hold what the job never writes (a key of another type, text that is no count: another
     * application's, or a leftover) is answered as {@link CountAnswers.Unreadable}, and the others
     * as usual.
     */
    List<CountAnswers.UserAnswer> read(long[] userIds) {
        return withRedirection(() -> readOnce(userIds));
    }

    /** Runs {@code command} on this Redis as {@link #withRedirection} does. */
    <T> T run(Function<UnifiedJedis, T> command) {
        return withRedirection(() -> command.apply(client));
    }

    /**
     * Runs {@code once}, and on a cluster once more after reading the slot map again if a slot had
     * moved (MOVED). A node that could not be reached makes the slot map be read again too, before
     * the 503: its replica may be taking over, and the next request should go there.
     */
    private <T> T withRedirection(Supplier<T> once) {
        try {
            try {
                return once.get();
            } catch (JedisRedirectionException moved) {
                if (cluster == null) {
                    throw notACluster(moved);
                }
                cluster.refreshClusterTopology();
                return once.get();
            }
        } catch (JedisAccessControlException e) {
            // Wrong user or password (WRONGPASS, NOPERM): Redis cannot be used, as if it were down.
            throw new DependencyException(DependencyException.REDIS, e);
        } catch (JedisDataException e) {
            // Redis answered, with an error: not an outage, so a 500 rather than a 503.
            throw e;
        } catch (JedisException | IllegalStateException | NullPointerException e) {
            // IllegalStateException: a cluster node's connection broke and left its replies unset;
            // NullPointerException: the pipeline of Jedis 8.0.2 trips over the connection it could
            // not open to a node (a dead primary still in the slot map) when it is the only node.
            if (cluster == null && e instanceof NullPointerException) {
                throw e;
            }
            if (cluster != null) {
                try {
                    cluster.refreshClusterTopology();
                } catch (JedisException refresh) {
                    LOG.debug("reading the cluster's slot map failed", refresh);
                }
            }
            throw new DependencyException(DependencyException.REDIS, e);
        }
    }

    private List<CountAnswers.UserAnswer> readOnce(long[] userIds) {
        List<CountAnswers.UserReads> reads = new ArrayList<>(userIds.length);
        try (AbstractPipeline pipeline = pipelined()) {
            for (long userId : userIds) {
                reads.add(new CountAnswers.UserReads(pipeline, keyPrefix, userId));
            }
        }
        countChannels(reads);
        List<CountAnswers.UserAnswer> result = new ArrayList<>(userIds.length);
        for (int i = 0; i < userIds.length; i++) {
            try {
                result.add(answer(reads.get(i)));
            } catch (JedisRedirectionException | JedisAccessControlException e) {
                throw e;
            } catch (JedisDataException | NumberFormatException e) {
                // Not the job's data: logged without the value, which may be anyone's.
                LOG.warn(
                        "unreadable counts in Redis for user {}: {}",
                        userIds[i],
                        e.getClass().getSimpleName());
                result.add(
                        new CountAnswers.Unreadable(userIds[i], CountAnswers.Unreadable.MESSAGE));
            }
        }
        return result;
    }

    /**
     * Whether {@code userId} is among the conversation's readers (a cursor in it) or has an unread
     * count in it: what lets a user's token read the conversation's readers.
     */
    boolean concerns(long conversationId, long userId) {
        return concerns(conversationId, 0, userId);
    }

    /**
     * As {@link #concerns(long, long)}, or, for a thread's route ({@code threadSeq} above 0), with
     * a count in any thread of the conversation (the ruling on the thread routes): a user active
     * only in a conversation's threads has no cursor nor count of the conversation, yet takes part.
     */
    boolean concerns(long conversationId, long threadSeq, long userId) {
        Response<Double> score;
        Response<Boolean> counted;
        Response<Boolean> inThread = null;
        Response<Boolean> inChannel;
        try (AbstractPipeline pipeline = pipelined()) {
            inChannel =
                    pipeline.hexists(
                            RedisNames.channelTracksKey(keyPrefix, userId),
                            RedisNames.channelTrackField(conversationId));
            if (threadSeq > 0) {
                inThread =
                        pipeline.hexists(
                                Count.THREAD.key(keyPrefix, userId),
                                RedisNames.threadField(conversationId, threadSeq));
            }
            score =
                    pipeline.zscore(
                            RedisNames.readersKey(keyPrefix, conversationId),
                            Long.toString(userId));
            counted =
                    pipeline.hexists(
                            Count.CONVERSATION.key(keyPrefix, userId),
                            Long.toString(conversationId));
        } catch (JedisRedirectionException moved) {
            throw cluster == null ? notACluster(moved) : moved;
        } catch (JedisDataException e) {
            throw e;
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        return score.get() != null
                || Boolean.TRUE.equals(counted.get())
                || Boolean.TRUE.equals(inChannel.get())
                || (inThread != null
                        && (Boolean.TRUE.equals(inThread.get())
                                || countsAThreadOf(conversationId, userId)));
    }

    /** Whether the user's {@code chat:threads} has a field of the conversation: a scan of it. */
    private boolean countsAThreadOf(long conversationId, long userId) {
        String key = Count.THREAD.key(keyPrefix, userId);
        ScanParams match = new ScanParams().match(conversationId + ":*").count(1000);
        return withRedirection(
                () -> {
                    String cursor = ScanParams.SCAN_POINTER_START;
                    do {
                        ScanResult<Map.Entry<String, String>> page =
                                client.hscan(key, cursor, match);
                        if (!page.getResult().isEmpty()) {
                            return true;
                        }
                        cursor = page.getCursor();
                    } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
                    return false;
                });
    }

    /**
     * "Read by N" for {@code seq}: how many readers of the conversation have a cursor at or past
     * it, and the first {@link #MAX_READERS} of them by cursor, in one pipelined round trip.
     */
    CountAnswers.ConversationReaders readers(long conversationId, long seq) {
        String key = RedisNames.readersKey(keyPrefix, conversationId);
        String min = Long.toString(seq);
        Response<Long> count;
        Response<List<String>> first;
        try (AbstractPipeline pipeline = pipelined()) {
            count = pipeline.zcount(key, min, "+inf");
            first = pipeline.zrangeByScore(key, min, "+inf", 0, MAX_READERS);
        } catch (JedisRedirectionException moved) {
            throw cluster == null ? notACluster(moved) : moved;
        } catch (JedisDataException e) {
            throw e;
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        List<Long> readers = new ArrayList<>(first.get().size());
        first.get().forEach(id -> readers.add(Long.parseLong(id)));
        return new CountAnswers.ConversationReaders(conversationId, seq, count.get(), readers);
    }

    /**
     * A pipeline of this Redis: on a cluster one that sends each node its commands and reads the
     * nodes' replies in parallel, on the threads kept for it. Closing it sends the commands and
     * reads the replies, once: a sync() before the close would make a second one, and after a node
     * broke during the first, Jedis 8.0.2's second one reads that node's replies on the connection
     * it had dropped, a NullPointerException on a reply thread (issue 23).
     */
    private AbstractPipeline pipelined() {
        return cluster == null ? client.pipelined() : cluster.pipelined(replyReaders);
    }

    /**
     * Redis answers, and is what the settings say: one node of the URL that belongs to a cluster
     * answers PING but MOVED to most keys, so it is named here rather than found by each request.
     */
    void ping() {
        String mismatch;
        try {
            client.ping();
            mismatch = endpoint.clusterMismatch(() -> client.info("cluster"));
        } catch (JedisException e) {
            throw new DependencyException(DependencyException.REDIS, e);
        }
        if (mismatch != null) {
            throw DependencyException.misconfigured(DependencyException.REDIS, mismatch, null);
        }
    }

    /**
     * A MOVED or ASK from the one node of the URL: that node belongs to a Redis Cluster, which no
     * retry fixes; the answer names the setting that does.
     */
    DependencyException notACluster(JedisRedirectionException moved) {
        return DependencyException.misconfigured(
                DependencyException.REDIS, endpoint.clusterNodeAsSingle(), moved);
    }

    @Override
    public void close() {
        client.close();
        if (replyReaders != null) {
            replyReaders.shutdownNow();
        }
    }
}
