package dev.unread.bench;

import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * Live push under load (issue 14): one API instance ({@link StateQueryApi}) as a process of its
 * own, {@code streams} concurrent SSE streams of the JDK's HttpClient from this JVM, while the job
 * (restored from the full run's savepoint) runs the full traffic at a fixed rate, and before it,
 * with the same streams, at a lighter one when asked (issue 46 sets its goal at 0.7× the sustained
 * rate and reports 0.8×).
 *
 * <p>Memory per connection: the API process's resident set ({@code VmRSS}) and its live heap (the
 * total of {@code jcmd GC.class_histogram}, which collects first) before the first stream and once
 * every stream has its snapshot, over the streams. Latency: a subscriber of this JVM notes when
 * each UNREAD_CHANGED reaches Redis' Pub/Sub (the job publishes it in the flush that writes the
 * count); each stream notes when its next change reaches it, and its latency runs from the first
 * publication for its user after the stream's previous change: the stream's version is the API's
 * own, so a change is known by its order, not by the job's version. Both on this JVM's clock.
 */
public final class LiveLoad {

    /** File descriptors the bench keeps besides the streams: broker, MiniCluster, RocksDB. */
    private static final int FD_RESERVE = 3000;

    /** Streams opened before waiting for their snapshots: the server's accept queue is short. */
    private static final int WAVE = 250;

    private static final Duration STARTUP = Duration.ofMinutes(1);
    private static final Duration SNAPSHOTS = Duration.ofMinutes(3);
    private static final Duration DRAIN = Duration.ofSeconds(5);
    private static final Duration CATCH_UP = Duration.ofMinutes(5);

    /**
     * @param streams concurrent streams asked for
     * @param duration how long the traffic runs with every stream open
     */
    public record Options(int streams, Duration duration) {}

    /** The streams at the rate asked, and before it at the lighter rate (null when not asked). */
    record Measured(Result result, Result lighter) {}

    record Result(
            int requested,
            int streams,
            long openFilesLimit,
            int users,
            int failed,
            double recordsPerSecond,
            long rssBefore,
            long rssAfter,
            long heapBefore,
            long heapAfter,
            long published,
            long expected,
            long delivered,
            double p50Millis,
            double p99Millis,
            double maxMillis,
            long messages,
            Map<String, Long> callsByCommand,
            long redisCpuNanos) {
        /** Redis commands per message of the traffic while the streams were open, server-wide. */
        double commandsPerMessage() {
            long calls = callsByCommand.values().stream().mapToLong(Long::longValue).sum();
            return messages == 0 ? 0 : (double) calls / messages;
        }

        double redisCpuMicrosPerMessage() {
            return messages == 0 ? 0 : redisCpuNanos / 1e3 / messages;
        }

        double rssPerStream() {
            return (double) (rssAfter - rssBefore) / streams;
        }

        double heapPerStream() {
            return (double) (heapAfter - heapBefore) / streams;
        }
    }

    /** One UNREAD_CHANGED: a user's counts at a version. */
    private record Change(long user, long version) {}

    private final Map<Change, Long> publishedAt = new ConcurrentHashMap<>();

    /** Per user, when each of its changes was published, in order (one subscriber thread). */
    private final Map<Long, List<Long>> publishTimes = new ConcurrentHashMap<>();

    /** Per change a stream received: its user, when its previous change came, when it came. */
    private final ConcurrentLinkedQueue<long[]> seen = new ConcurrentLinkedQueue<>();

    private final AtomicLong snapshots = new AtomicLong();
    private final AtomicLong ended = new AtomicLong();
    private final List<Flow.Subscription> subscriptions = new ArrayList<>();

    private LiveLoad() {}

    /**
     * The streams under traffic at {@code recordsPerSecond}, and first at {@code lighterRate} when
     * it is above 0: the lighter rate first, as the latency run measures, so that the job is caught
     * up when it starts.
     */
    static Measured run(
            Bench bench,
            Options options,
            UnreadConfig config,
            TrafficGenerator traffic,
            double recordsPerSecond,
            double lighterRate,
            String savepoint,
            Path dataDir)
            throws Exception {
        return new LiveLoad()
                .measure(
                        bench,
                        options,
                        config,
                        traffic,
                        recordsPerSecond,
                        lighterRate,
                        savepoint,
                        dataDir);
    }

