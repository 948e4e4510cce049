package dev.unread.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JFR recording of one measured run ({@code unread bench --profile DIR}), written to {@code
 * DIR/{run}.jfr} when the run has taken in its last event: the JDK's "profile" settings, with Java
 * stacks sampled every millisecond and native ones (RocksDB's) every 2 ms rather than every 10 and
 * 20, since a pass-through's run lasts seconds and the JDK's sampler takes few threads per round.
 * One file per run, so that the full run's profile is not mixed with the publishing, the savepoints
 * and the other runs that share the bench's process.
 */
final class Profile implements AutoCloseable {

    private final Recording recording;

    private Profile(Recording recording) {
        this.recording = recording;
    }

    /** Starts recording {@code run} under {@code dir}; records nothing when {@code dir} is null. */
    static Profile start(Path dir, String run) throws IOException {
        if (dir == null) {
            return new Profile(null);
        }
        Files.createDirectories(dir);
        Recording recording;
        try {
            recording = new Recording(Configuration.getConfiguration("profile"));
        } catch (ParseException e) {
            throw new IOException("the JDK's JFR profile settings do not parse", e);
        }
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
        recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(2));
        recording.setName(run);
        recording.setDestination(dir.resolve(fileName(run) + ".jfr"));
        recording.start();
        return new Profile(recording);
    }

    /** "full, 2% deleted" → "full-2-deleted". */
    static String fileName(String run) {
        return run.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    /** Stops the recording, which writes it to its file. */
    @Override
    public void close() {
        if (recording != null) {
            recording.stop();
            recording.close();
        }
    }
}
