package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.cli.JobApiReads;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import dev.unread.kafka.TempDirs;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Oracle;
import dev.unread.testing.TestRedis;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code unread bench}'s channel runs (issue 47) on a small size: each run measures the messages it
 * was given, the report carries every figure beside its goal, and the large channel's counts, read
 * by the API with the recipe, are what version 4's rules give a member who never sent (for whom a
 * channel counts as a group does).
 */
class ChannelBenchITCase {

    private static final int MEMBERS = 2_000;
    private static final int SMALL_MEMBERS = 100;
    private static final long MESSAGES = 2_000;
    private static final long GROUP_MESSAGES = 300;

    /** Shares high enough that a small run names, mentions everyone and replies many times. */
    private static final ChannelBench.Options OPTIONS =
            new ChannelBench.Options(
                    MEMBERS, SMALL_MEMBERS, MESSAGES, GROUP_MESSAGES, 0.05, 0.03, 0.2);

    @Test
    void eachRunMeasuresItsMessagesAndTheLargeChannelCountsAMemberExactly() throws Exception {
        ChannelBench.Result result;
        JsonNode answer;
        Path dataDir = TempDirs.create("unread-channel-bench-");
        try (MySqlTestDatabase db = MySqlTestDatabase.create();
                EmbeddedKafka kafka = EmbeddedKafka.start(0)) {
            Map<String, String> settings = new HashMap<>();
            settings.put("redis-key-prefix", TestRedis.uniquePrefix());
            settings.put("jdbc-url", db.jdbcUrl());
            settings.put("jdbc-user", db.name);
            settings.put("checkpoint-interval-ms", String.valueOf(Bench.NO_PERIODIC_CHECKPOINTS));
            try (Bench bench =
                    new Bench(
                            options(),
                            settings,
                            Map.of(UnreadConfig.JDBC_PASSWORD_ENV, db.password),
                            System.out)) {
                result = ChannelBench.run(bench, OPTIONS, kafka, dataDir);
            }
            UnreadConfig large = result.large().config();
            try {
                answer = unread(large, result.large().lurker());
            } finally {
                RedisKeys.deleteUnder(large.redisEndpoint(), settings.get("redis-key-prefix"));
            }
        } finally {
            TempDirs.delete(dataDir);
        }

        long conversation = ChannelTraffic.CONVERSATION;
        long lurker = result.large().lurker();
        Oracle oracle = Oracle.of(deliveriesTo(lurker));
        long unread = oracle.unread(lurker, conversation);
        long mentions = oracle.mentions(lurker, conversation);
        assertThat(unread).isPositive();
        assertThat(mentions).isPositive();
        String c = Long.toString(conversation);
        assertThat(answer.path("conversations").path(c).asLong())
                .as("unread of %d in the channel: %s", lurker, answer)
                .isEqualTo(unread);
        assertThat(answer.path("mentions").path(c).asLong())
                .as("mentions of %d in the channel: %s", lurker, answer)
                .isEqualTo(mentions);

        ChannelBench.Run large = result.large();
        ChannelBench.Run small = result.small();
        ChannelBench.Run group = result.group();
        assertThat(List.of(large.members(), small.members(), group.members()))
                .containsExactly(MEMBERS, SMALL_MEMBERS, SMALL_MEMBERS);
        assertThat(List.of(large.messages(), small.messages(), group.messages()))
                .containsExactly(MESSAGES, MESSAGES, GROUP_MESSAGES);
        // The same draws whatever the size: the same mentions and threads.
        assertThat(large.named()).isEqualTo(small.named()).isPositive();
        assertThat(large.mentionsAll()).isEqualTo(small.mentionsAll()).isPositive();
        assertThat(large.replies()).isEqualTo(small.replies()).isPositive();
        for (ChannelBench.Run run : List.of(large, small, group)) {
            assertThat(run.job().traffic().messages()).as(run.name()).isEqualTo(run.messages());
            assertThat(run.job().nanos()).as(run.name()).isPositive();
            assertThat(run.job().cpuNanos()).as(run.name()).isPositive();
            assertThat(run.job().compilingMillis()).as(run.name()).isNotNegative();
            // The first quarter of the messages is left out of the rate, or none of them in a
            // run whose stage took in the rest before the bench looked again.
            double share = run.job().measuredShare();
            assertThat(share == 1 || (share > 0.65 && share <= 1 - ChannelBench.UNMEASURED_SHARE))
                    .as("%s measured %.4f of its messages", run.name(), share)
                    .isTrue();
            assertThat(run.job().wholeRunMessagesPerSecond()).as(run.name()).isPositive();
            assertThat(run.job().redisCommands()).as(run.name()).isPositive();
            assertThat(run.messagesPerSecond()).as(run.name()).isPositive();
        }
        assertThat(large.job().commandsBySink().get("Redis channels: Writer")).isPositive();
        // Every message is a root or a reply: a block or a thread's set each, and its sender's
        // track, as sending reads.
        assertThat(large.job().channelWrites().index()).isGreaterThanOrEqualTo(MESSAGES);
        assertThat(large.job().channelWrites().tracks()).isGreaterThanOrEqualTo(MESSAGES);
        assertThat(group.job().channelWrites()).isEqualTo(new JobFigures.ChannelWrites(0, 0));
        assertThat(group.job().commandsBySink()).containsEntry("Redis channels: Writer", 0L);

        StringBuilder md = new StringBuilder();
        ChannelReport.section(md, result);
        ChannelReport.targets(md, result);
        System.out.println(md);
        assertThat(md.toString())
                .contains(
                        "## Channels: 2,000 members beside 100, and a group of 100",
                        "| channel | 2,000 | 2,000 |",
                        "| channel | 100 | 2,000 |",
                        "| job CPU s | of it JIT s | stolen |",
                        "| messages/s | whole run, messages/s |",
                        "| group (fanned out) | 100 | 300 |",
                        "| ≥ 20,000 messages/s into the channel of 2,000 members |",
                        "| channel of 2,000 members ≥ 0.8× the channel of 100's messages/s",
                        "| ≤ 8 Redis commands per message + 3 per user named by id",
                        "| channel of 2,000 | Redis channels ",
                        "| | index writes per message | track writes per message |",
                        "| group of 100 | ");
    }

