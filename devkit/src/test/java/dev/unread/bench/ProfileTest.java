package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Profile}: one recording per run, named after it, holding the run's method samples. */
class ProfileTest {

    @Test
    void aRunIsRecordedToAFileNamedAfterIt(@TempDir Path dir) throws Exception {
        Path profiles = dir.resolve("profiles");
        long deadline = System.nanoTime() + 30_000_000_000L;
        List<RecordedEvent> samples;
        do {
            try (Profile profile = Profile.start(profiles, "full, 2% deleted")) {
                busy(200_000_000L);
            }
            samples =
                    RecordingFile.readAllEvents(profiles.resolve("full-2-deleted.jfr")).stream()
                            .filter(e -> e.getEventType().getName().equals("jdk.ExecutionSample"))
                            .toList();
        } while (samples.isEmpty() && System.nanoTime() < deadline);
        assertThat(samples).isNotEmpty();
    }

    @Test
    void aRunsNameBecomesAFileName() {
        assertThat(Profile.fileName("stateful pass-through")).isEqualTo("stateful-pass-through");
        assertThat(Profile.fileName("full, 10% ALL_READ")).isEqualTo("full-10-all-read");
    }

    /** Spins for {@code nanos}, so that the sampler finds this thread running Java code. */
    private static long busy(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = 0;
        while (System.nanoTime() < end) {
            x += Long.numberOfTrailingZeros(x + 1);
        }
        return x;
    }
}
