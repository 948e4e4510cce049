package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.sinks.KafkaDeadLetters;
import dev.unread.sources.KafkaRawRecords;
import dev.unread.testing.ListeningSockets;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

class LocalStackITCase {

    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final List<String> FREE_PORTS =
            List.of("--kafka-port", "0", "--flink-ui-port", "0", "--api-port", "0");

    @Test
    void theStackRunsTheJobOnRocksDbAndTheReadyLineNamesTheBootstrapAddress() throws Exception {
        LocalStack.Options options = LocalStack.Options.parse(FREE_PORTS, Map.of());

        try (LocalStack stack = LocalStack.start(options, Map.of(), LocalStackITCase::withoutRedisOrMySql)) {
            assertThat(stack.awaitRunning(STARTUP, new CountDownLatch(1))).isTrue();

            assertThat(stack.jobStatus()).isEqualTo(JobStatus.RUNNING);
            assertThat(stack.bootstrapServers()).startsWith("127.0.0.1:");
            assertThat(stack.readyLine())
                    .contains("Kafka bootstrap " + stack.bootstrapServers())
                    .contains("Flink UI " + stack.flinkUi());
            assertThat(stack.executionGraph().getStateBackendName()).hasValueSatisfying(
                    name -> assertThat(name).containsIgnoringCase("rocksdb"));
            assertThat(get(stack.flinkUi() + "/jobs/overview"))
                    .contains(stack.jobId().toString())
                    .contains("RUNNING");
            assertThat(ListeningSockets.ofThisProcess())
                    .extracting(InetSocketAddress::getPort)
                    .contains(stack.flinkUi().getPort(), Integer.parseInt(stack.bootstrapServers().split(":")[1]));
            assertThat(ListeningSockets.ofThisProcess()).allSatisfy(
                    a -> assertThat(a.getAddress().isLoopbackAddress()).as(a.toString()).isTrue());
        }
    }

    @Test
    void aJobThatFailsWhileStartingIsReportedWithItsCause() throws Exception {
        LocalStack.Options options = LocalStack.Options.parse(FREE_PORTS, Map.of());

        try (LocalStack stack = LocalStack.start(options, Map.of(), LocalStackITCase::withFailingCounts)) {
            assertThatThrownBy(() -> stack.awaitRunning(STARTUP, new CountDownLatch(1)))
                    .hasMessage("the job failed while starting")
                    .hasStackTraceContaining("Redis is unreachable");
        }
    }

    /** The production job with Redis and MySQL left out: Kafka in, dead letters to Kafka. */
    private static UnreadJob withoutRedisOrMySql(UnreadConfig config) {
        return job(config, new DiscardingSink<>());
    }

    private static UnreadJob withFailingCounts(UnreadConfig config) {
        return job(config, new FailingSink());
    }

    private static UnreadJob job(UnreadConfig config, Sink<UnreadCount> counts) {
        return new UnreadJob(
                KafkaRawRecords.source(config, config.messagesTopic),
                KafkaRawRecords.source(config, config.readsTopic),
                new UnreadJob.Outputs(
                        counts,
                        new DiscardingSink<ConversationCursor>(),
                        new DiscardingSink<InboxCursor>(),
                        new DiscardingSink<ConversationCursor>(),
                        KafkaDeadLetters.sink(config)));
    }

    private static final class FailingSink implements Sink<UnreadCount> {
        @Override
        public SinkWriter<UnreadCount> createWriter(WriterInitContext context) {
            throw new IllegalStateException("Redis is unreachable");
        }
    }

    private static String get(String url) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(java.net.URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