    /**
     * The large channel's records as a producer fanning out itself would deliver them to {@code
     * user}: what version 4 counts for a member who never sends.
     */
    private static List<ChatEvent> deliveriesTo(long user) {
        ChannelTraffic traffic =
                new ChannelTraffic(true, MEMBERS, OPTIONS, Bench.SYNTHETIC_START_MILLIS);
        ProducerFanOut fanOut = new ProducerFanOut();
        List<ChatEvent> events = new ArrayList<>();
        traffic.memberships(record -> fanOut.apply(record, r -> {}));
        traffic.messages(
                MESSAGES,
                record ->
                        fanOut.apply(
                                record,
                                r -> {
                                    if (r.event().userId == user) {
                                        events.add(r.event());
                                    }
                                }));
        return events;
    }

    /** The API's answer for {@code user}, reading the run's keys. */
    private static JsonNode unread(UnreadConfig config, long user) throws Exception {
        return JobApiReads.get(config, "/api/users/" + user + "/unread");
    }

    /** The channel runs alone: every other part of the bench is left out. */
    private static BenchOptions options() {
        Workload workload = Workload.builder().receivers(100).build();
        return new BenchOptions(
                workload,
                workload,
                1,
                2,
                List.of(),
                List.of(),
                0,
                Duration.ZERO,
                0,
                0,
                null,
                null,
                false,
                0,
                Duration.ZERO,
                null,
                0,
                Duration.ZERO,
                null,
                null,
                null,
                false,
                null,
                0,
                OPTIONS);
    }
}
