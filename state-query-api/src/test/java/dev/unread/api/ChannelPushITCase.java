package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stream as the one producer of its counts (docs/contract.md, "Live push"), through the real
 * HTTP server and Redis: the index and tracks written from random channel facts as the job writes
 * them, the notices published as the job publishes them (CHANNEL_CHANGED per message, TRACK_CHANGED
 * on a read and on a join, the job's UNREAD_CHANGED for another conversation), and the client's
 * counts, the snapshot with every message applied, must come to the oracle's after each; the
 * versions rise with every message.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChannelPushITCase {

    private static final String TOKEN = "channel-push-service-token";
    private static final long OTHER_CONVERSATION = 90_001;

    @RegisterExtension static final StartedApi STARTED = StartedApi.with(c -> c.token(TOKEN));

    private TestStores stores;
    private StateQueryApi api;

    @BeforeAll
    void takeApi() {
        stores = STARTED.stores();
        api = STARTED.api();
    }

    @Test
    void theStreamsCountsFollowTheChannelsTracksAndJobAsTheOracleCountsThem() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<Long> users = LongStream.rangeClosed(21_001, 21_004).boxed().toList();
        long user = users.get(0);
        long channel = 82_001;
        ChannelFacts facts = ChannelFacts.random(random, users, List.of(channel, 82_002L), 40);
        // The user is a member of the first channel from its start, whatever the draw.
        facts.channel(channel).memberships.add(0, new ChannelFacts.Membership(user, 0, true));
        facts.channel(channel).memberships.removeIf(m -> m.user() == user && !m.joined());
        ChannelIndexWrites writes = new ChannelIndexWrites();
        writes.write(stores.redis, stores.keyPrefix, facts);
        writes.writeMarks(stores.redis, stores.keyPrefix, facts);
        ChannelOracle.Others others =
                new ChannelOracle.Others(0, Map.of(), Map.of(), totals(0, 0), List.of());

        try (LiveClient.Sse stream =
                LiveClient.sse(
                        "http://127.0.0.1:" + api.port() + "/api/users/" + user + "/events",
                        "Authorization",
                        "Bearer " + TOKEN)) {
            Client client = new Client(stream.next());
            assertThat(client.type).isEqualTo(MessageTypes.SNAPSHOT);
            client.awaits(stream, facts, user, others, seed, "the snapshot");

            // A message in a channel of the user, mentioning everyone.
            long seq = addRoot(facts.channel(channel), users.get(1), true);
            writes.write(stores.redis, stores.keyPrefix, facts);
            publishChannelChanged(channel, seq);
            client.awaits(stream, facts, user, others, seed, "after a message");

            // The user reads the channel: its track changes.
            facts.channel(channel).member(user).read = seq;
            writes.write(stores.redis, stores.keyPrefix, facts);
            publishTrackChanged(user, channel);
            client.awaits(stream, facts, user, others, seed, "after a read");

            // The user joins a channel after the stream opened: it is followed from then on.
            long joined = 82_009;
            ChannelFacts.Channel late = facts.channel(joined);
            late.memberships.add(new ChannelFacts.Membership(users.get(2), 1, true));
            late.lastSeq = 1;
            addRoot(late, users.get(2), false);
            late.memberships.add(new ChannelFacts.Membership(user, late.lastSeq, true));
            writes.write(stores.redis, stores.keyPrefix, facts);
            publishTrackChanged(user, joined);
            client.awaits(stream, facts, user, others, seed, "after a join");
            long later = addRoot(late, users.get(2), false);
            writes.write(stores.redis, stores.keyPrefix, facts);
            publishChannelChanged(joined, later);
            client.awaits(
                    stream, facts, user, others, seed, "after a message in the joined channel");

            // The job's change of another conversation: totals with the channels in.
            stores.redis.hset(
                    stores.keyPrefix + RedisNames.CONVERSATIONS + user,
                    Long.toString(OTHER_CONVERSATION),
                    "3");
            stores.redis.hset(
                    stores.keyPrefix + RedisNames.TOTALS + user,
                    Map.of(RedisNames.TOTAL_MESSAGES, "3", RedisNames.TOTAL_CONVERSATIONS, "1"));
            stores.redis.publish(
                    RedisNames.unreadChangedChannel(stores.keyPrefix, user),
                    "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                            + user
                            + ",\"version\":"
                            + (System.currentTimeMillis() * 1000)
                            + ",\"conversations\":{\""
                            + OTHER_CONVERSATION
                            + "\":3},"
                            + "\"totals\":{\"messages\":3,\"conversations\":1}}");
            ChannelOracle.Others job =
                    new ChannelOracle.Others(
                            0, Map.of(OTHER_CONVERSATION, 3L), Map.of(), totals(3, 1), List.of());
            client.awaits(stream, facts, user, job, seed, "after the job's change");
        }
    }

    private long addRoot(ChannelFacts.Channel channel, long sender, boolean all) {
        long seq = ++channel.lastSeq;
        channel.messages.put(seq, new ChannelFacts.Message(seq, sender, 0, Set.of(), all, false));
        return seq;
    }

    private void publishChannelChanged(long channel, long seq) {
        String version = stores.redis.get(RedisNames.channelVersionKey(stores.keyPrefix, channel));
        stores.redis.publish(
                RedisNames.channelChangedChannel(stores.keyPrefix, channel),
                "{\"type\":\"CHANNEL_CHANGED\",\"conversationId\":"
                        + channel
                        + ",\"version\":"
                        + version
                        + ",\"change\":\"MESSAGE\",\"seq\":"
                        + seq
                        + ",\"threadSeq\":0,\"senderId\":1,\"mentionsAll\":false}");
    }

    private void publishTrackChanged(long user, long channel) {
        stores.redis.publish(
                RedisNames.unreadChangedChannel(stores.keyPrefix, user),
                "{\"type\":\"TRACK_CHANGED\",\"userId\":"
                        + user
                        + ",\"conversationId\":"
                        + channel
                        + ",\"threadSeq\":0}");
    }

    /** The job's totals of the other conversations, in the answers' order. */
    private static Map<String, Long> totals(long messages, long conversations) {
        Map<String, Long> totals = new LinkedHashMap<>();
        totals.put(RedisNames.TOTAL_MESSAGES, messages);
        totals.put(RedisNames.TOTAL_MENTIONS, 0L);
        totals.put(RedisNames.TOTAL_CONVERSATIONS, conversations);
        totals.put(RedisNames.TOTAL_THREADS, 0L);
        return totals;
    }

    /** What a client holds: the snapshot, with every UNREAD_CHANGED since applied. */
    private static final class Client {
        final String type;
        final ObjectNode counts;
        long version;

        Client(JsonNode snapshot) {
            this.type = snapshot.get("type").asText();
            this.counts = ((ObjectNode) snapshot).deepCopy();
            this.version = snapshot.get("version").asLong();
            counts.remove(List.of("type", "version"));
        }

        /**
         * Applies the stream's messages until the counts are the oracle's; fails at the deadline.
         */
        void awaits(
                LiveClient stream,
                ChannelFacts facts,
                long user,
                ChannelOracle.Others others,
                long seed,
                String when)
                throws Exception {
            ObjectNode expected = expected(facts, user, others);
            while (!counts.equals(expected)) {
                JsonNode message = stream.next();
                assertThat(message.get("type").asText())
                        .as("seed %d, %s", seed, when)
                        .isEqualTo(MessageTypes.UNREAD_CHANGED);
                assertThat(message.get("version").asLong())
                        .as("seed %d, %s: the version rises", seed, when)
                        .isGreaterThan(version);
                version = message.get("version").asLong();
                apply(message);
            }
        }

        private void apply(JsonNode message) {
            for (Iterator<Map.Entry<String, JsonNode>> it = message.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> section = it.next();
                if (List.of("type", "userId", "version").contains(section.getKey())) {
                    continue;
                }
                if (!section.getValue().isObject()) {
                    counts.set(section.getKey(), section.getValue());
                    continue;
                }
                ObjectNode held = (ObjectNode) counts.get(section.getKey());
                section.getValue()
                        .fields()
                        .forEachRemaining(
                                entry -> {
                                    JsonNode value = entry.getValue();
                                    boolean gone =
                                            !section.getKey().equals("totals")
                                                    && (value.isBoolean()
                                                            ? !value.asBoolean()
                                                            : value.asLong() == 0);
                                    if (gone) {
                                        held.remove(entry.getKey());
                                    } else {
                                        held.set(entry.getKey(), value);
                                    }
                                });
            }
        }

        /** The oracle's answer in the snapshot's form: marks as id → true. */
        private static ObjectNode expected(
                ChannelFacts facts, long user, ChannelOracle.Others others) throws Exception {
            // Through text, so that numbers compare as the stream's parsed ones.
            ObjectNode answer =
                    (ObjectNode)
                            Http.JSON.readTree(
                                    Http.JSON.writeValueAsString(
                                            ChannelOracle.expected(facts, user, others)));
            ObjectNode marks = Http.JSON.createObjectNode();
            answer.get("markedUnread").forEach(id -> marks.put(id.asText(), true));
            answer.set("markedUnread", marks);
            return answer;
        }
    }
}
