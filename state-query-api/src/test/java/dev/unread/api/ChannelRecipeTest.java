package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The API's reads of members' channel counts (docs/contract.md, "Channels in Redis") on the real
 * Redis: the index and tracks written from random channel facts as the job writes them, every
 * user's answer against the oracle's count of the same facts, the totals with the channels added; a
 * user in 50 channels following 50 threads read in two round trips; and tracks or index keys that
 * are not the job's left out without failing the answer.
 */
class ChannelRecipeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TestStores stores;
    private ApiMetrics metrics;
    private CountingRedis counting;
    private UnifiedJedis countingClient;
    private RedisUnread redis;

    @BeforeEach
    void start() throws Exception {
        stores = new TestStores();
        metrics = new ApiMetrics();
        counting = new CountingRedis();
        countingClient = counting.client();
        redis = new RedisUnread(stores.redisConfig(), metrics, countingClient);
    }

    @AfterEach
    void stop() throws Exception {
        redis.close();
        stores.close();
    }

    @Test
    void everyAnswerIsTheOraclesCountOfTheFacts() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int round = 0; round < 40; round++) {
            long base = round(round);
            List<Long> users = LongStream.rangeClosed(1, 5).map(u -> base + u).boxed().toList();
            List<Long> channels =
                    LongStream.rangeClosed(1, 1 + random.nextInt(3))
                            .map(c -> base + 50 + c)
                            .boxed()
                            .toList();
            ChannelFacts facts =
                    ChannelFacts.random(random, users, channels, 10 + random.nextInt(60));
            ChannelIndexWrites writes = new ChannelIndexWrites();
            writes.write(stores.redis, stores.keyPrefix, facts);
            writes.writeMarks(stores.redis, stores.keyPrefix, facts);
            List<Map<String, Object>> expected = new ArrayList<>();
            for (long user : users) {
                expected.add(ChannelOracle.expected(facts, user, others(random, user, base)));
            }

            List<CountAnswers.UserAnswer> answers =
                    redis.read(users.stream().mapToLong(Long::longValue).toArray());

            for (int i = 0; i < users.size(); i++) {
                assertThat(JSON.writeValueAsString(answers.get(i)))
                        .as("seed %d, round %d, user %d", seed, round, users.get(i))
                        .isEqualTo(JSON.writeValueAsString(expected.get(i)));
            }
        }
    }

    @Test
    void aUserInFiftyChannelsFollowingFiftyThreadsIsReadInTwoRoundTrips() throws Exception {
        long user = 7;
        String tracks = RedisNames.channelTracksKey(stores.keyPrefix, user);
        for (long c = 1; c <= 50; c++) {
            stores.redis.setbit(RedisNames.channelSeqsKey(stores.keyPrefix, c), 10, true);
            stores.redis.setbit(RedisNames.channelSeqsKey(stores.keyPrefix, c), 20, true);
            stores.redis.zadd(RedisNames.channelAllKey(stores.keyPrefix, c), 20, "20");
            stores.redis.zadd(RedisNames.channelThreadKey(stores.keyPrefix, c, 10), 15, "15");
            stores.redis.hset(tracks, Long.toString(c), "{\"members\":[[2]],\"read\":5}");
            stores.redis.hset(tracks, RedisNames.threadField(c, 10), "{}");
        }
        redis.read(new long[] {user});
        String before = stores.redis.info("commandstats");
        counting.reset();

        UserUnreadJson answer = answer(redis.read(new long[] {user}).get(0));
        int reads = counting.roundTrips();
        String after = stores.redis.info("commandstats");
        counting.reset();
        CountAnswers.Snapshot snapshot = redis.snapshot(user);
        int snapshots = counting.roundTrips();
        counting.reset();
        redis.read(new long[] {user + 1});
        int withoutChannels = counting.roundTrips();

        assertThat(answer.section("conversations")).hasSize(50).containsEntry("1", 2);
        assertThat(answer.section("mentions")).hasSize(50).containsEntry("50", 1);
        assertThat(answer.section("threads")).hasSize(50).containsEntry("7:10", 1);
        assertThat(answer(snapshot.counts())).isEqualTo(answer);
        assertThat(reads).isEqualTo(2);
        assertThat(snapshots).isEqualTo(2);
        assertThat(withoutChannels).isEqualTo(1);
        // Three reads of the user (the first opened the connection), 2 per channel and thread each.
        assertThat(metrics.scrape()).contains("unread_api_channel_commands_total 600.0");
        System.out.printf(
                "a read of 50 channels and 50 followed threads: %d round trips (snapshot %d,"
                        + " no channels %d); Redis CPU of its counting commands on this shared"
                        + " Redis, from INFO commandstats: %s%n",
                reads, snapshots, withoutChannels, cpu(before, after));
    }

    @Test
    void tracksAndIndexKeysThatAreNotTheJobsAreLeftOutAndCounted() throws Exception {
        long user = 8;
        String tracks = RedisNames.channelTracksKey(stores.keyPrefix, user);
        stores.redis.setbit(RedisNames.channelSeqsKey(stores.keyPrefix, 3), 9, true);
        stores.redis.hset(RedisNames.channelSeqsKey(stores.keyPrefix, 2), "not", "a bitmap");
        stores.redis.hset(RedisNames.channelAllKey(stores.keyPrefix, 4), "x", "y");
        stores.redis.hset(tracks, "1", "{\"read\":-1,\"members\":[[1]]}");
        stores.redis.hset(tracks, "2", "{\"members\":[[1]]}");
        stores.redis.hset(tracks, "3", "{\"members\":[[1]]}");
        stores.redis.hset(tracks, "4", "{\"members\":[[1]]}");
        stores.redis.hset(tracks, "5", "[[[[[[");
        stores.redis.hset(tracks, "x:1", "{}");
        stores.redis.set(RedisNames.channelTracksKey(stores.keyPrefix, user + 1), "a string");

        List<CountAnswers.UserAnswer> answers = redis.read(new long[] {user, user + 1, user + 2});

        assertThat(answer(answers.get(0)).section("conversations"))
                .containsExactly(Map.entry("3", 1));
        assertThat(answers.get(1)).isInstanceOf(CountAnswers.Unreadable.class);
        assertThat(answers.get(2)).isInstanceOf(CountAnswers.UserUnread.class);
        assertThat(metrics.scrape())
                .contains("unread_api_channel_counts_skipped_total{reason=\"track\"} 3.0")
                .contains("unread_api_channel_counts_skipped_total{reason=\"index\"} 2.0");
    }

    /** An answer as its JSON reads. */
    private record UserUnreadJson(Map<String, Object> json) {
        @SuppressWarnings("unchecked")
        Map<String, Object> section(String name) {
            return (Map<String, Object>) json.get(name);
        }
    }

    @SuppressWarnings("unchecked")
    private static UserUnreadJson answer(CountAnswers.UserAnswer answer) throws Exception {
        return new UserUnreadJson(JSON.readValue(JSON.writeValueAsString(answer), Map.class));
    }

    /** The calls and microseconds of BITCOUNT and ZCOUNT between two INFO commandstats. */
    private static String cpu(String before, String after) {
        StringBuilder cpu = new StringBuilder();
        for (String command : new String[] {"bitcount", "zcount"}) {
            long[] b = stat(before, command);
            long[] a = stat(after, command);
            cpu.append(command)
                    .append(' ')
                    .append(a[0] - b[0])
                    .append(" calls ")
                    .append(a[1] - b[1])
                    .append(" us; ");
        }
        return cpu.toString();
    }

    private static long[] stat(String info, String command) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String[] fields = line.substring(line.indexOf(':') + 1).split(",");
                return new long[] {
                    Long.parseLong(fields[0].substring("calls=".length())),
                    Long.parseLong(fields[1].substring("usec=".length()))
                };
            }
        }
        return new long[] {0, 0};
    }

    private static long round(int round) {
        return 1_000L * (round + 1);
    }

    /**
     * Counts of conversations that are not channels, written as the job writes them, with totals
     * that leave the channels out; one of them marked.
     */
    private ChannelOracle.Others others(Random random, long user, long base) {
        Map<Long, Long> conversations = new LinkedHashMap<>();
        Map<Long, Long> mentions = new LinkedHashMap<>();
        long senders = random.nextInt(3);
        if (senders > 0) {
            stores.redis.set(Count.SENDERS.key(stores.keyPrefix, user), Long.toString(senders));
        }
        if (random.nextBoolean()) {
            conversations.put(base + 1, 3L);
            mentions.put(base + 1, 1L);
            stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, user), "" + (base + 1), "3");
            stores.redis.hset(Count.MENTIONS.key(stores.keyPrefix, user), "" + (base + 1), "1");
        }
        Map<String, Long> totals = new LinkedHashMap<>();
        totals.put(RedisNames.TOTAL_MESSAGES, conversations.isEmpty() ? 0L : 3L);
        totals.put(RedisNames.TOTAL_MENTIONS, mentions.isEmpty() ? 0L : 1L);
        totals.put(RedisNames.TOTAL_CONVERSATIONS, conversations.isEmpty() ? 1L : 2L);
        totals.put(RedisNames.TOTAL_THREADS, 0L);
        totals.forEach(
                (field, n) -> {
                    if (n != 0) {
                        stores.redis.hset(
                                Count.TOTAL_MESSAGES.key(stores.keyPrefix, user),
                                field,
                                Long.toString(n));
                    }
                });
        stores.redis.sadd(Count.MARKED.key(stores.keyPrefix, user), "" + (base + 2));
        return new ChannelOracle.Others(
                senders, conversations, mentions, totals, List.of(base + 2));
    }
}
