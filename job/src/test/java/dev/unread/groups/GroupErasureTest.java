package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ReplyRouting;
import dev.unread.events.UnreadCount;
import dev.unread.testing.EventStreams;
import dev.unread.testing.Oracle;
import dev.unread.testing.RedisModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/contract.md, "Erasure", through the fan-out and the counter: an erased member stays a member
 * (its membership is the conversation's fact), so a group message sent after the erasure counts for
 * it, one sent before does not even when it arrives after, and leaving after the erasure hides the
 * count as for anyone; and a deleted message stays deleted for the erased user, whether its
 * deletion arrives before or after the erasure; the oracle agrees.
 */
class GroupErasureTest {

    private static final long GROUP = 90_010;
    private static final long U = 1;
    private static final long V = 2;
    private static final long T = EventStreams.T0;
    private static final long ERASED_AT = T + 10;

    @Test
    void anErasedMemberCountsTheGroupsLaterMessagesOnly() throws Exception {
        List<ConversationEvent> before =
                List.of(
                        ConversationEvent.joined(GROUP, U, 1),
                        ConversationEvent.joined(GROUP, V, 2),
                        ConversationEvent.message(GROUP, 3, V, T, U));
        List<ConversationEvent> after =
                List.of(
                        ConversationEvent.message(GROUP, 4, V, ERASED_AT + 1, U),
                        ConversationEvent.message(GROUP, 5, V, ERASED_AT - 1));
        ChatEvent erasure = ChatEvent.userErased(U, ERASED_AT);
        List<ConversationEvent> all = new ArrayList<>(before);
        all.addAll(after);

        try (KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut =
                        fanOut();
                KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter =
                        counter()) {
            RedisModel redis = new RedisModel();
            for (ConversationEvent e : before) {
                fanOut.processElement(e, 0L);
            }
            deliver(fanOut, counter, redis);
            assertThat(redis.conversations).containsKey(Oracle.CONVERSATIONS_KEY + U);

            counter.processElement(erasure, 0L);
            counter.extractOutputValues().forEach(redis::apply);
            counter.getOutput().clear();
            assertThat(redis.conversations).doesNotContainKey(Oracle.CONVERSATIONS_KEY + U);

            for (ConversationEvent e : after) {
                fanOut.processElement(e, 0L);
            }
            deliver(fanOut, counter, redis);
            Oracle oracle = Oracle.of(List.of(erasure), all);
            assertThat(redis.conversations)
                    .containsEntry(Oracle.CONVERSATIONS_KEY + U, Map.of("" + GROUP, "1"))
                    .isEqualTo(oracle.redisConversationHashes());
            assertThat(redis.mentions).isEqualTo(oracle.redisMentionHashes(""));
            assertThat(redis.senders).isEqualTo(oracle.redisSenderKeys());
            assertThat(redis.totals).isEqualTo(oracle.redisTotals(""));

            fanOut.processElement(ConversationEvent.left(GROUP, U, 6), 0L);
            deliver(fanOut, counter, redis);
            assertThat(redis.conversations).doesNotContainKey(Oracle.CONVERSATIONS_KEY + U);
        }
    }

    /**
     * A deletion is the conversation's fact: a deleted message never counts for an erased user,
     * whether its deletion arrives before the erasure ({@code deletionAt} 0), between the erasure
     * and the message (1) or after the message (2), and however often it comes again. Each kind of
     * message: of a {@code chat-messages} conversation, a reply there, and a group's, sent after
     * the erasure and mentioning the user, so that any count would show.
     */
    @ParameterizedTest(name = "deletion at {0}")
    @ValueSource(ints = {0, 1, 2})
    void aDeletedMessageStaysDeletedForAnErasedUserInAnyOrder(int deletionAt) throws Exception {
        long direct = 90_011;
        List<ChatEvent> chatMessages = new ArrayList<>();
        List<ConversationEvent> records = new ArrayList<>();
        records.add(ConversationEvent.joined(GROUP, U, 1));
        records.add(ConversationEvent.joined(GROUP, V, 2));
        List<ConversationEvent> deletions =
                List.of(
                        ConversationEvent.deleted(direct, 5),
                        ConversationEvent.deleted(direct, 7),
                        ConversationEvent.deleted(GROUP, 4));
        ChatEvent erasure = ChatEvent.userErased(U, ERASED_AT);
        List<ChatEvent> later =
                List.of(
                        ChatEvent.mention(V, U, direct, 5, ERASED_AT + 1),
                        ChatEvent.reply(V, U, direct, 7, 1, ERASED_AT + 2, true));
        ConversationEvent groupLater = ConversationEvent.message(GROUP, 4, V, ERASED_AT + 3, U);

        try (KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut =
                        fanOut();
                KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter =
                        counter()) {
            RedisModel redis = new RedisModel();
            for (ConversationEvent e : records) {
                fanOut.processElement(e, 0L);
            }
            ChatEvent first = ChatEvent.message(V, U, direct, 1, T);
            chatMessages.add(first);
            chatMessage(first, fanOut, counter);
            deliver(fanOut, counter, redis);
            if (deletionAt == 0) {
                published(deletions, records, fanOut);
                deliver(fanOut, counter, redis);
            }
            counter.processElement(erasure, 0L);
            deliver(fanOut, counter, redis);
            if (deletionAt == 1) {
                published(deletions, records, fanOut);
                deliver(fanOut, counter, redis);
            }
            for (ChatEvent e : later) {
                chatMessages.add(e);
                chatMessage(e, fanOut, counter);
            }
            published(List.of(groupLater), records, fanOut);
            deliver(fanOut, counter, redis);
            if (deletionAt == 2) {
                published(deletions, records, fanOut);
                deliver(fanOut, counter, redis);
            }
            // Again, as a producer's retry or a replay of the topic brings it.
            published(deletions, records, fanOut);
            deliver(fanOut, counter, redis);

            List<ChatEvent> events = new ArrayList<>(chatMessages);
            events.add(erasure);
            Oracle oracle = Oracle.of(events, records);
            assertThat(oracle.redisConversationHashes()).isEmpty();
            assertThat(redis.conversations).isEqualTo(oracle.redisConversationHashes());
            assertThat(redis.mentions).isEqualTo(oracle.redisMentionHashes(""));
            assertThat(redis.threads).isEqualTo(oracle.redisThreadHashes("", false));
            assertThat(redis.threadMentions).isEqualTo(oracle.redisThreadHashes("", true));
            assertThat(redis.totals).isEqualTo(oracle.redisTotals(""));
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent>
            fanOut() throws Exception {
        var harness =
                new KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent>(
                        new KeyedProcessOperator<>(new GroupFanOut()),
                        e -> e.conversationId,
                        Types.LONG);
        harness.open();
        return harness;
    }

    private static KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter()
            throws Exception {
        var harness =
                new KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount>(
                        new KeyedProcessOperator<>(new UnreadCounter()), e -> e.userId, Types.LONG);
        harness.open();
        return harness;
    }

    /** {@code published} to the fan-out, and noted among {@code records} for the oracle. */
    private static void published(
            List<ConversationEvent> published,
            List<ConversationEvent> records,
            KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut)
            throws Exception {
        for (ConversationEvent e : published) {
            records.add(e);
            fanOut.processElement(e, 0L);
        }
    }

    /**
     * A {@code chat-messages} record as the job routes it: its participants to the fan-out, and
     * itself through the fan-out when {@link ReplyRouting} says so, else straight to the counter.
     */
    private static void chatMessage(
            ChatEvent e,
            KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut,
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter)
            throws Exception {
        fanOut.processElement(ConversationEvent.participant(e.conversationId, e.senderId), 0L);
        fanOut.processElement(ConversationEvent.participant(e.conversationId, e.userId), 0L);
        if (ReplyRouting.viaConversation(e)) {
            fanOut.processElement(ConversationEvent.receivedReply(e), 0L);
        } else {
            counter.processElement(e, 0L);
        }
    }

    /** What the fan-out emitted since the last call, through the counter into Redis. */
    private static void deliver(
            KeyedOneInputStreamOperatorTestHarness<Long, ConversationEvent, ChatEvent> fanOut,
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter,
            RedisModel redis)
            throws Exception {
        for (ChatEvent e : fanOut.extractOutputValues()) {
            counter.processElement(e, 0L);
        }
        fanOut.getOutput().clear();
        counter.extractOutputValues().forEach(redis::apply);
        counter.getOutput().clear();
    }
}
