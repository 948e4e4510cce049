package dev.unread.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shaded job jar the package phase wrote holds the job and what a Flink cluster lacks, and
 * nothing of the developer kit, the savepoint tools, the API or the test broker, nor what a cluster
 * has: a second copy of a class the cluster ships is at best dead weight and at worst a version
 * clash, since the job's class loader looks in the jar first. What it leaves out must be in the
 * cluster's lib folder that FlinkClusterITCase runs it on.
 */
class JobJarContentsITCase {

    /** Packages of libraries a cluster has (flink-dist and lib/), mapped to their jar. */
    private static final List<String[]> ON_THE_CLUSTER =
            List.of(
                    new String[] {"org/apache/flink/connector/base/", "flink-connector-base-"},
                    new String[] {"org/apache/commons/lang3/", "commons-lang3-"},
                    new String[] {"org/xerial/snappy/", "snappy-java-"},
                    new String[] {"net/jpountz/lz4/", "lz4-java-"});

    /** What only the job brings: its connectors and clients. */
    private static final List<String> JOB_ONLY =
            List.of(
                    "dev/unread/UnreadJob.class",
                    "dev/unread/contract/RedisNames.class",
                    "org/apache/flink/connector/kafka/",
                    "org/apache/kafka/clients/",
                    "org/apache/flink/connector/jdbc/",
                    "com/mysql/cj/jdbc/Driver.class",
                    "redis/clients/jedis/");

    /** The job's classes: UnreadJob, its packages and the contract. */
    private static final String JOB_CLASSES =
            "dev/unread/([^/]+\\.class|(contract|config|events|counter|groups|channels|seqs|state|sources|sinks)/.+)";

    @Test
    void theJarLeavesOutWhatTheClusterHasAndKeepsWhatOnlyTheJobBrings() throws Exception {
        try (JarFile jar = new JarFile(ClusterJob.jar().toFile())) {
            List<String> entries = jar.stream().map(JarEntry::getName).toList();
            for (String[] library : ON_THE_CLUSTER) {
                assertThat(entries)
                        .as("the jar holds no %s", library[0])
                        .noneMatch(entry -> entry.startsWith(library[0]));
                try (Stream<Path> lib = Files.list(ClusterJob.lib())) {
                    assertThat(lib.map(p -> p.getFileName().toString()))
                            .as("the cluster's lib has %s", library[1])
                            .anyMatch(name -> name.startsWith(library[1]));
                }
            }
            for (String part : JOB_ONLY) {
                assertThat(entries)
                        .as("the jar holds %s", part)
                        .anyMatch(entry -> entry.startsWith(part));
            }
        }
    }

    @Test
    void itHoldsNothingOfTheToolsTheApiOrTheTestBroker() throws Exception {
        try (JarFile jar = new JarFile(ClusterJob.jar().toFile())) {
            List<String> entries = jar.stream().map(JarEntry::getName).toList();
            // What may be there rather than what may not: a tool's package added later is
            // refused without being named here.
            assertThat(entries)
                    .filteredOn(e -> e.startsWith("dev/unread/") && !e.endsWith("/"))
                    .isNotEmpty()
                    .allMatch(
                            e -> e.matches(JOB_CLASSES),
                            "a class of the job or the contract (" + JOB_CLASSES + ")");
            assertThat(entries)
                    .as("Kafka's broker, its test kit and Scala")
                    .noneMatch(
                            e ->
                                    e.startsWith("kafka/server/")
                                            || e.startsWith("org/apache/kafka/common/test/")
                                            || e.startsWith("scala/"));
            assertThat(entries)
                    .as("Flink itself")
                    .noneMatch(e -> e.startsWith("org/apache/flink/runtime/"));
            assertThat(entries).noneMatch(e -> e.endsWith("MetricReporterFactory"));
            for (String entry : entries) {
                if (entry.startsWith("META-INF/services/") && !entry.endsWith("/")) {
                    String services =
                            new String(jar.getInputStream(jar.getEntry(entry)).readAllBytes());
                    assertThat(services).as(entry).doesNotContain("dev.unread.");
                }
            }
        }
    }

    @Test
    void itsManifestNamesTheJobAndKeepsMultiReleaseClasses() throws Exception {
        try (JarFile jar = new JarFile(ClusterJob.jar().toFile())) {
            Manifest manifest = jar.getManifest();

            assertThat(manifest.getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("dev.unread.UnreadJob");
            assertThat(manifest.getMainAttributes().getValue("Multi-Release")).isEqualTo("true");
            assertThat(jar.stream().map(JarEntry::getName))
                    .as("version-specific classes the entry is there for")
                    .anyMatch(entry -> entry.startsWith("META-INF/versions/"));
        }
    }
}
