package dev.unread.ops;

import dev.unread.testing.KafkaBroker;
import java.nio.file.Path;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint of version 2 (commit 173172e, the last before version 3's work), made by that build's
 * own regeneration step (SavepointCompatibilityITCase there) from its generated traffic and kept in
 * {@code savepoint-tools/src/test/resources/savepoints/v2}, restores into this build: Redis stays
 * as version 2 left it (no reader that version did not have: its readers stage kept who takes
 * part), and threads count from the first event after the restore.
 */
class Version2SavepointITCase {

    private static final Path STORED = StoredSavepoints.ROOT.resolve("v2");

    /** The events after the restore: fixed, so reproducible. */
    private static final long SEED_AFTER = 20260102L;

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(3)
                            .build());

    @Test
    void aSavepointOfVersion2RestoresAndCountsThreadsFromTheFirstEventAfterIt(@TempDir Path work)
            throws Exception {
        StoredSavepoints.restoreAndCountOn(
                KAFKA, STORED, before -> StoredSavepoints.eventsAfter(SEED_AFTER), work);
    }
}
