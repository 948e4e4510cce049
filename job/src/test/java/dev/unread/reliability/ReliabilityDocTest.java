package dev.unread.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.testing.BadRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/reliability.md's table names the tests that reproduce each row: each named test must exist,
 * and each reliability test must have its row, so the table cannot drift from the tests.
 */
class ReliabilityDocTest {

    private static final Path ROOT = root();
    private static final List<Path> TEST_DIRS =
            List.of(
                    ROOT.resolve("job/src/test/java/dev/unread/reliability"),
                    ROOT.resolve("savepoint-tools/src/test/java/dev/unread/reliability"),
                    ROOT.resolve("state-query-api/src/test/java/dev/unread/api"),
                    ROOT.resolve("devkit/src/test/java/dev/unread/kafka"));

    /** {@code -Dit.test=Name} or {@code -Dit.test='Name#methodPrefix*'}. */
    private static final Pattern REPRODUCE =
            Pattern.compile("-Dit\\.test='?([A-Za-z]+ITCase)(?:#([A-Za-z]+)\\*)?'?");

    private final String doc = read(ROOT.resolve("docs/reliability.md"));

    @Test
    void everyTestTheTableNamesExistsWithTheMethodItNames() {
        Matcher m = REPRODUCE.matcher(doc);
        List<String> named = new ArrayList<>();
        while (m.find()) {
            named.add(m.group(1));
            Path source = source(m.group(1));
            assertThat(source).as("the test class " + m.group(1)).isNotNull();
            if (m.group(2) != null) {
                assertThat(read(source)).as(m.group(0)).contains("void " + m.group(2));
            }
        }
        assertThat(named).isNotEmpty();
    }

    @Test
    void everyReliabilityTestHasARow() throws IOException {
        try (Stream<Path> files = Files.list(TEST_DIRS.get(0))) {
            List<String> tests =
                    files.map(f -> f.getFileName().toString())
                            .filter(name -> name.endsWith("ITCase.java"))
                            .map(name -> name.substring(0, name.length() - ".java".length()))
                            .toList();
            assertThat(tests).isNotEmpty();
            assertThat(tests)
                    .allSatisfy(
                            test ->
                                    assertThat(
                                                    doc.contains("-Dit.test=" + test)
                                                            || doc.contains("-Dit.test='" + test))
                                            .as("a row for " + test)
                                            .isTrue());
        }
    }

    @Test
    void theDocCountsTheKindsOfBadRecordThereAre() {
        assertThat(doc).contains("of each of the " + BadRecords.Kind.values().length + " kinds");
    }

    private static Path source(String testClass) {
        for (Path dir : TEST_DIRS) {
            Path file = dir.resolve(testClass + ".java");
            if (Files.exists(file)) {
                return file;
            }
        }
        return null;
    }

    /** The repository's root: the nearest directory upwards that has docs/reliability.md. */
    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("docs/reliability.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no docs/reliability.md above " + Path.of("").toAbsolutePath());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
