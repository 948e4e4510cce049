package dev.unread.ops;

import dev.unread.UnreadJob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the savepoint tools share: where UnreadCounter's state is in a savepoint, the batch
 * environment they run in, and their command-line parsing.
 */
final class CounterSavepoints {

    /** UnreadCounter's operator: its state is found in a savepoint by this uid. */
    static final OperatorIdentifier COUNTER = OperatorIdentifier.forUid(UnreadJob.COUNTER_UID);

    private CounterSavepoints() {}

    /**
     * A batch environment: the context's when the tool runs inside a Flink client or test,
     * otherwise an embedded cluster in this JVM. Unlike the job, it allows generic types: the
     * State Processor API moves its own internal records with Kryo. The state itself is read and
     * written with UnreadCounter's descriptors, whose types are POJOs either way.
     */
    static StreamExecutionEnvironment batchEnvironment() {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /**
     * The job's state backend: it reads savepoints in either format and retained incremental
     * checkpoints, and keeps large state on disk rather than on the heap.
     */
    static StateBackend stateBackend() {
        return new EmbeddedRocksDBStateBackend();
    }

    /**
     * UnreadCounter's entry in the savepoint's metadata.
     *
     * @throws IllegalArgumentException when the savepoint holds no state of that operator
     */
    static OperatorState counterState(String savepointPath) throws IOException {
        CheckpointMetadata metadata = SavepointLoader.loadSavepointMetadata(savepointPath);
        for (OperatorState operator : metadata.getOperatorStates()) {
            if (operator.getOperatorID().equals(COUNTER.getOperatorId())) {
                return operator;
            }
        }
        throw new IllegalArgumentException(
                savepointPath + " holds no state of operator '" + UnreadJob.COUNTER_UID + "'");
    }

    /** A tool's command line: positional arguments, its own flags, and the job's settings. */
    record Args(List<String> positional, Map<String, String> toolFlags,
            Map<String, String> settings) {

        /**
         * Splits {@code args}: {@code --name value} or {@code --name=value} is one of the tool's
         * flags when {@code toolFlags} names it, otherwise a setting of UnreadConfig.
         */
        static Args parse(String[] args, Set<String> toolFlags) {
            List<String> positional = new ArrayList<>();
            Map<String, String> tool = new LinkedHashMap<>();
            Map<String, String> settings = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (!arg.startsWith("--")) {
                    positional.add(arg);
                    continue;
                }
                String name;
                String value;
                int eq = arg.indexOf('=');
                if (eq > 0) {
                    name = arg.substring(2, eq);
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    name = arg.substring(2);
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                (toolFlags.contains(name) ? tool : settings).put(name, value);
            }
            return new Args(positional, tool, settings);
        }

        /** The single positional argument, such as the savepoint's path. */
        String only(String what) {
            if (positional.size() != 1) {
                throw new IllegalArgumentException("expected one " + what + ", got " + positional);
            }
            return positional.get(0);
        }
    }
}
