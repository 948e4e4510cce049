package dev.unread;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the shaded job jar a cluster runs holds: the job and its connectors, nothing of the
 * developer kit, the savepoint tools, the API or the test broker. Runs after {@code package}
 * built the jar.
 */
class JobJarContentsITCase {

    private static final List<String> ENTRIES = new ArrayList<>();

    private static Path jar;

    @BeforeAll
    static void readTheJar() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            jar = files.filter(p -> p.getFileName().toString()
                            .matches("unread-job-[^-]+(-SNAPSHOT)?\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no job jar in target/: run mvn package"));
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream().forEach(e -> ENTRIES.add(e.getName()));
        }
        Collections.sort(ENTRIES);
    }

    @Test
    void holdsTheJobAndItsConnectors() {
        assertThat(ENTRIES).contains(
                "dev/unread/UnreadJob.class",
                "dev/unread/state/UnreadCounter.class",
                "dev/unread/contract/RedisNames.class",
                "org/apache/flink/connector/kafka/source/KafkaSource.class",
                "redis/clients/jedis/Jedis.class",
                "com/mysql/cj/jdbc/Driver.class");
    }

    @Test
    void holdsNothingOfTheToolsTheApiOrTheTestBroker() {
        assertThat(ENTRIES)
                .filteredOn(e -> e.startsWith("dev/unread/"))
                .noneMatch(e -> e.matches(
                        "dev/unread/(cli|bench|generator|minicluster|kafka|ops|api|testing)/.*"));
        assertThat(ENTRIES)
                .as("Kafka's broker, its test kit and Scala")
                .noneMatch(e -> e.startsWith("kafka/server/")
                        || e.startsWith("org/apache/kafka/common/test/")
                        || e.startsWith("scala/"));
        assertThat(ENTRIES)
                .as("Flink itself")
                .noneMatch(e -> e.startsWith("org/apache/flink/runtime/"));
    }

    @Test
    void registersNoServiceOfTheDeveloperKit() throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            for (String entry : ENTRIES) {
                if (entry.startsWith("META-INF/services/") && !entry.endsWith("/")) {
                    String services =
                            new String(file.getInputStream(file.getEntry(entry)).readAllBytes());
                    assertThat(services).as(entry).doesNotContain("dev.unread.");
                }
            }
        }
        assertThat(ENTRIES).noneMatch(e -> e.endsWith("MetricReporterFactory"));
    }
}
