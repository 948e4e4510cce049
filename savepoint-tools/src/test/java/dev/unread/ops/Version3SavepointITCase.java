package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.testing.EventStreams;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.ThreadStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint of version 3 (commit c8c14af), kept in {@code
 * savepoint-tools/src/test/resources/savepoints/v3}, restores into this build as the one of version
 * 2 does: Redis stays as version 3 left it, and the events after the restore count on. Version 3 is
 * the first to keep its records in the compact form ({@code CompactStateSerializer}) and the
 * threads, so its traffic has threads too: replies, thread reads and follows, whose state the
 * restored job must read as version 3 wrote it.
 *
 * <p>Stored by this class's regeneration step, run on version 3's build; run it again only for a
 * savepoint of a new version, into a directory of its own (a copy of this class with the new
 * version's name and {@code STORED}):
 *
 * <pre>
 * mvn -B -pl savepoint-tools -am verify -Dtest=none -Dit.test=Version3SavepointITCase \
 *     -Dunread.savepoint.regenerate=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class Version3SavepointITCase {

    private static final Path STORED = StoredSavepoints.ROOT.resolve("v3");

    /** The events in the stored savepoint, and the events after it: fixed, so reproducible. */
    private static final long SEED_BEFORE = 20260101L;

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
    @DisabledIfSystemProperty(named = SavepointCompatibilityITCase.REGENERATE, matches = "true")
    void aSavepointOfVersion3RestoresAndCountsOn(@TempDir Path work) throws Exception {
        StoredSavepoints.restoreAndCountOn(KAFKA, STORED, Version3SavepointITCase::after, work);
    }

    /**
     * The events after the restore: those the version 2 savepoint gets, and more replies, reads and
     * follows in the stored threads, whose records the restored job must have read as version 3
     * wrote them for these to count right.
     */
    private static List<ChatEvent> after(List<ChatEvent> before) {
        List<ChatEvent> after = StoredSavepoints.eventsAfter(SEED_AFTER);
        List<ChatEvent> all = new ArrayList<>(before);
        all.addAll(after);
        List<ChatEvent> inStoredThreads = ThreadStreams.threads(new Random(SEED_AFTER), all);
        Set<Long> storedRoots = new HashSet<>();
        before.stream().filter(ChatEvent::isReply).forEach(e -> storedRoots.add(e.threadSeq));
        assertThat(inStoredThreads)
                .as("thread events on roots the stored savepoint has threads of")
                .anyMatch(e -> storedRoots.contains(e.threadSeq));
        after.addAll(inStoredThreads);
        return after;
    }

    @Test
    @EnabledIfSystemProperty(named = SavepointCompatibilityITCase.REGENERATE, matches = "true")
    void regenerateTheStoredSavepoint(@TempDir Path work) throws Exception {
        List<ChatEvent> events =
                ThreadStreams.withThreads(
                        new Random(SEED_BEFORE),
                        new EventStreams(SEED_BEFORE).withIds(30_000, 95_000).events(300));
        StoredSavepoints.store(KAFKA, STORED, events, work);
    }
}
