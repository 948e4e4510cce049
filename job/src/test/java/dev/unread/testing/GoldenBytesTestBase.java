package dev.unread.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.FlinkConf;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshotSerializationUtil;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes a serializer wrote, kept in {@code job/src/test/resources/serializers/<name>/<version>}, as
 * Flink's own {@code TypeSerializerUpgradeTestBase} keeps them: per value a {@code <case>.bytes},
 * and the serializer's {@code serializer-snapshot} as a state backend writes it beside keyed state.
 * Each file is stored once and never rewritten, and they pin the format: every build must read each
 * stored record as its value, write the value to exactly those bytes, and accept the stored
 * snapshot as it is. A change that moves a field, or changes how one is written, fails here, where
 * a round-trip test would pass.
 *
 * <p>The expected values live in the subclass, per version. A new format is a new version: add its
 * {@link Format} with the cases it must pin, leave the earlier versions as they are, and write the
 * new version's files:
 *
 * <pre>
 * mvn -B -pl job -am test-compile surefire:test -Dtest='*GoldenBytesTest' \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dunread.serializers.regenerate=v5
 * </pre>
 *
 * then run the tests again without the property. Only the version's files not yet stored are
 * written, so a case added to a version before its release is stored beside the others; a stored
 * file is left as it is, and its case is then checked against it: rewriting it would make the test
 * agree with whatever the code does now, which is what it is here to prevent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GoldenBytesTestBase {

    protected static final String REGENERATE = "unread.serializers.regenerate";

    private static final String SNAPSHOT = "serializer-snapshot";

    /**
     * One value: {@code written} is what is serialized, {@code read} what the stored bytes read as
     * (the same but where the serializer writes two values alike, say a null and an empty array).
     */
    public record Case<T>(String name, T written, T read) {
        public static <T> Case<T> of(String name, T value) {
            return new Case<>(name, value, value);
        }
    }

    /** A serializer's format as one version stored it: {@code serializers/<name>/<version>}. */
    public record Format<T>(
            String name, String version, TypeSerializer<T> serializer, List<Case<T>> cases) {

        @Override
        public String toString() {
            return name + "/" + version;
        }
    }

    /** Every stored version of the subclass's serializers, with the values each must hold. */
    protected abstract List<Format<?>> formats();

    Stream<Arguments> cases() {
        return formats().stream()
                .flatMap(
                        f ->
                                f.cases().stream()
                                        .map(
                                                c ->
                                                        Arguments.of(
                                                                f,
                                                                Named.of(f + "/" + c.name(), c))));
    }

    Stream<Format<?>> storedFormats() {
        return formats().stream();
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("cases")
    <T> void theStoredBytesReadAsTheValue(Format<T> format, Case<T> c) throws IOException {
        DataInputDeserializer in =
                new DataInputDeserializer(
                        stored(resource(format.name(), format.version(), c.name() + ".bytes")));

        T read = format.serializer().deserialize(in);

        assertThat(read).usingRecursiveComparison().isEqualTo(c.read());
        assertThat(in.available()).as("bytes left after the record").isZero();
        assertThat(format.serializer().copy(read)).usingRecursiveComparison().isEqualTo(c.read());
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("cases")
    <T> void theValueWritesExactlyTheStoredBytes(Format<T> format, Case<T> c) throws IOException {
        byte[] stored = stored(resource(format.name(), format.version(), c.name() + ".bytes"));

        assertThat(bytes(format.serializer(), c.written())).isEqualTo(stored);
        DataOutputSerializer copied = new DataOutputSerializer(stored.length);
        format.serializer().copy(new DataInputDeserializer(stored), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(stored);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("storedFormats")
    <T> void theStoredSnapshotRestoresThisSerializerAsItIs(Format<T> format) throws IOException {
        TypeSerializerSnapshot<T> restored = readSnapshot(format.name(), format.version());

        assertThat(restored.restoreSerializer()).isSameAs(format.serializer());
        assertThat(
                        format.serializer()
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
    }

    @Test
    @EnabledIfSystemProperty(named = REGENERATE, matches = "v\\d+")
    void writeTheStoredFilesOfANewVersion() throws IOException {
        String version = System.getProperty(REGENERATE);
        for (Format<?> format : formats()) {
            if (format.version().equals(version)) {
                write(format);
            }
        }
    }

    /** The stored {@code serializer-snapshot} of {@code serializers/<name>/<version>}. */
    protected static <T> TypeSerializerSnapshot<T> readSnapshot(String name, String version)
            throws IOException {
        return TypeSerializerSnapshotSerializationUtil.readSerializerSnapshot(
                new DataInputDeserializer(stored(resource(name, version, SNAPSHOT))),
                GoldenBytesTestBase.class.getClassLoader());
    }

    /**
     * Writes {@code serializers/<name>/<version>/serializer-snapshot} unless it is stored: a stored
     * snapshot is checked against this build instead.
     */
    protected static void writeSnapshot(String name, String version, TypeSerializerSnapshot<?> s)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshotSerializationUtil.writeSerializerSnapshot(out, s);
        writeIfNotStored(source(name, version).resolve(SNAPSHOT), out.getCopyOfBuffer());
    }

    private static <T> void write(Format<T> format) throws IOException {
        writeSnapshot(format.name(), format.version(), format.serializer().snapshotConfiguration());
        Path dir = source(format.name(), format.version());
        for (Case<T> c : format.cases()) {
            writeIfNotStored(
                    dir.resolve(c.name() + ".bytes"), bytes(format.serializer(), c.written()));
        }
    }

    private static void writeIfNotStored(Path file, byte[] bytes) throws IOException {
        if (Files.notExists(file)) {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        }
    }

    private static Path source(String name, String version) {
        return FlinkConf.findDir()
                .resolveSibling("job/src/test/resources")
                .resolve(resource(name, version, "").substring(1));
    }

    private static String resource(String name, String version, String file) {
        return "/serializers/" + name + "/" + version + "/" + file;
    }

    private static <T> byte[] bytes(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private static byte[] stored(String resource) throws IOException {
        try (InputStream in = GoldenBytesTestBase.class.getResourceAsStream(resource)) {
            assertThat(in).as("stored %s", resource).isNotNull();
            return in.readAllBytes();
        }
    }
}
