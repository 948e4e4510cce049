package dev.unread.events;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.EventJson;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

/** Bad {@code chat-conversations} records go to the dead letters, as on the other topics. */
class ParseConversationsTest {

    @Test
    void validRecordsGoOnAndBadOnesBecomeDeadLettersWithTheirReason() throws Exception {
        RawRecord good = new RawRecord("chat-conversations", 2, 7, "80001".getBytes(UTF_8),
                EventJson.membership(true, 80001, 10086, 1000).getBytes(UTF_8));
        RawRecord bad = new RawRecord("chat-conversations", 2, 8, null,
                "{\"type\":\"MESSAGE\",\"conversationId\":80001,\"seq\":0}".getBytes(UTF_8));
        try (OneInputStreamOperatorTestHarness<RawRecord, ConversationEvent> harness =
                ProcessFunctionTestHarnesses.forProcessFunction(new ParseConversations())) {
            harness.processElement(good, 0);
            harness.processElement(bad, 0);

            assertThat(harness.extractOutputValues())
                    .containsExactly(ConversationEvent.joined(80001, 10086, 1000));
            assertThat(harness.getSideOutput(ParseEvents.DEAD_LETTERS))
                    .extracting(r -> r.getValue())
                    .containsExactly(new DeadLetter(bad, "seq: must be > 0, was 0"));
        }
    }
}
