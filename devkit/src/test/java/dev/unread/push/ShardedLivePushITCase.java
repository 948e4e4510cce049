package dev.unread.push;

import static dev.unread.push.LiveStream.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.cli.JobApi;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.EventJson;
import dev.unread.contract.RedisNames;
import dev.unread.testing.BroadcastWitness;
import dev.unread.testing.JobHarness;
import dev.unread.testing.KafkaBroker;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.RedisClusterServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live push on a real Redis Cluster (three primaries, three replicas): the job's sinks SPUBLISH a
 * user's UNREAD_CHANGED and READ_RECEIPTS on shard channels and the API's stream hears both, while
 * classic subscribers on every node hear nothing of them (no broadcast); and when the primary
 * owning one of the user's channels is killed, the stream is told to RECONNECT and a new stream,
 * subscribed where the slot map now says, hears the user's changes and receipts again.
 */
class ShardedLivePushITCase {

    @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();
    @RegisterExtension static final RedisClusterServer REDIS = new RedisClusterServer();

    @RegisterExtension static final MiniClusterExtension FLINK = JobHarness.miniCluster();

    private static final long USER = 10086;
    private static final long READER = 3;
    private static final long CONVERSATION = 90001;
    private static final long T0 = System.currentTimeMillis();

    @TempDir Path checkpoints;

    @Test
    void aStreamHearsShardChannelsOnlyAndReconnectsWhenTheirPrimaryDies() throws Exception {
        long seed = JobHarness.seed("ShardedLivePushITCase");
        String prefix = JobHarness.prefix("sharded-push", seed);
        try (MySqlTestDatabase db = MySqlTestDatabase.create()) {
            Map<String, String> settings = JobHarness.settings(prefix, db.jdbcUrl());
            settings.putAll(REDIS.settings());
            UnreadConfig config = KAFKA.freshTopics(settings);
            Configuration flink = JobHarness.flinkSettings(config, checkpoints);
            ApiConfig apiConfig = JobApi.config(config, Map.of()).port(0).build();
            JobClient job =
                    JobHarness.start(UnreadJob.forProduction(config), flink, "sharded push");
            int killed = 0;
            try (StateQueryApi api = StateQueryApi.start(apiConfig);
                    BroadcastWitness witness = new BroadcastWitness(REDIS.ports(), prefix)) {
                LiveStream stream = LiveStream.open(api.port(), USER);
                assertThat(stream).as("a stream opens on a healthy cluster").isNotNull();
                stream.snapshot();

                message(config, 1, 1);
                stream.next(senders(1));
                // The reader's receipts concern the user once the job learnt that both take part.
                KAFKA.produce(
                        config.messagesTopic,
                        EventJson.key(USER),
                        EventJson.message(READER, USER, T0 + 3000, CONVERSATION, 1));
                long seq = awaitReceipt(config, stream, 1);
                assertThat(witness.heard())
                        .as("classic subscribers on every node of the cluster")
                        .isEmpty();

                String channel = RedisNames.unreadChangedChannel(prefix, USER);
                int owner = REDIS.primaryOwning(channel);
                killed = REDIS.killPrimary(REDIS.primaries().indexOf(owner));
                stream.next(type("RECONNECT"));
                stream.close();
                REDIS.awaitFailover(killed);

                LiveStream again =
                        Poll.until(
                                "a new stream opens after the failover",
                                JobHarness.CONVERGENCE,
                                () -> LiveStream.open(api.port(), USER));
                try (again) {
                    again.snapshot();
                    message(config, 2, 2);
                    // Three senders by now: 1, the reader, and 2.
                    again.next(senders(3));
                    awaitReceipt(config, again, seq + 1);
                }
            } finally {
                job.cancel().get();
                REDIS.deleteKeys(prefix);
                if (killed != 0) {
                    REDIS.restart(killed);
                }
            }
        }
    }

    /**
     * Reads by {@link #READER} in the user's conversation from {@code seq} on, one at a time, until
     * the stream hears the receipt of one: the job learns on a path of its own that the user takes
     * part. The receipt heard may be of an earlier read of these than the last one sent, still on
     * its way under load. Returns the seq heard.
     *
     * <p>Receipts are at least once (docs/contract.md, "Read receipts channel"): after the failover
     * a receipt of a read before {@code seq} may come again, delivered or not before. Such a repeat
     * is passed over, its shape checked as any receipt's; only a receipt of a read from {@code seq}
     * on ends the wait.
     */
    private static long awaitReceipt(UnreadConfig config, LiveStream stream, long seq)
            throws Exception {
        for (long next = seq; next < seq + 30; next++) {
            KAFKA.produce(
                    config.readsTopic,
                    EventJson.key(READER),
                    EventJson.conversationRead(READER, CONVERSATION, next, T0 + 4000));
            long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            JsonNode receipt;
            while ((receipt =
                            stream.poll(
                                    type("READ_RECEIPT"),
                                    Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))))
                    != null) {
                long heard = receipt.path("readSeq").asLong();
                assertThat(heard).as("the seq of a read sent, in " + receipt).isBetween(1L, next);
                assertThat(receipt.toString())
                        .isEqualTo(
                                "{\"type\":\"READ_RECEIPT\",\"conversationId\":"
                                        + CONVERSATION
                                        + ",\"userId\":"
                                        + READER
                                        + ",\"readSeq\":"
                                        + heard
                                        + "}");
                if (heard >= seq) {
                    return heard;
                }
            }
        }
        throw new AssertionError(
                "no READ_RECEIPT within 30 reads; the stream sent " + stream.seen());
    }

    /** A message from a new sender to {@link #USER}, sent {@code second}s after T0. */
    private static void message(UnreadConfig config, long sender, long second) {
        KAFKA.produce(
                config.messagesTopic,
                EventJson.key(USER),
                EventJson.message(sender, USER, T0 + second * 1000));
    }

    private static Predicate<JsonNode> senders(long senders) {
        return m ->
                m.get("type").asText().equals("UNREAD_CHANGED")
                        && m.path("unreadSenders").asLong(-1) == senders;
    }
}