    private Measured measure(
            Bench bench,
            Options options,
            UnreadConfig config,
            TrafficGenerator traffic,
            double recordsPerSecond,
            double lighterRate,
            String savepoint,
            Path dataDir)
            throws Exception {
        long limit = openFilesLimit();
        int streams =
                (int) Math.max(1, Math.min(options.streams(), limit - openFiles() - FD_RESERVE));
        int users = Math.min(streams, traffic.workload().receivers());
        long[] userIds = new long[users];
        for (int i = 0; i < users; i++) {
            userIds[i] = traffic.receiverOfRank(i);
        }
        bench.say(
                "live push: %,d SSE streams (%,d asked, open files limit %,d) on one API process",
                streams, options.streams(), limit);
        Files.createDirectories(dataDir);
        Process api = startApi(config, dataDir, streams, (streams + users - 1) / users);
        ExecutorService clientThreads = Executors.newFixedThreadPool(2);
        try (UnifiedJedis redis =
                        config.redisEndpoint()
                                .client("unread-bench-live", 10_000, new ConnectionPoolConfig());
                JobRun job = bench.startJob(config, savepoint)) {
            int port = awaitListening(api, dataDir);
            JedisPubSub subscriber = subscribe(redis, config.redisKeyPrefix);
            job.awaitRunning(Duration.ofMinutes(2));
            awaitCaughtUp(job);
            long rssBefore = rss(api.pid());
            long heapBefore = liveHeap(api.pid());
            HttpClient client =
                    HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .executor(clientThreads)
                            .connectTimeout(Duration.ofSeconds(30))
                            .build();
            int failed = open(client, port, userIds, streams);
            long rssAfter = rss(api.pid());
            long heapAfter = liveHeap(api.pid());
            Opened opened =
                    new Opened(
                            options.streams(),
                            streams,
                            limit,
                            users,
                            failed,
                            rssBefore,
                            rssAfter,
                            heapBefore,
                            heapAfter,
                            userIds);
            Result lighter =
                    lighterRate > 0
                            ? result(
                                    opened,
                                    lighterRate,
                                    traffic(bench, options, config, traffic, lighterRate, opened))
                            : null;
            Result result =
                    result(
                            opened,
                            recordsPerSecond,
                            traffic(bench, options, config, traffic, recordsPerSecond, opened));
            subscriber.punsubscribe();
            return new Measured(result, lighter);
        } finally {
            synchronized (subscriptions) {
                subscriptions.forEach(Flow.Subscription::cancel);
            }
            clientThreads.shutdownNow();
            api.destroy();
            if (!api.waitFor(30, TimeUnit.SECONDS)) {
                api.destroyForcibly();
            }
        }
    }

    /**
     * Runs {@code traffic} at {@code rate} for the options' duration with the streams open, from a
     * clean slate of what the streams and this JVM's subscriber saw; returns what it cost Redis
     * once the streams are quiet (the job's flushes of the last records are in).
     */
    private Cost traffic(
            Bench bench,
            Options options,
            UnreadConfig config,
            TrafficGenerator traffic,
            double rate,
            Opened opened)
            throws Exception {
        bench.say(
                "  %,d streams open (%,d failed); traffic at %,.0f records/s for %d s",
                opened.open(), opened.failed(), rate, options.duration().toSeconds());
        publishedAt.clear();
        publishTimes.clear();
        seen.clear();
        long messagesBefore = traffic.messages();
        Map<String, Long> callsBefore = RedisKeys.calls(config.redisEndpoint());
        long cpuBefore = RedisKeys.cpuNanos(config.redisEndpoint());
        try (TrafficProducer producer =
                new TrafficProducer(
                        config.kafkaBootstrap,
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic)) {
            producer.start(traffic, rate);
            Thread.sleep(options.duration().toMillis());
        }
        drain();
        return new Cost(
                traffic.messages() - messagesBefore,
                RedisKeys.callsBetween(callsBefore, RedisKeys.calls(config.redisEndpoint())),
                RedisKeys.cpuNanos(config.redisEndpoint()) - cpuBefore);
    }

    /**
     * The streams as opened, before any traffic: how many were asked and opened over which users,
     * and the API process's memory before and with them.
     */
    private record Opened(
            int requested,
            int streams,
            long openFilesLimit,
            int users,
            int failed,
            long rssBefore,
            long rssAfter,
            long heapBefore,
            long heapAfter,
            long[] userIds) {
        int open() {
            return streams - failed;
        }
    }

