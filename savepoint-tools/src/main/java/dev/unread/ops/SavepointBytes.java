package dev.unread.ops;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnappyStreamCompressionDecorator;
import org.apache.flink.state.api.runtime.SavepointLoader;

/**
 * A canonical savepoint's keyed state as stored, and as many bytes as it would take without
 * snapshot compression ({@code execution.checkpointing.snapshot-compression}, which the job sets):
 * each key group's Snappy stream read back to its length. The rest of the file (the states' meta
 * information) is never compressed, so stored and raw differ by the key groups alone; what else a
 * savepoint holds (operator state, the metadata file) is counted as stored either way.
 */
public final class SavepointBytes {

    private SavepointBytes() {}

    /**
     * @param stored the keyed state's bytes as stored
     * @param raw the same state's bytes uncompressed
     * @param compressedFiles the subtasks' files whose key groups are compressed
     * @param files all the subtasks' keyed-state files
     */
    public record Keyed(long stored, long raw, int compressedFiles, int files) {
        Keyed plus(Keyed other) {
            return new Keyed(
                    stored + other.stored,
                    raw + other.raw,
                    compressedFiles + other.compressedFiles,
                    files + other.files);
        }
    }

    /**
     * The keyed state of the canonical savepoint at {@code path}.
     *
     * @throws IllegalArgumentException when it holds keyed state in another format (a native
     *     savepoint, an incremental checkpoint): RocksDB's own files, compressed by RocksDB
     */
    public static Keyed keyed(String path) throws IOException {
        Keyed sum = new Keyed(0, 0, 0, 0);
        for (OperatorState operator :
                SavepointLoader.loadSavepointMetadata(path).getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getStates()) {
                for (KeyedStateHandle handle : subtask.getManagedKeyedState()) {
                    if (!(handle instanceof KeyGroupsStateHandle groups)) {
                        throw new IllegalArgumentException(
                                path
                                        + " is not a canonical savepoint: keyed state as "
                                        + handle.getClass().getSimpleName());
                    }
                    sum = sum.plus(keyed(groups));
                }
            }
        }
        return sum;
    }

    private static Keyed keyed(KeyGroupsStateHandle groups) throws IOException {
        long size = groups.getStateSize();
        // Key groups without state have no stream, and offset 0; the others follow one another.
        List<Long> starts = new ArrayList<>();
        for (Tuple2<Integer, Long> offset : groups.getGroupRangeOffsets()) {
            if (offset.f1 > 0) {
                starts.add(offset.f1);
            }
        }
        starts.sort(null);
        try (FSDataInputStream in = groups.openInputStream()) {
            KeyedBackendSerializationProxy<?> header =
                    new KeyedBackendSerializationProxy<>(SavepointBytes.class.getClassLoader());
            header.read(new DataInputViewStreamWrapper(in));
            if (!header.isUsingKeyGroupCompression()) {
                return new Keyed(size, size, 0, 1);
            }
            long raw = starts.isEmpty() ? size : starts.get(0);
            for (int i = 0; i < starts.size(); i++) {
                long end = i + 1 < starts.size() ? starts.get(i + 1) : size;
                in.seek(starts.get(i));
                byte[] group = in.readNBytes(Math.toIntExact(end - starts.get(i)));
                try (InputStream plain =
                        SnappyStreamCompressionDecorator.INSTANCE.decorateWithCompression(
                                new ByteArrayInputStream(group))) {
                    raw += plain.transferTo(OutputStream.nullOutputStream());
                }
            }
            return new Keyed(size, raw, 1, 1);
        }
    }
}
