package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.CapturedLog;
import org.junit.jupiter.api.Test;

/**
 * Reading a savepoint outside any Flink client or test cluster, as {@code unread savepoint inspect}
 * and the bench do, logs no stack trace: the cluster its batch jobs run on is there until their
 * results are read. No MiniCluster extension here on purpose: with one, the reads would run on the
 * test's cluster instead of the tools' own.
 */
class SavepointReadLogITCase {

    @Test
    void inspectingAStoredSavepointLogsNoStackTrace() throws Exception {
        String path = StoredSavepoints.ROOT.resolve("v4/savepoint").toUri().toString();
        SavepointInspect.Summary summary;
        String log;
        try (CapturedLog captured = CapturedLog.start()) {
            summary = SavepointInspect.inspect(path, 1);
            log = captured.text();
        }

        assertThat(summary.users()).isPositive();
        assertThat(summary.groups().members()).isPositive();
        assertThat(log).doesNotContain("\tat ").doesNotContain("ERROR ");
    }
}
