package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.JobOutputs;
import dev.unread.UnreadJob;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.DeadLetters;
import dev.unread.sources.BoundedRawRecords;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dead-letter producer against a real broker with the largest records the input topics accept:
 * a letter adds headers to the refused record, so without room for them the broker or the producer
 * would refuse the letter and fail the job, on every restart.
 */
class KafkaDeadLettersITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final Header[] NO_HEADERS = new Header[0];

    /** Larger than any letter may be, but a few bytes when compressed by its producer. */
    private static final int COMPRESSIBLE_BYTES = 12 * 1024 * 1024;

    @Test
    void theLargestRecordTheInputTopicAcceptsIsDeadLetteredWholeAndTheJobEnds() throws Exception {
        UnreadConfig config = KAFKA.freshTopics(Map.of("parallelism", "1"));
        int limit = maxMessageBytes(config.messagesTopic);
        int largest = largestValue(limit);
        byte[] value = new byte[largest];
        new Random(1).nextBytes(value);
        byte[] key = "10086".getBytes();

        byte[] tooLarge = new byte[largest + 1];
        try (KafkaProducer<byte[], byte[]> producer = producer("none")) {
            assertThatThrownBy(
                            () ->
                                    producer.send(
                                                    new ProducerRecord<>(
                                                            config.messagesTopic, 0, key, tooLarge))
                                            .get())
                    .as("one byte more than the largest record")
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            producer.send(new ProducerRecord<>(config.messagesTopic, 0, key, value)).get();
        }
        // The same broker takes a record far larger than that when its producer compressed it.
        byte[] compressible = new byte[COMPRESSIBLE_BYTES];
        try (KafkaProducer<byte[], byte[]> producer = producer("zstd")) {
            producer.send(new ProducerRecord<>(config.readsTopic, 1, key, compressible)).get();
        }

        run(config);

        List<ConsumerRecord<byte[], byte[]>> letters = KAFKA.records(config.deadLetterTopic);
        assertThat(letters).hasSize(2);
        ConsumerRecord<byte[], byte[]> whole = letter(letters, config.messagesTopic);
        assertThat(whole.value()).isEqualTo(value);
        assertThat(whole.key()).isEqualTo(key);
        assertThat(KafkaBroker.header(whole, DeadLetters.REASON))
                .isEqualTo("record of " + largest + " bytes exceeds 65536");
        assertThat(KafkaBroker.header(whole, DeadLetters.SOURCE_VALUE_BYTES)).isNull();

        ConsumerRecord<byte[], byte[]> cut = letter(letters, config.readsTopic);
        assertThat(cut.value()).isNull();
        assertThat(cut.key()).isEqualTo(key);
        assertThat(KafkaBroker.header(cut, DeadLetters.SOURCE_VALUE_BYTES))
                .isEqualTo(String.valueOf(COMPRESSIBLE_BYTES));
        assertThat(KafkaBroker.header(cut, DeadLetters.SOURCE_OFFSET)).isEqualTo("0");
    }

    /** Runs the job over what the input topics hold; throws if the job failed. */
    private static void run(UnreadConfig config) throws Exception {
        Configuration settings = JobSettings.of(config);
        settings.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(settings);
        new UnreadJob(
                        BoundedRawRecords.of(config, config.messagesTopic),
                        BoundedRawRecords.of(config, config.readsTopic),
                        BoundedRawRecords.of(config, config.conversationsTopic),
                        new JobOutputs(
                                new DiscardingSink<>(),
                                new DiscardingSink<>(),
                                new DiscardingSink<>(),
                                new DiscardingSink<>(),
                                new DiscardingSink<>(),
                                KafkaDeadLetters.sink(config),
                                new DiscardingSink<>()))
                .execute(env);
    }

    private static ConsumerRecord<byte[], byte[]> letter(
            List<ConsumerRecord<byte[], byte[]>> letters, String sourceTopic) {
        return letters.stream()
                .filter(l -> sourceTopic.equals(KafkaBroker.header(l, DeadLetters.SOURCE_TOPIC)))
                .findFirst()
                .orElseThrow();
    }

    /** The topic's effective {@code max.message.bytes}: its own, or the broker's default. */
    private static int maxMessageBytes(String topic) throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            return Integer.parseInt(config.get("max.message.bytes").value());
        }
    }

    /** The largest value whose record, with a 5-byte key, is a batch of at most {@code limit}. */
    private static int largestValue(int limit) {
        int value = limit;
        while (DefaultRecordBatch.RECORD_BATCH_OVERHEAD
                        + DefaultRecord.sizeInBytes(0, 0, 5, value, NO_HEADERS)
                > limit) {
            value--;
        }
        return value;
    }

    /** Not idempotent: a refused batch must not leave the next send out of sequence. */
    private static KafkaProducer<byte[], byte[]> producer(String compression) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.RETRIES_CONFIG, 0);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * COMPRESSIBLE_BYTES);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 4L * COMPRESSIBLE_BYTES);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
