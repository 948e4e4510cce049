package dev.unread.sinks;

import dev.unread.contract.RedisEndpoint;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/** One connection to the single node of a Redis URL: a batch is one round trip. */
final class NodeExchange implements RedisExchange {

    private static final Logger LOG = LoggerFactory.getLogger(NodeExchange.class);

    private final RedisEndpoint endpoint;
    private final String clientName;
    private final int timeoutMs;
    private Jedis jedis;
    private long roundTrips;

    NodeExchange(RedisEndpoint endpoint, String clientName, int timeoutMs) {
        this.endpoint = endpoint;
        this.clientName = clientName;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public List<Object> exchange(List<RedisConnection.Command> batch) {
        if (jedis == null) {
            jedis = connect();
        }
        Pipeline pipeline = jedis.pipelined();
        // A command may append several (a transaction): its reply is that of the one it returns.
        List<Response<?>> responses = new ArrayList<>(batch.size());
        for (RedisConnection.Command command : batch) {
            responses.add(command.appendTo(pipeline));
        }
        roundTrips++;
        pipeline.sync();
        List<Object> replies = new ArrayList<>(responses.size());
        for (Response<?> response : responses) {
            try {
                replies.add(response.get());
            } catch (JedisDataException refused) {
                replies.add(refused);
            }
        }
        return replies;
    }

    /**
     * A connection to the one node of the URL, refused with the missing setting's name when that
     * node belongs to a Redis Cluster: every write would otherwise fail with MOVED, retried until
     * the task fails with a redirection nobody reads as a setting. Not a JedisException, so not
     * retried: no attempt can succeed.
     */
    private Jedis connect() {
        Jedis connected = endpoint.connect(clientName, timeoutMs);
        String mismatch = endpoint.clusterMismatch(() -> connected.info("cluster"));
        if (mismatch != null) {
            connected.close();
            throw new IllegalStateException(mismatch);
        }
        return connected;
    }

    @Override
    public long roundTrips() {
        return roundTrips;
    }

    /** After a failure: a new connection, opened by the next attempt. */
    @Override
    public void recover() {
        close();
    }

    @Override
    public void close() {
        if (jedis != null) {
            try {
                jedis.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing a failed Redis connection failed too", e);
            }
            jedis = null;
        }
    }
}
