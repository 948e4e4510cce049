package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API as the one producer of a stream's counts (docs/contract.md, "Live push"): the job's
 * UNREAD_CHANGED leaves the channels out, so a stream gets its snapshot, then, whenever a notice
 * says its user's counts may have changed (the job's UNREAD_CHANGED, a TRACK_CHANGED, a channel's
 * CHANNEL_CHANGED), the counts read again with the recipe and what changed, under the API's
 * version; the job's UNREAD_CHANGED of a user with no channel is merged without a read ({@link
 * StreamCounts#jobChanged}). Reads run on a pool of their own, off the subscriber threads; a stream
 * has at most one read queued or under way ({@link StreamCounts}), so the pool's queue is bounded
 * by the streams.
 */
final class CountPush implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CountPush.class);

    private final RedisUnread redis;
    private final ChannelReads channelReads;
    private final ObjectMapper json;
    private final ExecutorService readers;
    private final int timeoutMs;

    /** The lock of {@link LiveStreams}, which guards {@link #users} and {@link #channels}. */
    private final Object lock;

    private final StreamUsers users;
    private final ChannelWatch channels;

    /** Where a channel followed later asks for its read, off the thread that holds the lock. */
    private final Executor timer;

    /** The API's version: microseconds since the epoch, one more when the clock has not moved. */
    private final AtomicLong version = new AtomicLong();

    CountPush(
            ApiConfig config,
            RedisUnread redis,
            ObjectMapper json,
            Object lock,
            StreamUsers users,
            ChannelWatch channels,
            Executor timer) {
        this.redis = redis;
        this.channelReads = new ChannelReads(redis, config.redisKeyPrefix);
        this.json = json;
        this.timeoutMs = config.timeoutMs;
        this.lock = lock;
        this.users = users;
        this.channels = channels;
        this.timer = timer;
        AtomicInteger count = new AtomicInteger();
        this.readers =
                Executors.newFixedThreadPool(
                        config.streamSenderThreads,
                        r -> {
                            Thread thread =
                                    new Thread(
                                            r, "unread-stream-counts-" + count.incrementAndGet());
                            thread.setDaemon(true);
                            return thread;
                        });
    }

    /**
     * Queues {@code client}'s snapshot, its user's own channels subscribed already: the user's
     * channels are followed before their versions and the counts are read, so a notice not above
     * the version read is in the snapshot, and a later one makes a read.
     */
    void start(StreamClient client)
            throws InterruptedException, ExecutionException, TimeoutException {
        Set<Long> tracked = channelReads.channels(client.userId);
        CompletableFuture<Void> followed;
        synchronized (lock) {
            // A user forgotten meanwhile (erased, cut off) would keep its channels for good.
            followed =
                    users.has(client.userId)
                            ? channels.add(client.userId, tracked)
                            : CompletableFuture.completedFuture(null);
        }
        followed.get(timeoutMs, TimeUnit.MILLISECONDS);
        Map<Long, Long> versions = channelReads.versions(tracked);
        CountAnswers.Snapshot snapshot = redis.snapshot(client.userId);
        long next = nextVersion();
        StreamCounts.Start start = client.counts.start(snapshot, versions, next, json);
        client.start(start.message(), next);
        if (start.read()) {
            read(client);
        }
    }

    /**
     * The job's UNREAD_CHANGED {@code message} of {@code userId}: merged into what a stream of a
     * user with no channel holds, else a reason to read the counts again.
     */
    void jobChanged(long userId, JsonNode message) {
        long jobVersion = message.path("version").asLong(0);
        for (StreamClient client : clientsOf(List.of(userId))) {
            StreamCounts.Job job =
                    client.counts.jobChanged(jobVersion, message, this::nextVersion, json);
            if (job.message() != null) {
                client.deliver(job.message());
                if (client.counts.again()) {
                    read(client);
                }
            } else if (job.read()) {
                read(client);
            }
        }
    }

    /** A CHANNEL_CHANGED of {@code channelId} at index version {@code indexVersion}. */
    void channelChanged(long channelId, long indexVersion) {
        List<StreamClient> targets;
        synchronized (lock) {
            targets = clientsOfLocked(channels.users(channelId));
        }
        targets.stream()
                .filter(client -> client.counts.channelChanged(channelId, indexVersion))
                .forEach(this::read);
    }

    /**
     * The user's track of {@code channelId} changed: its streams read their counts again, and a
     * channel the user joined since its streams opened is followed first, so that no message of it
     * falls between the read and the subscription.
     */
    void trackChanged(long userId, long channelId) {
        List<StreamClient> targets;
        CompletableFuture<Void> followed = CompletableFuture.completedFuture(null);
        synchronized (lock) {
            targets = users.of(userId);
            if (channelId > 0 && users.has(userId) && !channels.follows(userId, channelId)) {
                followed = channels.add(userId, List.of(channelId));
            }
        }
        // Not on the thread that completes it, which holds the lock: a cut-off takes the client's.
        followed.whenCompleteAsync(
                (ok, failed) -> {
                    if (failed != null) {
                        // Its notices may be missed: the streams start over from a snapshot.
                        targets.forEach(StreamClient::cutOff);
                        return;
                    }
                    targets.stream()
                            .filter(client -> client.counts.trackChanged())
                            .forEach(this::read);
                },
                timer);
    }

    private List<StreamClient> clientsOf(Collection<Long> userIds) {
        synchronized (lock) {
            return clientsOfLocked(userIds);
        }
    }

    private List<StreamClient> clientsOfLocked(Collection<Long> userIds) {
        List<StreamClient> clients = new ArrayList<>();
        userIds.forEach(userId -> clients.addAll(users.of(userId)));
        return clients;
    }

    /**
     * The next version of a message to a stream: above every one before, across this instance's
     * streams, and above what an instance that ran before it handed out (the clock moved on); below
     * 2^53.
     */
    private long nextVersion() {
        long now = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
        return version.accumulateAndGet(now, (last, clock) -> Math.max(last + 1, clock));
    }

    /** Queues a read of {@code client}'s counts; its {@link StreamCounts} asked for one. */
    private void read(StreamClient client) {
        try {
            readers.execute(() -> readAll(client));
        } catch (RejectedExecutionException closing) {
            // Closing: every stream ends.
        }
    }

    private void readAll(StreamClient client) {
        StreamCounts counts = client.counts;
        do {
            counts.reading();
            CountAnswers.Snapshot read;
            try {
                read = redis.snapshot(client.userId);
            } catch (RuntimeException e) {
                // The client may now miss a change: it reconnects and gets a fresh snapshot.
                LOG.warn(
                        "could not read user {}'s counts for its stream: {}",
                        client.userId,
                        e.toString());
                client.cutOff();
                return;
            }
            long next = nextVersion();
            String message = counts.changes(read, next, json);
            if (message != null) {
                client.deliver(new StreamClient.Message(true, next, message));
            }
        } while (counts.again());
    }

    @Override
    public void close() {
        readers.shutdownNow();
        try {
            readers.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
