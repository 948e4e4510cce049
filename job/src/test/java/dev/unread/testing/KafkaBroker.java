package dev.unread.testing;

import dev.unread.config.UnreadConfig;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Kafka broker ({@link EmbeddedKafka}) per test class, on a free port of 127.0.0.1, with
 * helpers to publish raw records and to read a topic back, headers included.
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();
 *
 * UnreadConfig config = KAFKA.freshTopics(Map.of());   // unique topic names, created
 * KAFKA.produce(config.messagesTopic, "10086", json);
 * List<ConsumerRecord<byte[], byte[]>> letters =
 *         KAFKA.awaitRecords(config.deadLetterTopic, 1, Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>Tests in one class share the broker, so each test should use its own topics ({@link
 * #freshTopics}) rather than the defaults.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {

    /** Producers may publish records this large: enough for oversized-record tests. */
    public static final int MAX_RECORD_BYTES = 2 * 1024 * 1024 + 64 * 1024;

    /** The SCRAM users of {@link #withSaslSsl}, name to password; null: a plaintext broker only. */
    private final Map<String, String> scramUsers;

    private EmbeddedKafka kafka;
    private Path tlsDir;
    private TestCertificate certificate;

    /** A plaintext broker. */
    public KafkaBroker() {
        this(null);
    }

    private KafkaBroker(Map<String, String> scramUsers) {
        this.scramUsers = scramUsers;
    }

    /**
     * A broker that also listens with SASL_SSL ({@link #saslSslBootstrapServers()}): SCRAM-SHA-512
     * for {@code users} (name to password), TLS from a certificate made with keytool, and there
     * only what ACLs grant ({@link EmbeddedKafka.SaslSslListener}). Topics and ACLs are created,
     * and records published and read back, over the plaintext listener, which may do anything.
     */
    public static KafkaBroker withSaslSsl(Map<String, String> users) {
        return new KafkaBroker(Map.copyOf(users));
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (scramUsers == null) {
            kafka = EmbeddedKafka.start(0);
            return;
        }
        tlsDir = TempDirs.create("unread-kafka-tls-");
        certificate = TestCertificate.create(tlsDir);
        kafka =
                EmbeddedKafka.start(
                        0,
                        new EmbeddedKafka.SaslSslListener(
                                certificate.keystore(), certificate.password(), scramUsers));
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (kafka != null) {
            kafka.close();
            kafka = null;
        }
        if (tlsDir != null) {
            TempDirs.delete(tlsDir);
            tlsDir = null;
        }
    }

    public EmbeddedKafka kafka() {
        if (kafka == null) {
            throw new IllegalStateException("the broker runs only inside the test class");
        }
        return kafka;
    }

    public String bootstrapServers() {
        return kafka().bootstrapServers();
    }

    /** The SASL_SSL listener of a {@link #withSaslSsl} broker. */
    public String saslSslBootstrapServers() {
        return kafka().saslSslBootstrapServers();
    }

    /**
     * Writes to {@code file} the client.properties of a client of the SASL_SSL listener, as an
     * operator would: TLS trusting this broker's certificate (the truststore's password inline),
     * SCRAM-SHA-512 as {@code user} with {@code password} in the JAAS configuration (a literal, or
     * a config provider's reference such as {@code ${env:NAME}}, which the file enables for the
     * environment).
     */
    public Path writeClientProperties(Path file, String user, String password) throws IOException {
        StringBuilder text = new StringBuilder();
        saslSslSettings(user, password)
                .forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        text.append("config.providers=env\n")
                .append("config.providers.env.class=")
                .append("org.apache.kafka.common.config.provider.EnvVarConfigProvider\n");
        Files.writeString(file, text.toString());
        return file;
    }

    /** The settings of a client of the SASL_SSL listener as {@code user}, in the file's order. */
    private Map<String, String> saslSslSettings(String user, String password) {
        if (certificate == null) {
            throw new IllegalStateException("this broker was started without a SASL_SSL listener");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", EmbeddedKafka.SaslSslListener.MECHANISM);
        settings.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + user
                        + "\" password=\""
                        + password
                        + "\";");
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.location", certificate.truststore().toString());
        settings.put("ssl.truststore.password", certificate.password());
        return settings;
    }

    /** The password of the truststore {@link #writeClientProperties} names: a secret too. */
    public String truststorePassword() {
        return certificate.password();
    }

    /**
     * A config pointing at this broker with the four topics under unique names (and a unique
     * consumer group), all created. {@code settings} may change anything else.
     */
    public UnreadConfig freshTopics(Map<String, String> settings) {
        return freshTopics(settings, bootstrapServers(), Map.of());
    }

    /**
     * {@link #freshTopics} with the job's Kafka clients on the SASL_SSL listener, configured by the
     * {@code clientProperties} file ({@link #writeClientProperties}), and the job's secrets from
     * {@code env} as it reads them from its environment ({@link UnreadConfig#JDBC_PASSWORD_ENV}).
     */
    public UnreadConfig freshTopicsOverSaslSsl(
            Map<String, String> settings, Path clientProperties, Map<String, String> env) {
        Map<String, String> all = new HashMap<>(settings);
        all.put("kafka-properties", clientProperties.toString());
        return freshTopics(all, saslSslBootstrapServers(), env);
    }

    private UnreadConfig freshTopics(
            Map<String, String> settings, String bootstrap, Map<String, String> env) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> all = new HashMap<>();
        all.put("messages-topic", "chat-messages-" + suffix);
        all.put("reads-topic", "chat-reads-" + suffix);
        all.put("conversations-topic", "chat-conversations-" + suffix);
        all.put("dead-letter-topic", "chat-dead-letters-" + suffix);
        all.put("group-id", "unread-" + suffix);
        all.putAll(settings);
        all.put("kafka-bootstrap", bootstrap);
        UnreadConfig config = UnreadConfig.from(all, env);
        kafka().createTopics(
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic,
                        config.deadLetterTopic);
        return config;
    }

    /** Creates {@code topic} with {@link EmbeddedKafka#PARTITIONS} partitions unless it exists. */
    public void createTopic(String topic) {
        kafka().createTopic(topic, EmbeddedKafka.PARTITIONS, Map.of());
    }

    /** Publishes one record, key and value as UTF-8 ({@code null} stays null), and waits for it. */
    public void produce(String topic, String key, String value) {
        produce(topic, utf8(key), utf8(value));
    }

    /** Publishes one record of raw bytes and waits until the broker has it. */
    public void produce(String topic, byte[] key, byte[] value) {
        produce(List.of(new ProducerRecord<>(topic, key, value)));
    }

    /** Publishes the records in order and waits until the broker has all of them. */
    public void produce(List<ProducerRecord<byte[], byte[]>> records) {
        produce(producer(), records);
    }

    /**
     * {@link #produce(List)} over the SASL_SSL listener as {@code user}: with only the rights its
     * ACLs grant.
     */
    public void produceAs(
            String user, String password, List<ProducerRecord<byte[], byte[]>> records) {
        produce(producerAs(user, password), records);
    }

    private static void produce(
            KafkaProducer<byte[], byte[]> client, List<ProducerRecord<byte[], byte[]>> records) {
        try (KafkaProducer<byte[], byte[]> producer = client) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> record : records) {
                sends.add(producer.send(record));
            }
            // flush() does not throw when a send failed; the futures do.
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to Kafka", e);
        }
    }

    /**
     * A producer of raw bytes that waits for the broker's acknowledgement; the caller closes it.
     */
    public KafkaProducer<byte[], byte[]> producer() {
        return producer(bootstrapServers(), Map.of());
    }

    /**
     * {@link #producer()} of the SASL_SSL listener as {@code user}, with only the rights its ACLs
     * grant; the caller closes it.
     */
    public KafkaProducer<byte[], byte[]> producerAs(String user, String password) {
        return producer(saslSslBootstrapServers(), saslSslSettings(user, password));
    }

    private static KafkaProducer<byte[], byte[]> producer(
            String bootstrap, Map<String, String> security) {
        Map<String, Object> props = new HashMap<>(security);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Every record in {@code topic} now, from the first offset to the end, in partition order. */
    public List<ConsumerRecord<byte[], byte[]>> records(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end " + end);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            return records;
        }
    }

    /**
     * Reads {@code topic} from its start until it holds at least {@code count} records, and returns
     * all it read; fails with what it saw if {@code timeout} passes first.
     */
    public List<ConsumerRecord<byte[], byte[]>> awaitRecords(
            String topic, int count, Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < count) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "expected at least "
                                    + count
                                    + " records in "
                                    + topic
                                    + " within "
                                    + timeout
                                    + ", got "
                                    + records.size()
                                    + ": "
                                    + describe(records));
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            return records;
        }
    }

    /** The last value of header {@code name} as UTF-8, or null when the record has none. */
    public static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null
                ? null
                : new String(header.value(), StandardCharsets.UTF_8);
    }

    public static String utf8(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    public static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, EmbeddedKafka.MAX_MESSAGE_BYTES);
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, EmbeddedKafka.MAX_MESSAGE_BYTES);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new AssertionError("no topic " + topic);
        }
        return infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    private static String describe(List<ConsumerRecord<byte[], byte[]>> records) {
        StringBuilder sb = new StringBuilder();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            sb.append(
                    String.format(
                            "%n  %s-%d@%d key=%s value=%s",
                            r.topic(),
                            r.partition(),
                            r.offset(),
                            utf8(r.key()),
                            abbreviate(utf8(r.value()))));
        }
        return sb.toString();
    }

    private static String abbreviate(String text) {
        return text == null || text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
