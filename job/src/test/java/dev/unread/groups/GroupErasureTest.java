package dev.unread.groups;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.counter.UnreadCounter;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
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

/**
 * docs/contract.md, "Erasure", through the fan-out and the counter: an erased member stays a member
 * (its membership is the conversation's fact), so a group message sent after the erasure counts for
 * it, one sent before does not even when it arrives after, and leaving after the erasure hides the
 * count as for anyone; the oracle agrees.
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
                        new KeyedOneInputStreamOperatorTestHarness<>(
                                new KeyedProcessOperator<>(new GroupFanOut()),
                                e -> e.conversationId,
                                Types.LONG);
                KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> counter =
                        new KeyedOneInputStreamOperatorTestHarness<>(
                                new KeyedProcessOperator<>(new UnreadCounter()),
                                e -> e.userId,
                                Types.LONG)) {
            fanOut.open();
            counter.open();
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
