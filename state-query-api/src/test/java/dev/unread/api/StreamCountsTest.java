package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.RedisNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stream's snapshot read on the request's thread and a channel's notice on the subscriber's,
 * driven step by step on one thread against real Redis: the versions read, the job's write and
 * notice, the counts read, in each order. A notice not above the version read is in the snapshot
 * and makes no read; one above it makes one read, whose message brings the client to the oracle's
 * counts; notices during a read make one read more, not one each.
 */
class StreamCountsTest {

    private static final long USER = 23_001;
    private static final long SENDER = 23_002;
    private static final long CHANNEL = 83_001;

    private final ObjectMapper json = new ObjectMapper();
    private TestStores stores;
    private RedisUnread redis;
    private ChannelReads reads;
    private ChannelFacts facts;
    private final ChannelIndexWrites writes = new ChannelIndexWrites();
    private long seq;

    @BeforeEach
    void start() throws Exception {
        stores = new TestStores();
        redis =
                new RedisUnread(
                        ApiConfig.builder()
                                .redisUrl(TestStores.REDIS_URL)
                                .redisKeyPrefix(stores.keyPrefix)
                                .build(),
                        new ApiMetrics());
        reads = new ChannelReads(redis, stores.keyPrefix);
        facts = new ChannelFacts(List.of(USER, SENDER));
        ChannelFacts.Channel channel = facts.channel(CHANNEL);
        channel.memberships.add(new ChannelFacts.Membership(USER, 0, true));
        channel.memberships.add(new ChannelFacts.Membership(SENDER, 0, true));
        message();
    }

    @AfterEach
    void stop() throws Exception {
        redis.close();
        stores.close();
    }

    @Test
    void aNoticeNotAboveTheVersionReadIsInTheSnapshotAndMakesNoRead() {
        StreamCounts counts = new StreamCounts(USER);
        long version = message();
        assertThat(counts.channelChanged(CHANNEL, version)).isFalse();

        Map<Long, Long> read = reads.versions(Set.of(CHANNEL));
        CountAnswers.Snapshot snapshot = redis.snapshot(USER);
        StreamCounts.Start start = counts.start(snapshot, read, 1, json);

        assertThat(read.get(CHANNEL)).isEqualTo(version);
        assertThat(start.read()).isFalse();
        assertThat(unread(start.message())).isEqualTo(2);
    }

    @Test
    void aNoticeBetweenTheVersionsAndTheCountsReadMakesOneRead() {
        StreamCounts counts = new StreamCounts(USER);
        Map<Long, Long> read = reads.versions(Set.of(CHANNEL));
        long version = message();
        assertThat(counts.channelChanged(CHANNEL, version)).isFalse();
        CountAnswers.Snapshot snapshot = redis.snapshot(USER);

        StreamCounts.Start start = counts.start(snapshot, read, 1, json);

        assertThat(start.read()).isTrue();
        counts.reading();
        assertThat(counts.changes(redis.snapshot(USER), 2, json))
                .as("the snapshot held the message already")
                .isNull();
        assertThat(counts.again()).isFalse();
    }

    @Test
    void aNoticeAfterTheCountsReadMakesOneReadThatBringsTheMessage() {
        StreamCounts counts = new StreamCounts(USER);
        Map<Long, Long> read = reads.versions(Set.of(CHANNEL));
        CountAnswers.Snapshot snapshot = redis.snapshot(USER);
        long version = message();
        assertThat(counts.channelChanged(CHANNEL, version)).isFalse();

        StreamCounts.Start start = counts.start(snapshot, read, 1, json);

        assertThat(unread(start.message())).isEqualTo(1);
        assertThat(start.read()).isTrue();
        counts.reading();
        String change = counts.changes(redis.snapshot(USER), 2, json);
        assertThat(field(change, "conversations").get(Long.toString(CHANNEL)).asLong())
                .isEqualTo(2);
        assertThat(field(change, "totals").get("messages").asLong()).isEqualTo(2);
        assertThat(field(change, "version").asLong()).isEqualTo(2);
        assertThat(counts.again()).isFalse();
    }

    @Test
    void noticesDuringAReadMakeOneReadMore() {
        StreamCounts counts = new StreamCounts(USER);
        StreamCounts.Start start =
                counts.start(redis.snapshot(USER), reads.versions(Set.of(CHANNEL)), 1, json);
        assertThat(start.read()).isFalse();

        assertThat(counts.channelChanged(CHANNEL, message())).as("the first asks").isTrue();
        assertThat(counts.trackChanged()).as("a read is queued").isFalse();
        counts.reading();
        CountAnswers.Snapshot read = redis.snapshot(USER);
        assertThat(counts.channelChanged(CHANNEL, message())).isFalse();
        assertThat(counts.jobChanged(5)).isFalse();
        assertThat(unread(counts.changes(read, 2, json))).isEqualTo(2);
        assertThat(counts.again()).as("notices came during the read").isTrue();
        counts.reading();
        assertThat(unread(counts.changes(redis.snapshot(USER), 3, json))).isEqualTo(3);
        assertThat(counts.again()).isFalse();
        assertThat(counts.jobChanged(5)).as("not newer than the job's version known").isFalse();
    }

    /** A root from the sender, written as the job writes it; the channel's new index version. */
    private long message() {
        seq++;
        facts.channel(CHANNEL)
                .messages
                .put(seq, new ChannelFacts.Message(seq, SENDER, 0, Set.of(), false, false));
        facts.channel(CHANNEL).lastSeq = seq;
        writes.write(stores.redis, stores.keyPrefix, facts);
        return Long.parseLong(
                stores.redis.get(RedisNames.channelVersionKey(stores.keyPrefix, CHANNEL)));
    }

    private long unread(String message) {
        return field(message, "conversations").get(Long.toString(CHANNEL)).asLong();
    }

    private JsonNode field(String message, String name) {
        try {
            return json.readTree(message).get(name);
        } catch (Exception e) {
            throw new AssertionError(message, e);
        }
    }
}
