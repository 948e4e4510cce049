package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.minicluster.FlinkRest.CheckpointTime;
import dev.unread.minicluster.InProcessMetrics;
import dev.unread.minicluster.InProcessMetrics.FlushMillis;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * End-to-end latency of the running job: from handing a message to the Kafka producer to its badge
 * being visible in Redis, under background traffic at a fixed rate below saturation.
 *
 * <p>Probes are messages to users of their own, each from a sender never seen before, so probe k to
 * a user makes that user's badge k: a watcher reading all probe badges every millisecond knows
 * which probes have landed. Probes go through a producer without linger, so the time measured is
 * the pipeline's, not the producer's batching; it includes the Redis sink's flush interval, which
 * bounds how long a count may wait to be written.
 */
final class Latency {

    /** Users the probes go to: few enough for one MGET, enough that each gets a probe rarely. */
    static final int PROBE_USERS = 50;

    /**
     * The first half of the probe users are registered live, so their counts are written every
     * flush interval; the others' wait for the background flush (issue 35).
     */
    static final int LIVE_PROBE_USERS = PROBE_USERS / 2;

    private static final long PROBE_SENDER_BASE = 9_000_000_000_000_000L;
    private static final long WATCH_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** How long a measure waits for its last probes: a probe that lands later is not counted. */
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The probes of one part of the run.
     *
     * @param probes probes sent in it
     * @param landed of those, the ones seen in Redis before the run gave up waiting
     */
    record Window(int probes, int landed, double p50Millis, double p99Millis, double maxMillis) {
        static Window of(double[] latencies, int from, int to) {
            return of(latencies, from, to, probe -> true);
        }

        /** The probes from {@code from} to {@code to} that {@code which} takes. */
        static Window of(double[] latencies, int from, int to, IntPredicate which) {
            int[] probes = IntStream.range(from, to).filter(which).toArray();
            double[] seen =
                    Arrays.stream(probes)
                            .mapToDouble(p -> latencies[p])
                            .filter(l -> !Double.isNaN(l))
                            .toArray();
            if (seen.length == 0) {
                return new Window(probes.length, 0, Double.NaN, Double.NaN, Double.NaN);
            }
            return new Window(
                    probes.length,
                    seen.length,
                    Percentiles.nearestRank(seen, 50),
                    Percentiles.nearestRank(seen, 99),
                    Percentiles.nearestRank(seen, 100));
        }
    }

    /**
     * @param afterRestore the probes sent while the restored job caught up with its first touches
     *     (rewriting every count it meets once, see UnreadCounter) and the JIT compiled it
     * @param steady the probes sent after that: the job as it runs, through its checkpoints
     * @param steadyLive of those, the probes to live users
     * @param steadyOther of those, the probes to users nobody watches
     * @param sustainedRecordsPerSecond the rate the job sustained ({@link SustainedRate}), which
     *     {@code recordsPerSecond} is a share of; NaN when the rate was given
     * @param tail where the live users' slowest probes come from
     */
    record Result(
            double recordsPerSecond,
            Window afterRestore,
            Window steady,
            Window steadyLive,
            Window steadyOther,
            double sustainedRecordsPerSecond,
            Tail tail) {
        int probes() {
            return afterRestore.probes() + steady.probes();
        }

        int landed() {
            return afterRestore.landed() + steady.landed();
        }

        double p50Millis() {
            return steady.p50Millis();
        }

        double p99Millis() {
            return steady.p99Millis();
        }

        double maxMillis() {
            return steady.maxMillis();
        }
    }

    /**
     * The live users' steady probes split by whether a checkpoint was triggered while the probe was
     * on its way (between its send and its landing), with the checkpoints and each Redis sink's
     * flush times beside them: the profile of the tail (issue 35).
     *
     * @param metCheckpoint the live probes in flight when a checkpoint was triggered
     * @param rest the other live probes
     * @param slow the live probes slower than {@link #LIVE_TARGET_MILLIS}
     * @param slowMetCheckpoint of those, the ones in {@code metCheckpoint}
     * @param checkpoints the checkpoints triggered in the steady part
     * @param toKafka the live probes' part from their send to the broker's acknowledgement
     */
    record Tail(
            Window metCheckpoint,
            Window rest,
            Window toKafka,
            int slow,
            int slowMetCheckpoint,
            List<CheckpointTime> checkpoints,
            Map<String, FlushMillis> flushMillis) {}

