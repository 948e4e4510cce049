package dev.unread.ops;

import dev.unread.UnreadJob;
import java.io.IOException;
import java.util.Optional;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/**
 * What the savepoint tools share: where UnreadCounter's state is in a savepoint, the state backend
 * they read it with.
 */
final class CounterSavepoints {

    /** UnreadCounter's operator: its state is found in a savepoint by this uid. */
    static final OperatorIdentifier COUNTER = OperatorIdentifier.forUid(UnreadJob.COUNTER_UID);

    /** ConversationReaders' operator: participants and cursors per conversation. */
    static final OperatorIdentifier READERS = OperatorIdentifier.forUid(UnreadJob.READERS_UID);

    /** GroupFanOut's operator: the members of each group conversation. */
    static final OperatorIdentifier FAN_OUT = OperatorIdentifier.forUid(UnreadJob.FAN_OUT_UID);

    private CounterSavepoints() {}

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
        return operatorState(savepointPath, COUNTER)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        savepointPath
                                                + " holds no state of operator '"
                                                + UnreadJob.COUNTER_UID
                                                + "'"));
    }

    /**
     * The entry of {@code operator} in the savepoint's metadata; empty when the savepoint holds no
     * state of it (a savepoint of a build before that operator, or one that never held state).
     */
    static Optional<OperatorState> operatorState(String savepointPath, OperatorIdentifier operator)
            throws IOException {
        CheckpointMetadata metadata = SavepointLoader.loadSavepointMetadata(savepointPath);
        for (OperatorState state : metadata.getOperatorStates()) {
            if (state.getOperatorID().equals(operator.getOperatorId())) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
