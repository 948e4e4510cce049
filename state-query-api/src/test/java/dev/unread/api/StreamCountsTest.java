package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.Count;
import dev.unread.contract.RedisNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;

/**
 * A stream's snapshot read on the request's thread and a channel's notice on the subscriber's,
 * driven step by step on one thread against real Redis: the versions read, the job's write and
 * notice, the counts read, in each order. A notice not above the version read is in the snapshot
 * and makes no read; one above it makes one read, whose message brings the client to the oracle's
 * counts; notices during a read make one read more, not one each. The job's changes of a user with
 * no channel are merged without a read into the message a read would send, but wait for a read
 * under way, and stop being merged once a track changed.
 */
class StreamCountsTest {

    private static final long USER = 23_001;
    private static final long SENDER = 23_002;
    private static final long CHANNEL = 83_001;

    /** A user in no channel. */
    private static final long LONER = 23_003;

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
        redis = stores.redisUnread();
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
        assertThat(job(counts, 5, "{}")).isEqualTo(StreamCounts.Job.NOTHING);
        assertThat(unread(counts.changes(read, 2, json))).isEqualTo(2);
        assertThat(counts.again()).as("notices came during the read").isTrue();
        counts.reading();
        assertThat(unread(counts.changes(redis.snapshot(USER), 3, json))).isEqualTo(3);
        assertThat(counts.again()).isFalse();
        assertThat(job(counts, 5, "{}"))
                .as("not newer than the job's version known")
                .isEqualTo(StreamCounts.Job.NOTHING);
    }

    @Test
    void theJobsChangesOfAUserWithNoChannelAreMergedIntoTheSameMessageAReadSends() {
        try (AbstractPipeline p = stores.redis.pipelined()) {
            p.set(Count.SENDERS.key(stores.keyPrefix, LONER), "2");
            p.hset(
                    Count.CONVERSATION.key(stores.keyPrefix, LONER),
                    Map.of("80002", "3", "80005", "1"));
            p.hset(Count.MENTIONS.key(stores.keyPrefix, LONER), "80002", "1");
            p.hset(
                    Count.TOTAL_MESSAGES.key(stores.keyPrefix, LONER),
                    Map.of("messages", "4", "mentions", "1", "conversations", "2"));
            p.sadd(Count.MARKED.key(stores.keyPrefix, LONER), "80007");
            p.hset(Count.THREAD.key(stores.keyPrefix, LONER), "80002:5", "2");
            p.set(RedisNames.versionKey(stores.keyPrefix, LONER), "1");
        }
        StreamCounts merging = new StreamCounts(LONER);
        StreamCounts reading = new StreamCounts(LONER);
        merging.start(redis.snapshot(LONER), Map.of(), 1, json);
        reading.start(redis.snapshot(LONER), Map.of(), 1, json);

        try (AbstractPipeline p = stores.redis.pipelined()) {
            p.set(Count.SENDERS.key(stores.keyPrefix, LONER), "3");
            p.hset(Count.CONVERSATION.key(stores.keyPrefix, LONER), "80001", "7");
            p.hdel(Count.CONVERSATION.key(stores.keyPrefix, LONER), "80005");
            p.hdel(Count.MENTIONS.key(stores.keyPrefix, LONER), "80002");
            p.hset(Count.TOTAL_MESSAGES.key(stores.keyPrefix, LONER), "messages", "10");
            p.srem(Count.MARKED.key(stores.keyPrefix, LONER), "80007");
            p.sadd(Count.MARKED.key(stores.keyPrefix, LONER), "80003");
            p.hdel(Count.THREAD.key(stores.keyPrefix, LONER), "80002:5");
            p.hset(Count.THREAD.key(stores.keyPrefix, LONER), "80001:2", "1");
            p.set(RedisNames.versionKey(stores.keyPrefix, LONER), "2");
        }
        StreamCounts.Job merged =
                job(
                        merging,
                        2,
                        "\"unreadSenders\":3,\"conversations\":{\"80005\":0,\"80001\":7},"
                                + "\"mentions\":{\"80002\":0},"
                                + "\"totals\":{\"messages\":10,\"conversations\":2},"
                                + "\"markedUnread\":{\"80007\":false,\"80003\":true},"
                                + "\"threads\":{\"80002:5\":0,\"80001:2\":1}");
        reading.reading();
        String read = reading.changes(redis.snapshot(LONER), 9, json);

        assertThat(merged.read()).isFalse();
        assertThat(merged.message().version()).isEqualTo(9);
        assertThat(merged.message().text()).isEqualTo(read);
        assertThat(field(read, "conversations").toString()).isEqualTo("{\"80001\":7,\"80005\":0}");
        assertThat(field(read, "markedUnread").toString())
                .isEqualTo("{\"80003\":true,\"80007\":false}");
        assertThat(field(read, "totals").toString()).isEqualTo("{\"messages\":10}");
        assertThat(merging.again()).as("no notice came meanwhile").isFalse();
        assertThat(job(merging, 2, "\"unreadSenders\":4")).isEqualTo(StreamCounts.Job.NOTHING);
        assertThat(job(merging, 3, "\"unreadSenders\":3"))
                .as("nothing changed: nothing to send")
                .isEqualTo(StreamCounts.Job.NOTHING);
    }

    @Test
    void aJobChangeOfAUserWithNoChannelWaitsForAReadUnderWayAndATrackChangeEndsTheMerging() {
        StreamCounts counts = new StreamCounts(LONER);
        assertThat(job(counts, 1, "\"unreadSenders\":1"))
                .as("before the snapshot")
                .isEqualTo(StreamCounts.Job.NOTHING);
        assertThat(counts.start(redis.snapshot(LONER), Map.of(), 1, json).read())
                .as("the snapshot lacks the change")
                .isTrue();
        counts.reading();
        assertThat(job(counts, 2, "\"unreadSenders\":2"))
                .as("during a read")
                .isEqualTo(StreamCounts.Job.NOTHING);
        assertThat(counts.changes(redis.snapshot(LONER), 2, json)).isNull();
        assertThat(counts.again()).as("a change came during the read").isTrue();
        counts.reading();
        assertThat(counts.changes(redis.snapshot(LONER), 3, json)).isNull();
        assertThat(counts.again()).isFalse();

        StreamCounts.Job merged = job(counts, 3, "\"unreadSenders\":3");
        assertThat(merged.message()).isNotNull();
        assertThat(job(counts, 4, "\"unreadSenders\":4"))
                .as("while the merged message is delivered")
                .isEqualTo(StreamCounts.Job.NOTHING);
        assertThat(counts.again()).as("the change after it makes a read").isTrue();
        counts.reading();
        counts.changes(redis.snapshot(LONER), 5, json);
        assertThat(counts.again()).isFalse();

        assertThat(counts.trackChanged()).isTrue();
        counts.reading();
        counts.changes(redis.snapshot(LONER), 6, json);
        assertThat(counts.again()).isFalse();
        assertThat(job(counts, 5, "\"unreadSenders\":5"))
                .as("a user who may have a channel now is read")
                .isEqualTo(StreamCounts.Job.READ);
    }

    /** The job's UNREAD_CHANGED of {@code version} with {@code fields}, the API's version 9. */
    private StreamCounts.Job job(StreamCounts counts, long version, String fields) {
        String message =
                "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                        + counts.userId
                        + ",\"version\":"
                        + version
                        + (fields.equals("{}") ? "" : "," + fields)
                        + "}";
        return counts.jobChanged(version, field(message, null), () -> 9, json);
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
            JsonNode node = json.readTree(message);
            return name == null ? node : node.get(name);
        } catch (Exception e) {
            throw new AssertionError(message, e);
        }
    }
}
