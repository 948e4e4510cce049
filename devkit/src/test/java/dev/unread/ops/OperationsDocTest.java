package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.cli.Unread;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.kafka.KafkaAcls;
import dev.unread.state.StateSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * docs/operations.md names commands, ports, paths and files; each is checked against what it names,
 * so the runbook cannot drift from the code.
 */
class OperationsDocTest {

    private static final Path ROOT = FlinkConf.findDir().getParent();

    private final String doc = read("docs/operations.md");

    @Test
    void everyUnreadCommandItShowsExists() {
        Set<String> commands = new HashSet<>();
        CommandLine cli = Unread.commandLine(Unread.Session.system());
        cli.getSubcommands()
                .forEach(
                        (name, command) -> {
                            commands.add(name);
                            command.getSubcommands()
                                    .keySet()
                                    .forEach(tool -> commands.add(name + " " + tool));
                        });
        Matcher shown = Pattern.compile("bin/unread ([a-z]+(?: [a-z]+)?)").matcher(doc);
        int count = 0;
        while (shown.find()) {
            String command = shown.group(1);
            // A word after a command without tools is an argument: "bin/unread local to ...".
            String first = command.split(" ")[0];
            boolean tools = commands.stream().anyMatch(c -> c.startsWith(first + " "));
            assertThat(commands).as("bin/unread " + command).contains(tools ? command : first);
            count++;
        }
        assertThat(count).isGreaterThan(5);
    }

    @Test
    void everyPortItNamesIsPublishedByCompose() throws Exception {
        Set<String> published = new HashSet<>();
        Map<String, Object> compose;
        try (Reader in = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            compose = new Yaml().load(in);
        }
        for (Object service : ((Map<?, ?>) compose.get("services")).values()) {
            Object ports = ((Map<?, ?>) service).get("ports");
            for (Object port : ports == null ? List.of() : (List<?>) ports) {
                String[] parts = port.toString().split(":");
                published.add(parts[0] + ":" + parts[1]);
            }
        }
        Matcher address = Pattern.compile("127\\.0\\.0\\.1:\\d+").matcher(doc);
        while (address.find()) {
            assertThat(published).contains(address.group());
        }
        assertThat(published).allSatisfy(port -> assertThat(doc).contains(port));
    }

    @Test
    void theVolumesPathsAreTheConfiguredOnes() {
        Configuration conf = FlinkConf.load(FlinkConf.findDir(), Map.of());

        assertThat(doc).contains(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY));
        assertThat(doc).contains(conf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY));
        assertThat(read("docker-compose.yml")).contains("/opt/unread/unread-job.jar");
        assertThat(doc).contains("flink run -d /opt/unread/unread-job.jar");
    }

    @Test
    void everyRepositoryFileItNamesExists() {
        Matcher path =
                Pattern.compile(
                                "`((?:flink-conf|docker|docs|job|bin)/[\\w./-]*\\w|docker-compose\\.yml)`")
                        .matcher(doc);
        int count = 0;
        while (path.find()) {
            assertThat(ROOT.resolve(path.group(1))).as(path.group(1)).exists();
            count++;
        }
        assertThat(count).isGreaterThan(3);
    }

    @Test
    void theTestsItCitesExist() {
        Matcher test = Pattern.compile("`(\\w+(?:IT)?Case|\\w+Test)`").matcher(doc);
        while (test.find()) {
            try (var files = Files.walk(ROOT)) {
                String file = test.group(1) + ".java";
                assertThat(
                                files.anyMatch(
                                        p ->
                                                p.getFileName().toString().equals(file)
                                                        && p.toString()
                                                                .contains("/src/test/java/")))
                        .as(file)
                        .isTrue();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void theKafkaAclsItGivesAreTheOnesTheSecuredTestGrants() {
        // The default topic names and group, as the runbook shows them.
        List<String> granted =
                KafkaAcls.commands(UnreadConfig.from(Map.of(), Map.of())).stream()
                        .map(args -> "acl " + args)
                        .toList();
        List<String> shown =
                doc.lines().filter(line -> line.startsWith("acl --allow-principal")).toList();

        assertThat(shown).containsExactlyElementsOf(granted);
    }

    @Test
    void theInspectOutputItShowsIsWhatInspectPrints() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SavepointInspect.print(
                "local-data/savepoint-3f2a91-5c0e8d7b14a2",
                new SavepointInspect.Summary(
                        128,
                        3120,
                        8417,
                        2894,
                        1530,
                        6311,
                        2210,
                        40122,
                        310,
                        12,
                        95,
                        0,
                        List.of(
                                new UserState(10086, 1767258764000L, 41, 41, 17, 9, 903, 7, 1, 2),
                                new UserState(10311, 0, 35, 35, 12, 0, 410, 0, 0, 0)),
                        new SavepointInspect.Groups(212, 9480, 371, 640, 12033, 8816),
                        new SavepointInspect.Bytes(1_843_212, 96_404, 412_870, 20_118)),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertThat(doc).contains(bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theUsersTracksItShowsAreWhatInspectPrints() {
        Map<String, String> tracks = new TreeMap<>();
        tracks.put(
                "80001",
                "{\"members\":[[1001,6200],[7001]],\"read\":7310,\"floor\":7290,\"named\":2,"
                        + "\"namedAll\":1}");
        tracks.put("80001:7002", "{\"read\":7020,\"named\":1}");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SavepointUser.print(
                "local-data/savepoint-3f2a91-5c0e8d7b14a2",
                new SavepointUser.Report(
                        10086,
                        0,
                        List.of(
                                new SavepointUser.Holding(
                                        UnreadJob.COUNTER_UID,
                                        StateSchema.CONVERSATIONS.getName(),
                                        17,
                                        17)),
                        tracks),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertThat(doc).contains(bytes.toString(StandardCharsets.UTF_8));
    }

    private static String read(String file) {
        try {
            return Files.readString(ROOT.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