    /** Issue 35's goal for live users' p99, Kafka to Redis. */
    static final double LIVE_TARGET_MILLIS = 500;

    private Latency() {}

    /**
     * Publishes {@code background}'s records at {@code recordsPerSecond} for {@code warmUp} and
     * then {@code duration}, with {@code probesPerSecond} probes to users from {@code
     * firstProbeUser} up all along, and returns the latency percentiles of the probes sent in each.
     */
    static Result measure(
            UnreadConfig config,
            TrafficGenerator background,
            double recordsPerSecond,
            double probesPerSecond,
            Duration warmUp,
            Duration duration,
            long firstProbeUser,
            double sustainedRecordsPerSecond,
            Callable<List<CheckpointTime>> checkpoints)
            throws Exception {
        registerLiveProbeUsers(config, firstProbeUser);
        int warmUpProbes = (int) (probesPerSecond * warmUp.toMillis() / 1000);
        int probes = warmUpProbes + (int) Math.max(1, probesPerSecond * duration.toMillis() / 1000);
        AtomicLongArray sentAt = new AtomicLongArray(probes);
        long[] sentAtMillis = new long[probes];
        double[] ackMillis = new double[probes];
        Arrays.fill(ackMillis, Double.NaN);
        double[] latencies = new double[probes];
        Arrays.fill(latencies, Double.NaN);
        Watcher watcher = new Watcher(config, firstProbeUser, sentAt, latencies);
        Thread watching = new Thread(watcher, "unread-bench-latency-watcher");
        watching.setDaemon(true);
        watching.start();
        try (TrafficProducer traffic =
                        new TrafficProducer(
                                config.kafkaBootstrap,
                                config.messagesTopic,
                                config.readsTopic,
                                config.conversationsTopic);
                KafkaProducer<byte[], byte[]> probeProducer = probeProducer(config)) {
            traffic.start(background, recordsPerSecond);
            long start = System.nanoTime();
            double nanosPerProbe = 1e9 / probesPerSecond;
            for (int i = 0; i < probes; i++) {
                long due = start + (long) (i * nanosPerProbe);
                LockSupport.parkNanos(due - System.nanoTime());
                ChatEvent probe =
                        ChatEvent.message(
                                PROBE_SENDER_BASE + i,
                                firstProbeUser + i % PROBE_USERS,
                                System.currentTimeMillis());
                long sent = System.nanoTime();
                sentAt.set(i, sent);
                sentAtMillis[i] = System.currentTimeMillis();
                int p = i;
                probeProducer.send(
                        new ProducerRecord<>(
                                config.messagesTopic,
                                ChatEventJson.key(probe),
                                ChatEventJson.value(probe)),
                        (metadata, e) -> {
                            if (e == null) {
                                ackMillis[p] = (System.nanoTime() - sent) / 1e6;
                            }
                        });
            }
            probeProducer.flush();
        }
        int landed = watcher.awaitLanded(probes, SETTLE_TIMEOUT);
        watcher.stop();
        watching.join(TimeUnit.SECONDS.toMillis(5));
        if (landed == 0) {
            throw new IllegalStateException(
                    "none of " + probes + " probes reached Redis in " + SETTLE_TIMEOUT);
        }
        return new Result(
                recordsPerSecond,
                Window.of(latencies, 0, warmUpProbes),
                Window.of(latencies, warmUpProbes, probes),
                Window.of(latencies, warmUpProbes, probes, Latency::toLiveUser),
                Window.of(latencies, warmUpProbes, probes, p -> !toLiveUser(p)),
                sustainedRecordsPerSecond,
                tail(latencies, ackMillis, sentAtMillis, warmUpProbes, checkpoints.call()));
    }

