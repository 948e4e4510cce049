package dev.unread.minicluster;

import dev.unread.channels.ChannelStage;
import dev.unread.sinks.RedisCounts;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter that keeps hold of the counters the developer kit reads while a job runs in its
 * own JVM: one operator's {@code numRecordsIn}, and the Redis sinks' commands, coalesced updates,
 * flushes and round trips. The local stack's progress line and the benchmark read them as often as
 * they like and for free; reading the same figures through the REST API every few milliseconds made
 * the JobManager's metric fetcher one of the busiest threads of the run it was measuring.
 *
 * <p>Configured as {@code metrics.reporter.<name>.factory.class} with this class's {@link Factory}
 * (found through {@code META-INF/services}), and option {@code operator}: the operator's name.
 */
public final class InProcessMetrics implements MetricReporter {

    public static final String OPERATOR_OPTION = "operator";

    private static final String RECORDS_IN = "numRecordsIn";

    /** Every subtask's counters by metric name, over all reporters of this JVM. */
    private static final Map<String, Set<Counter>> COUNTERS = new ConcurrentHashMap<>();

    /**
     * Every operator's input counters by operator name: a run that ends on another operator's input
     * than the configured one (the channel stage's, whose messages never reach the counter) reads
     * it here, on the cluster the other runs share.
     */
    private static final Map<String, Set<Counter>> RECORDS_IN_BY_OPERATOR =
            new ConcurrentHashMap<>();

    /** Every subtask's counter of Redis commands, by the name of the operator that sent them. */
    private static final Map<String, Set<Counter>> COMMANDS_BY_OPERATOR = new ConcurrentHashMap<>();

    /** Every subtask's histogram of Redis flush times, by the name of the sink's operator. */
    private static final Map<String, Set<Histogram>> FLUSH_MILLIS_BY_OPERATOR =
            new ConcurrentHashMap<>();

    private static final String OPERATOR_NAME = "<operator_name>";

    /**
     * A sink's flush times in Redis over the flushes its histograms keep, the worst subtask's
     * percentile of each.
     */
    public record FlushMillis(double p50, double p99, long max, long flushes) {}

    private String operator;

    /**
     * Forgets every counter kept so far: a new cluster's or job's figures start from 0, not from
     * the total of those this JVM ran before (the bench runs several jobs one after another).
     */
    public static void reset() {
        COUNTERS.clear();
        RECORDS_IN_BY_OPERATOR.clear();
        COMMANDS_BY_OPERATOR.clear();
        FLUSH_MILLIS_BY_OPERATOR.clear();
    }

    /** The operator's input so far, summed over its subtasks. */
    public static long recordsIn() {
        return sum(RECORDS_IN);
    }

    /** The input so far of the operator named {@code operator}, summed over its subtasks. */
    public static long recordsIn(String operator) {
        return sum(RECORDS_IN_BY_OPERATOR.getOrDefault(operator, Set.of()));
    }

    /** Redis commands the sinks sent and Redis acknowledged, over all sink subtasks. */
    public static long redisCommands() {
        return sum(RedisCounts.COMMANDS_METRIC);
    }

    /**
     * Redis commands by the sink that sent them (its writer's operator name, as the web UI shows
     * it), over its subtasks.
     */
    public static Map<String, Long> redisCommandsByOperator() {
        Map<String, Long> byOperator = new TreeMap<>();
        COMMANDS_BY_OPERATOR.forEach((name, counters) -> byOperator.put(name, sum(counters)));
        return byOperator;
    }

    /**
     * Each Redis sink's recent flush times ({@link RedisCounts#FLUSH_MILLIS_METRIC}), by its
     * writer's operator name: what a count waits for once its flush has begun.
     */
    public static Map<String, FlushMillis> redisFlushMillisByOperator() {
        Map<String, FlushMillis> byOperator = new TreeMap<>();
        FLUSH_MILLIS_BY_OPERATOR.forEach(
                (name, histograms) -> {
                    double p50 = 0;
                    double p99 = 0;
                    long max = 0;
                    long flushes = 0;
                    for (Histogram histogram : histograms) {
                        HistogramStatistics stats = histogram.getStatistics();
                        p50 = Math.max(p50, stats.getQuantile(0.5));
                        p99 = Math.max(p99, stats.getQuantile(0.99));
                        max = Math.max(max, stats.getMax());
                        flushes += stats.size();
                    }
                    byOperator.put(name, new FlushMillis(p50, p99, max, flushes));
                });
        return byOperator;
    }

