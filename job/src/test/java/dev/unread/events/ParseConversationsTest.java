package dev.unread.events;

import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.EventJson;
import java.util.List;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

/** Bad {@code chat-conversations} records go to the dead letters, as on the other topics. */
class ParseConversationsTest {

    @Test
    void validRecordsGoOnAndBadOnesBecomeDeadLettersWithTheirReason() throws Exception {
        long now = 1_767_225_600_000L;
        RawRecord good =
                new RawRecord(
                        "chat-conversations",
                        2,
                        7,
                        now,
                        "80001".getBytes(UTF_8),
                        EventJson.membership(true, 80001, 10086, 1000).getBytes(UTF_8));
        RawRecord bad =
                new RawRecord(
                        "chat-conversations",
                        2,
                        8,
                        now,
                        null,
                        "{\"type\":\"MESSAGE\",\"conversationId\":80001,\"seq\":0}"
                                .getBytes(UTF_8));
        RawRecord future =
                new RawRecord(
                        "chat-conversations",
                        2,
                        9,
                        now,
                        null,
                        ("{\"type\":\"MESSAGE\",\"conversationId\":80001,\"seq\":5,\"senderId\":7,"
                                        + "\"sentAt\":"
                                        + (now + 1001)
                                        + "}")
                                .getBytes(UTF_8));
        RawRecord utf16 =
                new RawRecord(
                        "chat-conversations",
                        2,
                        10,
                        now,
                        null,
                        EventJson.membership(true, 80001, 10086, 1000).getBytes(UTF_16LE));
        try (OneInputStreamOperatorTestHarness<RawRecord, ConversationEvent> harness =
                ProcessFunctionTestHarnesses.forProcessFunction(new ParseConversations(1000))) {
            harness.processElement(good, 0);
            harness.processElement(bad, 0);
            harness.processElement(future, 0);
            harness.processElement(utf16, 0);

            assertThat(harness.extractOutputValues())
                    .containsExactly(ConversationEvent.joined(80001, 10086, 1000));
            List<String> reasons =
                    harness.getSideOutput(ParseEvents.DEAD_LETTERS).stream()
                            .map(r -> r.getValue().reason)
                            .toList();
            assertThat(reasons).hasSize(3);
            assertThat(reasons.get(0)).isEqualTo("seq: must be > 0, was 0");
            assertThat(reasons.get(1))
                    .isEqualTo(
                            "sentAt: "
                                    + (now + 1001)
                                    + " is more than 1000 ms after the record's timestamp "
                                    + now);
            assertThat(reasons.get(2)).startsWith("not UTF-8");
        }
    }
}
