package dev.unread.bench;

import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter that keeps hold of one operator's {@code numRecordsIn} counters, so that the
 * benchmark, running the cluster in its own JVM, can read how many events the counting operator
 * has taken in as often as it likes and for free. Reading the same figure through the REST API
 * every few milliseconds made the JobManager's metric fetcher one of the busiest threads of the
 * run it was measuring.
 *
 * <p>Configured as {@code metrics.reporter.<name>.factory.class} with this class's {@link Factory}
 * (found through {@code META-INF/services}), and option {@code operator}: the operator's name.
 */
public final class OperatorInputReporter implements MetricReporter {

    static final String OPERATOR_OPTION = "operator";

    /** Every subtask's counter, over all reporters of this JVM: a bench runs one job at a time. */
    private static final Set<Counter> COUNTERS = ConcurrentHashMap.newKeySet();

    private String operator;

    /** The operator's input so far, summed over its subtasks. */
    static long recordsIn() {
        long sum = 0;
        for (Counter counter : COUNTERS) {
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
        if (isOperatorInput(metric, name, group)) {
            COUNTERS.add((Counter) metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        if (isOperatorInput(metric, name, group)) {
            COUNTERS.remove(metric);
        }
    }

    private boolean isOperatorInput(Metric metric, String name, MetricGroup group) {
        return metric instanceof Counter
                && "numRecordsIn".equals(name)
                && operator.equals(group.getAllVariables().get("<operator_name>"));
    }

    /** Creates the reporter; listed in {@code META-INF/services} for Flink to find. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new OperatorInputReporter();
        }
    }
}
