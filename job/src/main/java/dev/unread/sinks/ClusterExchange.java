package dev.unread.sinks;

import dev.unread.contract.RedisEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * A client of a Redis Cluster. A batch goes through Jedis' {@link ClusterPipeline}: it groups the
 * commands by the primary that owns each key's slot and sends each group down that node's
 * connection, so a batch costs one round trip per primary, the replies read in parallel. A command
 * the cluster redirects with MOVED (its slot moved, or a replica took over from a failed primary)
 * fails the attempt: the slot map is read again and the batch sent again, to the new owners. A
 * command answered with ASK (its slot is being migrated) is sent once more to the node named, after
 * ASKING, as Redis Cluster asks of clients.
 */
final class ClusterExchange implements RedisExchange {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterExchange.class);

    private final RedisEndpoint endpoint;
    private final String clientName;
    private final int timeoutMs;
    private RedisClusterClient cluster;

    /**
     * Reads the replies of a batch's nodes in parallel, one task per node of a batch with more than
     * one; threads are kept between batches.
     */
    private CountingPool replyReaders;

    private long roundTrips;

    ClusterExchange(RedisEndpoint endpoint, String clientName, int timeoutMs) {
        this.endpoint = endpoint;
        this.clientName = clientName;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public List<Object> exchange(List<RedisConnection.Command> batch) {
        if (cluster == null) {
            cluster = endpoint.clusterClient(clientName, timeoutMs, new ConnectionPoolConfig());
            replyReaders = new CountingPool();
        }
        List<Response<?>> responses = new ArrayList<>(batch.size());
        try (ClusterPipeline pipeline = cluster.pipelined(replyReaders)) {
            for (RedisConnection.Command command : batch) {
                responses.add(command.appendTo(pipeline));
            }
            long tasks = replyReaders.tasks;
            try {
                pipeline.sync();
            } finally {
                // Counted before close(), which syncs again with nothing left to send. The
                // pipeline reads one node's replies in the calling thread, more than one's here.
                roundTrips += Math.max(1, replyReaders.tasks - tasks);
            }
        }
        List<Object> replies = new ArrayList<>(batch.size());
        for (int i = 0; i < responses.size(); i++) {
            try {
                replies.add(responses.get(i).get());
            } catch (JedisAskDataException ask) {
                replies.add(askAt(ask.getTargetNode(), batch.get(i)));
            } catch (IllegalStateException unanswered) {
                // The pipeline logs a node's broken connection and leaves its replies unset.
                throw new JedisConnectionException("a cluster node did not answer", unanswered);
            } catch (JedisRedirectionException moved) {
                // The slot moved: this attempt fails, the next reads the slot map again.
                throw moved;
            } catch (JedisDataException refused) {
                replies.add(refused);
            }
        }
        return replies;
    }

    /**
     * Sends {@code command} to {@code node}, the one {@code ASK} named, right after ASKING; its
     * reply, or the JedisException Redis refused it with.
     */
    private Object askAt(HostAndPort node, RedisConnection.Command command) {
        ConnectionPool pool = cluster.getClusterNodes().get(node.toString());
        if (pool == null) {
            throw new JedisConnectionException("ASK named an unknown cluster node " + node);
        }
        try (Connection connection = pool.getResource()) {
            roundTrips += 2;
            connection.executeCommand(Protocol.Command.ASKING);
            Pipeline pipeline = new Pipeline(connection, false);
            Response<?> reply = command.appendTo(pipeline);
            pipeline.sync();
            try {
                return reply.get();
            } catch (JedisDataException refused) {
                return refused;
            }
        }
    }

    @Override
    public long roundTrips() {
        return roundTrips;
    }

    /** After a failure: the cluster's slot map read again. */
    @Override
    public void recover() {
        if (cluster == null) {
            return;
        }
        try {
            cluster.refreshClusterTopology();
        } catch (JedisException e) {
            // No node answered yet: the next attempt fails and comes back here.
            LOG.debug("Reading the Redis cluster's slot map failed", e);
        }
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
            replyReaders.shutdownNow();
            replyReaders = null;
        }
    }

    /**
     * A cached thread pool, as {@code Executors.newCachedThreadPool} makes, that counts the tasks
     * handed to it: a cluster pipeline hands it one per node it read replies from.
     */
    private static final class CountingPool extends ThreadPoolExecutor {

        /** Only the writer's thread hands out tasks and reads this. */
        long tasks;

        CountingPool() {
            super(
                    0,
                    Integer.MAX_VALUE,
                    60,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    runnable -> {
                        Thread thread = new Thread(runnable, "redis-cluster-replies");
                        thread.setDaemon(true);
                        return thread;
                    });
        }

        @Override
        public void execute(Runnable task) {
            tasks++;
            super.execute(task);
        }
    }
}