    /**
     * What the Redis sinks' removals named that Redis did not hold, each alone a command that
     * changed nothing ({@link RedisCounts#UNCHANGED_METRIC}).
     */
    public static long redisUnchanged() {
        return sum(RedisCounts.UNCHANGED_METRIC);
    }

    /**
     * The channel stage's writes of channels' indexes ({@link ChannelStage#INDEX_WRITES_METRIC}).
     */
    public static long channelIndexWrites() {
        return sum(ChannelStage.INDEX_WRITES_METRIC);
    }

    /** Members' tracks the channel stage wrote ({@link ChannelStage#TRACK_WRITES_METRIC}). */
    public static long channelTrackWrites() {
        return sum(ChannelStage.TRACK_WRITES_METRIC);
    }

    /** Updates that cost no Redis command: a later update of the same key replaced them. */
    public static long redisCoalescedUpdates() {
        return sum(RedisCounts.COALESCED_METRIC);
    }

    /** Buffers the Redis sinks sent, over all sink subtasks. */
    public static long redisFlushes() {
        return sum(RedisCounts.FLUSHES_METRIC);
    }

    /** Pipelined exchanges of the Redis sinks with a node (per node on a cluster). */
    public static long redisRoundTrips() {
        return sum(RedisCounts.ROUND_TRIPS_METRIC);
    }

    private static long sum(String name) {
        return sum(COUNTERS.getOrDefault(name, Set.of()));
    }

    private static long sum(Set<Counter> counters) {
        long sum = 0;
        for (Counter counter : counters) {
            sum += counter.getCount();
        }
        return sum;
    }

    @Override
    public void open(MetricConfig config) {
        operator = config.getString(OPERATOR_OPTION, "");
    }

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Histogram histogram && RedisCounts.FLUSH_MILLIS_METRIC.equals(name)) {
            FLUSH_MILLIS_BY_OPERATOR
                    .computeIfAbsent(operatorName(group), n -> ConcurrentHashMap.newKeySet())
                    .add(histogram);
            return;
        }
        if (metric instanceof Counter counter && RECORDS_IN.equals(name)) {
            RECORDS_IN_BY_OPERATOR
                    .computeIfAbsent(operatorName(group), n -> ConcurrentHashMap.newKeySet())
                    .add(counter);
        }
        if (isKept(metric, name, group)) {
            COUNTERS.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet())
                    .add((Counter) metric);
            if (RedisCounts.COMMANDS_METRIC.equals(name)) {
                COMMANDS_BY_OPERATOR
                        .computeIfAbsent(operatorName(group), n -> ConcurrentHashMap.newKeySet())
                        .add((Counter) metric);
            }
        }
    }

    private static String operatorName(MetricGroup group) {
        return group.getAllVariables().getOrDefault(OPERATOR_NAME, "?");
    }

    /** Kept: a finished or restarted task's counts stay in the totals the kit reports. */
    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    private boolean isKept(Metric metric, String name, MetricGroup group) {
        if (!(metric instanceof Counter)) {
            return false;
        }
        if (RECORDS_IN.equals(name)) {
            return operator.equals(group.getAllVariables().get(OPERATOR_NAME));
        }
        return RedisCounts.COMMANDS_METRIC.equals(name)
                || RedisCounts.COALESCED_METRIC.equals(name)
                || RedisCounts.UNCHANGED_METRIC.equals(name)
                || RedisCounts.FLUSHES_METRIC.equals(name)
                || RedisCounts.ROUND_TRIPS_METRIC.equals(name)
                || ChannelStage.INDEX_WRITES_METRIC.equals(name)
                || ChannelStage.TRACK_WRITES_METRIC.equals(name);
    }

    /** Creates the reporter; listed in {@code META-INF/services} for Flink to find. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new InProcessMetrics();
        }
    }
}