    private Result result(Opened opened, double rate, Cost measured) {
        long[] userIds = opened.userIds();
        Map<Long, Integer> streamsPerUser = new HashMap<>();
        for (int i = 0; i < opened.open(); i++) {
            streamsPerUser.merge(userIds[i % userIds.length], 1, Integer::sum);
        }
        long published = 0;
        long expected = 0;
        for (Change change : publishedAt.keySet()) {
            int n = streamsPerUser.getOrDefault(change.user(), 0);
            if (n > 0) {
                published++;
                expected += n;
            }
        }
        List<Double> latencies = new ArrayList<>();
        for (long[] event : seen) {
            long at = firstPublishedAfter(event[0], event[1]);
            if (at != Long.MIN_VALUE) {
                // The stream can be read before this JVM's own subscriber: no negative latency.
                latencies.add(Math.max(0, event[2] - at) / 1e6);
            }
        }
        double[] values = latencies.stream().mapToDouble(Double::doubleValue).toArray();
        boolean any = values.length > 0;
        return new Result(
                opened.requested(),
                opened.streams(),
                opened.openFilesLimit(),
                opened.users(),
                opened.failed(),
                rate,
                opened.rssBefore(),
                opened.rssAfter(),
                opened.heapBefore(),
                opened.heapAfter(),
                published,
                expected,
                values.length,
                any ? Percentiles.nearestRank(values, 50) : 0,
                any ? Percentiles.nearestRank(values, 99) : 0,
                any ? Percentiles.nearestRank(values, 100) : 0,
                measured.messages(),
                measured.callsByCommand(),
                measured.redisCpuNanos());
    }

    /** What the traffic cost Redis while the streams were open. */
    private record Cost(long messages, Map<String, Long> callsByCommand, long redisCpuNanos) {}

