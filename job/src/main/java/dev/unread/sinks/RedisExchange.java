package dev.unread.sinks;

import java.util.List;

/**
 * How a {@link RedisConnection} reaches Redis: batches of commands pipelined to a single node
 * ({@link NodeExchange}) or to the primaries of a Redis Cluster ({@link ClusterExchange}). Opened
 * on first use, which puts the first connect under the connection's retries as everything else.
 * Used from the writer's single thread only.
 */
interface RedisExchange extends AutoCloseable {

    /**
     * Each command's reply, in order: its value, or the JedisException Redis refused it with.
     * Throws a JedisException when the batch as a whole failed, for the connection to retry.
     */
    List<Object> exchange(List<RedisConnection.Command> batch);

    /** Pipelined exchanges with a node so far, retries included: a cluster batch, one per node. */
    long roundTrips();

    /** After a failed attempt that is retried: whatever the next attempt needs to succeed. */
    void recover();

    /** Drops the connections; the next exchange opens them again. */
    @Override
    void close();
}