    static Tail tail(
            double[] latencies,
            double[] ackMillis,
            long[] sentAtMillis,
            int from,
            List<CheckpointTime> history) {
        int to = latencies.length;
        long steadyFrom = sentAtMillis[from];
        List<CheckpointTime> checkpoints =
                history.stream().filter(c -> c.triggerMillis() >= steadyFrom).toList();
        IntPredicate met =
                p ->
                        !Double.isNaN(latencies[p])
                                && checkpoints.stream()
                                        .anyMatch(
                                                c ->
                                                        c.triggerMillis() >= sentAtMillis[p]
                                                                && c.triggerMillis()
                                                                        <= sentAtMillis[p]
                                                                                + latencies[p]);
        int[] slow =
                IntStream.range(from, to)
                        .filter(p -> toLiveUser(p) && latencies[p] > LIVE_TARGET_MILLIS)
                        .toArray();
        return new Tail(
                Window.of(latencies, from, to, p -> toLiveUser(p) && met.test(p)),
                Window.of(latencies, from, to, p -> toLiveUser(p) && !met.test(p)),
                Window.of(ackMillis, from, to, Latency::toLiveUser),
                slow.length,
                (int) Arrays.stream(slow).filter(met).count(),
                checkpoints,
                InProcessMetrics.redisFlushMillisByOperator());
    }

    private static boolean toLiveUser(int probe) {
        return probe % PROBE_USERS < LIVE_PROBE_USERS;
    }

    /** For an hour, longer than any run: as the API does for a stream that stays open. */
    private static void registerLiveProbeUsers(UnreadConfig config, long firstProbeUser) {
        double until = System.currentTimeMillis() + 60 * 60 * 1000.0;
        Map<String, Double> live = new HashMap<>();
        for (int u = 0; u < LIVE_PROBE_USERS; u++) {
            live.put(Long.toString(firstProbeUser + u), until);
        }
        try (UnifiedJedis redis =
                config.redisEndpoint()
                        .client("unread-bench-latency", 2000, new ConnectionPoolConfig())) {
            redis.zadd(RedisNames.liveUsersKey(config.redisKeyPrefix), live);
        }
    }

    private static KafkaProducer<byte[], byte[]> probeProducer(UnreadConfig config) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Reads every probe user's badge each millisecond and times each probe that landed. */
    private static final class Watcher implements Runnable {
        private final UnreadConfig config;
        private final String[] keys = new String[PROBE_USERS];
        private final AtomicLongArray sentAt;

        /** Milliseconds from send to visible, by probe; NaN until it landed. */
        private final double[] latencies;

        private final long[] seen = new long[PROBE_USERS];
        private volatile boolean running = true;
        private volatile int landed;
        private volatile Exception failure;

        Watcher(
                UnreadConfig config,
                long firstProbeUser,
                AtomicLongArray sentAt,
                double[] latencies) {
            this.config = config;
            for (int u = 0; u < PROBE_USERS; u++) {
                keys[u] = Count.SENDERS.key(config.redisKeyPrefix, firstProbeUser + u);
            }
            this.sentAt = sentAt;
            this.latencies = latencies;
        }

        @Override
        public void run() {
            try (UnifiedJedis redis =
                    config.redisEndpoint()
                            .client("unread-bench-latency", 2000, new ConnectionPoolConfig())) {
                while (running) {
                    List<String> badges = redis.mget(keys);
                    long now = System.nanoTime();
                    int count = landed;
                    for (int u = 0; u < PROBE_USERS; u++) {
                        String badge = badges.get(u);
                        long value = badge == null ? 0 : Long.parseLong(badge);
                        while (seen[u] < value) {
                            int probe = (int) (seen[u] * PROBE_USERS + u);
                            seen[u]++;
                            if (probe < latencies.length) {
                                latencies[probe] = (now - sentAt.get(probe)) / 1e6;
                                count++;
                            }
                        }
                    }
                    landed = count;
                    LockSupport.parkNanos(WATCH_INTERVAL_NANOS);
                }
            } catch (Exception e) {
                failure = e;
            }
        }

        int awaitLanded(int probes, Duration timeout) throws Exception {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (landed < probes && System.nanoTime() - deadline < 0) {
                if (failure != null) {
                    throw failure;
                }
                Thread.sleep(10);
            }
            return landed;
        }

        void stop() {
            running = false;
        }
    }
}
