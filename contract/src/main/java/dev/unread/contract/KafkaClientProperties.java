package dev.unread.contract;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The Kafka client settings of {@code --kafka-properties FILE}: a Kafka {@code client.properties}
 * file (SASL, TLS, timeouts) that the job and the API apply to every Kafka client they make.
 *
 * <p>The file is read as text and its values are kept as written: a {@code ${env:NAME}} reference
 * of Kafka's config providers stays unresolved, so it travels in the Flink job graph as a reference
 * and is resolved by each Kafka client where it runs (the JobManager and every TaskManager) from
 * that machine's environment.
 */
public final class KafkaClientProperties {

    /**
     * Keys the job and the API set themselves because their correctness depends on them: the broker
     * addresses ({@code --kafka-bootstrap}), the consumer group ({@code --group-id}), the
     * byte-exact (de)serializers, durable and idempotent writes, offsets committed only with a
     * checkpoint.
     */
    public static final List<String> RESERVED =
            List.of(
                    "bootstrap.servers",
                    "group.id",
                    "key.serializer",
                    "value.serializer",
                    "key.deserializer",
                    "value.deserializer",
                    "acks",
                    "enable.idempotence",
                    "enable.auto.commit",
                    "transactional.id");

    /** Keys whose values are, or may hold, a secret: never shown in a log line. */
    private static final Pattern SECRET_KEY =
            Pattern.compile("(?i).*(password|passphrase|secret|jaas|token|credential|\\.key\\b).*");

    private static final String MASK = "***";

    private KafkaClientProperties() {}

    /**
     * The settings in {@code file}, by key; none for an empty path.
     *
     * @throws IllegalArgumentException when the file cannot be read or sets a {@link #RESERVED}
     *     key, naming the file and the keys (never a value: it may be a secret)
     */
    public static Map<String, String> load(String file) {
        if (file == null || file.isBlank()) {
            return Map.of();
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no Kafka properties file " + file);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot read Kafka properties file " + file + ": " + e.getMessage());
        }
        Map<String, String> settings = new TreeMap<>();
        properties.stringPropertyNames().forEach(k -> settings.put(k, properties.getProperty(k)));
        List<String> reserved =
                RESERVED.stream().filter(settings::containsKey).collect(Collectors.toList());
        if (!reserved.isEmpty()) {
            throw new IllegalArgumentException(
                    "Kafka properties file "
                            + file
                            + " sets "
                            + reserved
                            + ", which the job and the API set themselves ("
                            + Settings.KAFKA_BOOTSTRAP.flag()
                            + " gives the brokers); remove them");
        }
        return Map.copyOf(settings);
    }

    /** Whether the value of {@code key} is or may hold a secret. */
    public static boolean isSecret(String key) {
        return SECRET_KEY.matcher(key).matches();
    }

    /**
     * {@code settings} fit for a log line, sorted by key: every value that may be a secret (a
     * password, a JAAS configuration with its password, a private key) replaced by {@code ***}.
     */
    public static String masked(Map<String, String> settings) {
        return new TreeMap<>(settings)
                .entrySet().stream()
                        .map(e -> e.getKey() + "=" + (isSecret(e.getKey()) ? MASK : e.getValue()))
                        .collect(Collectors.joining(", ", "{", "}"));
    }
}
