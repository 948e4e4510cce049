package dev.unread.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.WebOptions;

/**
 * The repository's {@code flink-conf/config.yaml}, loaded the way a Flink cluster loads it, for the
 * local stack, the savepoint tools and the tests: what is tested is what is deployed. Callers
 * override only what differs outside the containers, such as paths and ports.
 */
public final class FlinkConf {

    /** The directory, relative to the repository root, that docker-compose.yml mounts. */
    public static final String DIR_NAME = "flink-conf";

    /** Flink 2.x reads only this file name; the 1.x {@code flink-conf.yaml} is ignored. */
    public static final String FILE_NAME = "config.yaml";

    private FlinkConf() {}

    /**
     * The configuration in {@code confDir/config.yaml} with {@code overrides} (Flink keys, such as
     * {@code rest.port}) applied on top, as dynamic properties ({@code -D}) are on a cluster.
     */
    public static Configuration load(Path confDir, Map<String, String> overrides) {
        Path file = confDir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(
                    "no Flink configuration at " + file.toAbsolutePath());
        }
        return GlobalConfiguration.loadConfiguration(
                confDir.toAbsolutePath().toString(), Configuration.fromMap(overrides));
    }

    /**
     * The repository's configuration directory: the first {@code flink-conf/config.yaml} found
     * walking up from {@code start}, so that it is found from the repository root (bin/unread) as
     * well as from a module directory (Maven's working directory in tests).
     */
    public static Path findDir(Path start) {
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(DIR_NAME);
            if (Files.isRegularFile(candidate.resolve(FILE_NAME))) {
                return candidate;
            }
        }
        throw new IllegalStateException(
                "no "
                        + DIR_NAME
                        + "/"
                        + FILE_NAME
                        + " in "
                        + start.toAbsolutePath()
                        + " or any directory above it");
    }

    /**
     * The web UI settings of every cluster the project starts, config.yaml's and the Kubernetes
     * manifest's included. Flink's defaults let any page of any site upload a jar and run its
     * {@code main()} in the JobManager: the upload and run are two form posts a browser sends
     * without a preflight, and every answer allows any origin ({@code *}), so that page reads the
     * jar's id from the first answer. Here the jar routes ({@code /jars/...}) are gone and the
     * dashboard shows no cancel or rescale button; Flink's CLI keeps the routes it uses ({@code
     * flink run} posts a job graph to {@code /jobs}). Answers allow only {@code ownOrigin}, the
     * UI's own address, which needs no CORS header at all.
     */
    public static Map<String, String> webUi(String ownOrigin) {
        Map<String, String> web = new LinkedHashMap<>();
        web.put(WebOptions.SUBMIT_ENABLE.key(), "false");
        web.put(WebOptions.CANCEL_ENABLE.key(), "false");
        web.put(WebOptions.RESCALE_ENABLE.key(), "false");
        web.put(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN.key(), ownOrigin);
        return web;
    }

    /** The origin of a web UI served at {@code host:port}, as a browser names it. */
    public static String uiOrigin(String host, int port) {
        return "http://" + host + ":" + port;
    }

    /** {@link #findDir} from the working directory. */
    public static Path findDir() {
        return findDir(Path.of(""));
    }

    /**
     * Overrides that move checkpoints and savepoints from the containers' volume to {@code
     * dataDir/checkpoints} and {@code dataDir/savepoints}, for a cluster outside the containers.
     */
    public static Map<String, String> localPaths(Path dataDir) {
        Map<String, String> paths = new LinkedHashMap<>();
        Path absolute = dataDir.toAbsolutePath();
        paths.put(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(),
                absolute.resolve("checkpoints").toUri().toString());
        paths.put(
                CheckpointingOptions.SAVEPOINT_DIRECTORY.key(),
                absolute.resolve("savepoints").toUri().toString());
        return paths;
    }
}
