package dev.unread.sinks;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfo;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.runtime.tasks.TestProcessingTimeService;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * What a sink writer gets from Flink, for driving a writer without a cluster: processing time that
 * moves only when the test says so (timers fire in the test's thread) and a metric group that keeps
 * the counters and histograms registered on it.
 */
final class TestWriterContext implements WriterInitContext {
    private final TestProcessingTimeService time = new TestProcessingTimeService();
    private final RecordingMetricGroup metrics = new RecordingMetricGroup();
    private final TypeSerializer<?> inputSerializer;
    private OptionalLong restoredFrom = OptionalLong.empty();
    private TaskInfo task = new TaskInfoImpl("test sink", 1, 0, 1, 0);

    /** For the Redis writers, which copy no records. */
    TestWriterContext() {
        this(null);
    }

    /** For a writer that copies its records with {@code inputSerializer} (the JDBC connector's). */
    TestWriterContext(TypeSerializer<?> inputSerializer) {
        this.inputSerializer = inputSerializer;
    }

    /** The writer starts from checkpoint {@code checkpointId}, as after a restore. */
    TestWriterContext restoredFrom(long checkpointId) {
        restoredFrom = OptionalLong.of(checkpointId);
        return this;
    }

    /** The writer is subtask {@code index} of {@code parallelism}, over {@code maxParallelism}. */
    TestWriterContext subtask(int index, int parallelism, int maxParallelism) {
        task = new TaskInfoImpl("test sink", maxParallelism, index, parallelism, 0);
        return this;
    }

    /** Moves processing time forward, firing the timers that fall due. */
    void advance(long ms) throws Exception {
        time.advance(ms);
    }

    /** The value of the counter the writer registered as {@code name}. */
    long counter(String name) {
        Counter counter = metrics.counters.get(name);
        if (counter == null) {
            throw new AssertionError("no counter " + name + " in " + metrics.counters.keySet());
        }
        return counter.getCount();
    }

    /** The histogram the writer registered as {@code name}. */
    Histogram histogram(String name) {
        Histogram histogram = metrics.histograms.get(name);
        if (histogram == null) {
            throw new AssertionError("no histogram " + name + " in " + metrics.histograms.keySet());
        }
        return histogram;
    }

    @Override
    public ProcessingTimeService getProcessingTimeService() {
        return time;
    }

    @Override
    public SinkWriterMetricGroup metricGroup() {
        return metrics;
    }

    @Override
    public boolean isObjectReuseEnabled() {
        // As in the job.
        return true;
    }

    @Override
    public UserCodeClassLoader getUserCodeClassLoader() {
        return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
    }

    @Override
    public MailboxExecutor getMailboxExecutor() {
        throw new UnsupportedOperationException("the Redis writers run everything in write/flush");
    }

    @Override
    public SerializationSchema.InitializationContext asSerializationSchemaInitializationContext() {
        throw new UnsupportedOperationException("the Redis writers use no serialization schema");
    }

    @Override
    @SuppressWarnings("unchecked")
    public <IN> TypeSerializer<IN> createInputSerializer() {
        if (inputSerializer == null) {
            throw new UnsupportedOperationException("the Redis writers copy no records");
        }
        return (TypeSerializer<IN>) inputSerializer.duplicate();
    }

    @Override
    public OptionalLong getRestoredCheckpointId() {
        return restoredFrom;
    }

    @Override
    public JobInfo getJobInfo() {
        return new JobInfoImpl(new JobID(), "test job");
    }

    @Override
    public TaskInfo getTaskInfo() {
        return task;
    }

    private static final class RecordingMetricGroup extends UnregisteredMetricsGroup
            implements SinkWriterMetricGroup {
        final Map<String, Counter> counters = new HashMap<>();
        final Map<String, Histogram> histograms = new HashMap<>();

        @Override
        public Counter counter(String name) {
            return counter(name, new SimpleCounter());
        }

        @Override
        public <C extends Counter> C counter(String name, C counter) {
            counters.put(name, counter);
            return counter;
        }

        @Override
        public <H extends Histogram> H histogram(String name, H histogram) {
            histograms.put(name, histogram);
            return histogram;
        }

        @Override
        public OperatorIOMetricGroup getIOMetricGroup() {
            return UnregisteredMetricsGroup.createOperatorIOMetricGroup();
        }

        @Override
        public Counter getNumRecordsOutErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public Counter getNumRecordsSendErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public Counter getNumRecordsSendCounter() {
            return new SimpleCounter();
        }

        @Override
        public Counter getNumBytesSendCounter() {
            return new SimpleCounter();
        }

        @Override
        public void setCurrentSendTimeGauge(Gauge<Long> currentSendTimeGauge) {}
    }
}
