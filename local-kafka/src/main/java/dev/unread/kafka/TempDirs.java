package dev.unread.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Data directories of the local broker and cluster: short paths under the temp dir. */
public final class TempDirs {

    private TempDirs() {}

    /**
     * A new directory under {@code java.io.tmpdir} (/tmp on Linux): RocksDB refuses instance paths
     * longer than about 100 characters, so the prefix stays short.
     */
    public static Path create(String prefix) throws IOException {
        return Files.createTempDirectory(prefix);
    }

    public static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
