package dev.unread;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.CapturedLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnreadJobTest {

    @Test
    void theJobLogsItsSettingsAtStartWithoutASecret(@TempDir Path dir) throws Exception {
        Path kafka = dir.resolve("client.properties");
        Files.writeString(
                kafka,
                "security.protocol=SASL_SSL\n"
                        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule"
                        + " required username=\"unread\" password=\"secret-kafka\";\n");
        String[] args = {
            "--redis-url", "redis://app:secret-redis@10.0.0.1:6379/0",
            "--jdbc-url", "jdbc:mysql://db:3306/chat?user=u&password=secret-jdbc-url",
            "--kafka-properties", kafka.toString()
        };

        String log;
        try (CapturedLog captured = CapturedLog.start()) {
            UnreadJob.config(args, Map.of("UNREAD_JDBC_PASSWORD", "secret-jdbc"));
            log = captured.text();
        }

        assertThat(log)
                .contains("unread job settings", "redis://app:***@10.0.0.1", "SASL_SSL")
                .doesNotContain("secret");
    }
}