    /** Opens the streams in waves, each waiting for its snapshots; returns how many failed. */
    private int open(HttpClient client, int port, long[] userIds, int streams) throws Exception {
        for (int i = 0; i < streams; i += WAVE) {
            int wave = Math.min(WAVE, streams - i);
            for (int j = i; j < i + wave; j++) {
                long user = userIds[j % userIds.length];
                HttpRequest request =
                        HttpRequest.newBuilder(
                                        URI.create(
                                                "http://127.0.0.1:"
                                                        + port
                                                        + StateQueryApi.eventsPath(user)))
                                .header("Accept", "text/event-stream")
                                .build();
                client.sendAsync(
                                request,
                                HttpResponse.BodyHandlers.fromLineSubscriber(new Lines(user)))
                        .whenComplete(
                                (response, e) -> {
                                    if (e != null || response.statusCode() != 200) {
                                        ended.incrementAndGet();
                                    }
                                });
            }
            long deadline = System.nanoTime() + SNAPSHOTS.toNanos();
            while (snapshots.get() + ended.get() < i + wave) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            "only "
                                    + snapshots.get()
                                    + " of "
                                    + (i + wave)
                                    + " streams had their snapshot after "
                                    + SNAPSHOTS);
                }
                Thread.sleep(10);
            }
        }
        return (int) ended.get();
    }

    /**
     * Waits until the job has read what earlier runs published after its savepoint (the latency
     * run's traffic), so that the streams see the job at the rate given, not catching up.
     */
    private static void awaitCaughtUp(JobRun job) throws Exception {
        if (!settles(job::counterRecordsIn, Duration.ofSeconds(2), CATCH_UP)) {
            throw new IllegalStateException("the job still read its backlog after " + CATCH_UP);
        }
    }

    /** Waits until the streams have been quiet for a second, at most {@link #DRAIN}. */
    private void drain() throws Exception {
        settles(() -> (long) seen.size(), Duration.ofSeconds(1), DRAIN);
    }

    /**
     * Reads {@code counter} every {@code pause} until two readings in a row agree, for at most
     * {@code limit}.
     *
     * @return whether it stopped moving within {@code limit}
     */
    private static boolean settles(Callable<Long> counter, Duration pause, Duration limit)
            throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        long before = -1;
        while (System.nanoTime() - deadline < 0) {
            long now = counter.call();
            if (now == before) {
                return true;
            }
            before = now;
            Thread.sleep(pause.toMillis());
        }
        return false;
    }

    /** When {@code user}'s first change after {@code after} was published; MIN_VALUE if none. */
    private long firstPublishedAfter(long user, long after) {
        List<Long> times = publishTimes.getOrDefault(user, List.of());
        synchronized (times) {
            for (long time : times) {
                if (time > after) {
                    return time;
                }
            }
        }
        return Long.MIN_VALUE;
    }

    /** A stream's lines: the snapshot counted, each UNREAD_CHANGED noted with when it came. */
    private final class Lines implements Flow.Subscriber<String> {
        private final long user;

        /** When the stream's previous change came (its subscription at first). */
        private long previous = System.nanoTime();

        Lines(long user) {
            this.user = user;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            synchronized (subscriptions) {
                subscriptions.add(subscription);
            }
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (!line.startsWith("data:")) {
                return;
            }
            if (line.contains('"' + MessageTypes.UNREAD_CHANGED + '"')) {
                long now = System.nanoTime();
                seen.add(new long[] {user, previous, now});
                previous = now;
            } else if (line.contains('"' + MessageTypes.SNAPSHOT + '"')) {
                snapshots.incrementAndGet();
            }
        }

        /** A stream that fails or ends is counted where its response completes. */
        @Override
        public void onError(Throwable throwable) {}

        @Override
        public void onComplete() {}
    }

    private JedisPubSub subscribe(UnifiedJedis redis, String prefix) throws InterruptedException {
        String pattern = RedisKeys.glob(prefix + RedisNames.UNREAD_CHANGED) + "*";
        int userAt = (prefix + RedisNames.UNREAD_CHANGED).length();
        CountDownLatch subscribed = new CountDownLatch(1);
        JedisPubSub pubSub =
                new JedisPubSub() {
                    @Override
                    public void onPMessage(String p, String channel, String message) {
                        long now = System.nanoTime();
                        long user = Long.parseLong(channel.substring(userAt));
                        publishedAt.putIfAbsent(new Change(user, version(message)), now);
                        publishTimes
                                .computeIfAbsent(
                                        user, u -> Collections.synchronizedList(new ArrayList<>()))
                                .add(now);
                    }

                    @Override
                    public void onPSubscribe(String p, int count) {
                        subscribed.countDown();
                    }
                };
        Thread thread = new Thread(() -> redis.psubscribe(pubSub, pattern), "bench-live-changes");
        thread.setDaemon(true);
        thread.start();
        if (!subscribed.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("PSUBSCRIBE " + pattern + " not confirmed");
        }
        return pubSub;
    }

    /** The {@code version} field of an UNREAD_CHANGED message, without a JSON parser per line. */
    static long version(String json) {
        int at = json.indexOf("\"version\":");
        if (at < 0) {
            return -1;
        }
        long version = 0;
        for (int i = at + "\"version\":".length(); i < json.length(); i++) {
            char c = json.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            version = version * 10 + (c - '0');
        }
        return version;
    }

    /**
     * The API as a process of its own, configured as its README says, on a free port, with room for
     * {@code streams} streams, {@code perUser} of them a user's.
     */
    private static Process startApi(UnreadConfig config, Path dir, int streams, int perUser)
            throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String java =
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder builder =
                new ProcessBuilder(
                                java,
                                "-Xmx2g",
                                "-cp",
                                System.getProperty("java.class.path"),
                                StateQueryApi.class.getName())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("api.log").toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("UNREAD_"));
        env.putAll(ApiConfig.besideJob(config::value, config.jdbcPassword, Map.of()));
        env.put(ApiConfig.HOST_ENV, "127.0.0.1");
        env.put(ApiConfig.PORT_ENV, String.valueOf(port));
        env.put(ApiConfig.STREAM_MAX_TOTAL.env(), String.valueOf(streams));
        env.put(ApiConfig.STREAM_MAX_PER_USER.env(), String.valueOf(perUser));
        // One machine opens every stream, as fast as it can: the opens are the load measured.
        env.put(ApiConfig.USER_STREAM_OPENS_PER_MINUTE.env(), "0");
        env.put(ApiConfig.ADDRESS_REQUESTS_PER_SECOND.env(), "0");
        return builder.start();
    }

    /** Waits for the API's ready line; returns its port. */
    private static int awaitListening(Process api, Path dir) throws Exception {
        Path log = dir.resolve("api.log");
        String ready = "unread API listening on http://127.0.0.1:";
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (true) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith(ready)) {
                        // The logger's line says the same, followed by the configuration.
                        return Integer.parseInt(line.substring(ready.length()).split("\\D", 2)[0]);
                    }
                }
            }
            if (!api.isAlive() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the API did not start; see " + log);
            }
            Thread.sleep(100);
        }
    }

    /** The process's resident set, in bytes. */
    private static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS for process " + pid);
    }

    /** The process's live heap in bytes: {@code GC.class_histogram} collects, then counts. */
    private static long liveHeap(long pid) throws Exception {
        Process jcmd =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                                String.valueOf(pid),
                                "GC.class_histogram")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(jcmd.getInputStream().readAllBytes());
        if (jcmd.waitFor() != 0) {
            throw new IllegalStateException("jcmd failed: " + out);
        }
        for (String line : out.lines().toList()) {
            if (line.startsWith("Total")) {
                String[] fields = line.trim().split("\\s+");
                return Long.parseLong(fields[2]);
            }
        }
        throw new IllegalStateException("no Total in jcmd GC.class_histogram: " + out);
    }

    /** The soft limit on open files of this JVM (the API process inherits the same). */
    private static long openFilesLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return Long.MAX_VALUE;
    }

    private static long openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
