package dev.unread.api;

import dev.unread.contract.RedisEndpoint;
import dev.unread.contract.RedisNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Reads the counts the job keeps in Redis (docs/contract.md, "Redis"), from one node or a Redis
 * Cluster.
 */
final class RedisUnread implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisUnread.class);

    /** Readers listed by {@code GET /api/conversations/{cid}/readers}; the count is exact. */
    static final int MAX_READERS = 100;

    /** Bounds a refresh's commands: an instance serves up to 10,000 streams by default. */
    private static final int LIVE_USERS_PER_COMMAND = 1000;

    /** Jetty serves many requests at once; more than Jedis' default 8 connections. */
    private static final int MAX_CONNECTIONS = 32;

    private final UnifiedJedis client;

    /** On a cluster: the client, and the threads that read the nodes' replies of a batch. */
    private final RedisClusterClient cluster;

    private final ExecutorService replyReaders;
    private final String keyPrefix;
    private final RedisEndpoint endpoint;

    RedisUnread(ApiConfig config) {
        this.endpoint = config.redisEndpoint();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(MAX_CONNECTIONS);
        pool.setMaxIdle(MAX_CONNECTIONS);
        pool.setMaxWait(Duration.ofMillis(config.timeoutMs));
        this.client = endpoint.client("unread-api", config.timeoutMs, pool);
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

    // Doubles hold epoch milliseconds exactly; '%.0f' keeps Lua from writing them as 1.7e+12.
    /**
     * How far a user's action stamp may run ahead of the clock: a minute of over a thousand actions
     * a second, or of clock skew between API instances; far below the job's {@code
     * --max-future-skew-ms}, past which it dead-letters an action.
     */
    static final long MAX_STAMP_AHEAD_MS = 60_000;

    private static final String NEXT_ACTION_STAMP =
            "local last = tonumber(redis.call('GET', KEYS[1]) or '0') or 0\n"
                    + "local stamp = tonumber(ARGV[1])\n"
                    + "if stamp <= last then stamp = last + 1 end\n"
                    + "if stamp > tonumber(ARGV[1]) + tonumber(ARGV[3]) then return 0 end\n"
                    + "redis.call('SET', KEYS[1], string.format('%.0f', stamp), 'EX', ARGV[2])\n"
                    + "return stamp";

    private static final String REMOVE_LIVE_USER_AT =
            "if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') == tonumber(ARGV[2]) then\n"
                    + "  return redis.call('ZREM', KEYS[1], ARGV[1])\n"
                    + "end\n"
                    + "return 0";

    /**
     * The stamp of a user's action taken at {@code now} by this instance's clock: {@code now}, or
     * one more than the user's newest stamp if that is not older, so that an action taken after
     * another one was answered is stamped after it whichever instance took either; 0 (none) when
     * that would be more than {@link #MAX_STAMP_AHEAD_MS} ahead of {@code now}.
     */
    long actionStamp(long userId, long now) {
        String key = RedisNames.actionStampKey(keyPrefix, userId);
        List<String> args =
                List.of(
                        Long.toString(now),
                        Long.toString(RedisNames.ACTION_STAMP_TTL_SECONDS),
                        Long.toString(MAX_STAMP_AHEAD_MS));
        return withRedirection(() -> (Long) client.eval(NEXT_ACTION_STAMP, List.of(key), args));
    }

    /**
     * Adds {@code userIds} to the live users until {@code until} (epoch ms; ZADD GT, so another
     * instance's later time stands) and drops the users whose time passed before {@code now}: the
     * job publishes changes only for live users (docs/contract.md, "Live push"). In commands of at
     * most {@link #LIVE_USERS_PER_COMMAND} users.
     */
    void markLive(Collection<Long> userIds, long until, long now) {
        String key = RedisNames.liveUsersKey(keyPrefix);
        Map<String, Double> members = new HashMap<>();
        withRedirection(
                () -> {
                    for (Long user : userIds) {
                        members.put(user.toString(), (double) until);
                        if (members.size() == LIVE_USERS_PER_COMMAND) {
                            client.zadd(key, members, ZAddParams.zAddParams().gt());
                            members.clear();
                        }
                    }
                    if (!members.isEmpty()) {
                        client.zadd(key, members, ZAddParams.zAddParams().gt());
                    }
                    client.zremrangeByScore(key, "-inf", "(" + now);
                    return null;
                });
    }

    /**
     * Removes {@code userId} from the live users if its time there is still {@code until}, the one
     * this instance wrote last: a later time is another instance's (or a newer stream's here),
     * whose stream is still open.
     */
    void unmarkLive(long userId, long until) {
        String key = RedisNames.liveUsersKey(keyPrefix);
        List<String> args = List.of(Long.toString(userId), Long.toString(until));
        withRedirection(() -> client.eval(REMOVE_LIVE_USER_AT, List.of(key), args));
    }

    /**
     * A user's counts with the version of the latest change in them, for a stream's snapshot: the
     * version is read before the counts in the same pipeline, and the job writes it after them, so
     * the counts are at least as new as the version (0: no change for a day).
     */
    Snapshot snapshot(long userId) {
        return withRedirection(() -> snapshotOnce(userId));
    }

    private Snapshot snapshotOnce(long userId) {
        Response<String> version;
        Reads reads;
        try (AbstractPipeline pipeline = pipelined()) {
            version = pipeline.get(RedisNames.versionKey(keyPrefix, userId));
            reads = new Reads(pipeline, userId);
        }
        return new Snapshot(
                version.get() == null ? 0 : Long.parseLong(version.get()), reads.answer());
    }

    /**
     * The badge and the per-conversation counts of each user, in the order asked, read in one
     * pipelined round trip (a GET and an HGETALL per user); on a cluster one round trip per primary
     * holding any of the keys. A slot that moved since the client last read the cluster's slot map
     * (MOVED, after a failover) makes it read the map again and the batch once more. A user whose
     * keys hold what the job never writes (a key of another type, text that is no count: another
     * application's, or a leftover) is answered as {@link Unreadable}, and the others as usual.
     */
    List<UserAnswer> read(long[] userIds) {
        return withRedirection(() -> readOnce(userIds));
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

    private List<UserAnswer> readOnce(long[] userIds) {
        List<Reads> reads = new ArrayList<>(userIds.length);
        try (AbstractPipeline pipeline = pipelined()) {
            for (long userId : userIds) {
                reads.add(new Reads(pipeline, userId));
            }
        }
        List<UserAnswer> result = new ArrayList<>(userIds.length);
        for (int i = 0; i < userIds.length; i++) {
            try {
                result.add(reads.get(i).answer());
            } catch (JedisRedirectionException | JedisAccessControlException e) {
                throw e;
            } catch (JedisDataException | NumberFormatException e) {
                // Not the job's data: logged without the value, which may be anyone's.
                LOG.warn(
                        "unreadable counts in Redis for user {}: {}",
                        userIds[i],
                        e.getClass().getSimpleName());
                result.add(new Unreadable(userIds[i], Unreadable.MESSAGE));
            }
        }
        return result;
    }

    /**
     * One user's keys queued on a pipeline: the badge, the conversation and mention counts, the
     * totals, the marked conversations and the followed threads' counts.
     */
    private final class Reads {
        final long userId;
        final Response<String> senders;
        final Response<Map<String, String>> conversations;
        final Response<Map<String, String>> mentions;
        final Response<Map<String, String>> totals;
        final Response<Set<String>> marked;
        final Response<Map<String, String>> threads;
        final Response<Map<String, String>> threadMentions;

        Reads(AbstractPipeline pipeline, long userId) {
            this.userId = userId;
            senders = pipeline.get(RedisNames.sendersKey(keyPrefix, userId));
            conversations = pipeline.hgetAll(RedisNames.conversationsKey(keyPrefix, userId));
            mentions = pipeline.hgetAll(RedisNames.mentionsKey(keyPrefix, userId));
            totals = pipeline.hgetAll(RedisNames.totalsKey(keyPrefix, userId));
            marked = pipeline.smembers(RedisNames.markedUnreadKey(keyPrefix, userId));
            threads = pipeline.hgetAll(RedisNames.threadsKey(keyPrefix, userId));
            threadMentions = pipeline.hgetAll(RedisNames.threadMentionsKey(keyPrefix, userId));
        }

        /**
         * The answer, once the pipeline synced.
         *
         * @throws JedisDataException when a key is of another type
         * @throws NumberFormatException when a value is no count
         */
        UserUnread answer() {
            String badge = senders.get();
            Map<String, String> total = totals.get();
            List<Long> markedIds = new ArrayList<>();
            marked.get().forEach(id -> markedIds.add(Long.parseLong(id)));
            markedIds.sort(null);
            return new UserUnread(
                    userId,
                    badge == null ? 0 : Long.parseLong(badge),
                    counts(conversations.get()),
                    counts(mentions.get()),
                    new Totals(
                            count(total.get(RedisNames.TOTAL_MESSAGES)),
                            count(total.get(RedisNames.TOTAL_MENTIONS)),
                            count(total.get(RedisNames.TOTAL_CONVERSATIONS)),
                            count(total.get(RedisNames.TOTAL_THREADS))),
                    markedIds,
                    threadCounts(threads.get()),
                    threadCounts(threadMentions.get()));
        }
    }

    /**
     * A thread hash's fields {@code {conversationId}:{threadSeq}} in numeric order of both ids, as
     * the conversations are; a field of another shape is not the job's.
     *
     * @throws NumberFormatException for a field or value that is not the job's
     */
    private static Map<String, Long> threadCounts(Map<String, String> hash) {
        TreeMap<long[], Long> sorted =
                new TreeMap<>(
                        (a, b) ->
                                a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        hash.forEach(
                (field, n) -> {
                    int colon = field.indexOf(':');
                    if (colon < 0) {
                        throw new NumberFormatException("not a thread field");
                    }
                    long[] ids = {
                        Long.parseLong(field.substring(0, colon)),
                        Long.parseLong(field.substring(colon + 1))
                    };
                    sorted.put(ids, Long.parseLong(n));
                });
        Map<String, Long> counts = new LinkedHashMap<>();
        sorted.forEach((ids, n) -> counts.put(RedisNames.threadField(ids[0], ids[1]), n));
        return counts;
    }

    private static Map<Long, Long> counts(Map<String, String> hash) {
        Map<Long, Long> counts = new TreeMap<>();
        hash.forEach((c, n) -> counts.put(Long.parseLong(c), Long.parseLong(n)));
        return counts;
    }

    private static long count(String value) {
        return value == null ? 0 : Long.parseLong(value);
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
        try (AbstractPipeline pipeline = pipelined()) {
            if (threadSeq > 0) {
                inThread =
                        pipeline.hexists(
                                RedisNames.threadsKey(keyPrefix, userId),
                                RedisNames.threadField(conversationId, threadSeq));
            }
            score =
                    pipeline.zscore(
                            RedisNames.readersKey(keyPrefix, conversationId),
                            Long.toString(userId));
            counted =
                    pipeline.hexists(
                            RedisNames.conversationsKey(keyPrefix, userId),
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
                || (inThread != null
                        && (Boolean.TRUE.equals(inThread.get())
                                || countsAThreadOf(conversationId, userId)));
    }

    /** Whether the user's {@code chat:threads} has a field of the conversation: a scan of it. */
    private boolean countsAThreadOf(long conversationId, long userId) {
        String key = RedisNames.threadsKey(keyPrefix, userId);
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
    ConversationReaders readers(long conversationId, long seq) {
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
        return new ConversationReaders(conversationId, seq, count.get(), readers);
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

    /** One user's entry in an answer. */
    sealed interface UserAnswer permits UserUnread, Unreadable {}

    /**
     * What {@code GET /api/users/{userId}/unread} answers: distinct senders since the inbox was
     * last opened, unread messages and mentions per conversation id (absent: 0), the app-icon
     * totals, the ids of the conversations marked unread, ascending, and the unread replies and
     * mentions of each followed thread, keyed {@code {conversationId}:{threadSeq}} (absent: 0).
     */
    record UserUnread(
            long userId,
            long unreadSenders,
            Map<Long, Long> conversations,
            Map<Long, Long> mentions,
            Totals totals,
            List<Long> markedUnread,
            Map<String, Long> threads,
            Map<String, Long> threadMentions)
            implements UserAnswer {}

    /** The app-icon totals of {@code unread:totals:{userId}}, 0 for an absent field. */
    record Totals(long messages, long mentions, long conversations, long threads) {}

    /** A user whose counts in Redis cannot be read. */
    record Unreadable(long userId, String error) implements UserAnswer {
        static final String MESSAGE = "unreadable counts in Redis";
    }

    /** A user's counts and the version of the latest change they hold. */
    record Snapshot(long version, UserUnread counts) {}

    /**
     * What {@code GET /api/conversations/{cid}/readers?seq=S} answers: how many participants have
     * read up to S or further, and up to {@link #MAX_READERS} of them, lowest cursor first.
     */
    record ConversationReaders(long conversationId, long seq, long readCount, List<Long> readers) {}
}
