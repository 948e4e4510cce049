package dev.unread.events;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.EventJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code MESSAGE_DELETED} on "Topic chat-conversations" of docs/contract.md. */
class MessageDeletedParsingTest {

    private final ConversationParser parser = new ConversationParser();

    @Test
    void theContractsExampleAndTheEncoderParseToTheDeletion() throws Exception {
        assertThat(
                        parse(
                                "{\"type\":\"MESSAGE_DELETED\",\"conversationId\":80001,\"seq\":1038,"
                                        + "\"deletedAt\":1767225600000,\"by\":\"moderator\"}"))
                .isEqualTo(ConversationEvent.deleted(80001, 1038));
        assertThat(parse(EventJson.messageDeleted(5, 6, 7)))
                .isEqualTo(ConversationEvent.deleted(5, 6));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"type\":\"MESSAGE_DELETED\",\"seq\":1,\"deletedAt\":1}",
                "{\"type\":\"MESSAGE_DELETED\",\"conversationId\":1,\"deletedAt\":1}",
                "{\"type\":\"MESSAGE_DELETED\",\"conversationId\":1,\"seq\":1}",
                "{\"type\":\"MESSAGE_DELETED\",\"conversationId\":1,\"seq\":0,\"deletedAt\":1}",
                "{\"type\":\"MESSAGE_DELETED\",\"conversationId\":1,\"seq\":1,\"deletedAt\":\"x\"}",
                "{\"type\":\"PARTICIPANT\",\"conversationId\":1,\"userId\":1}"
            })
    void aDeletionWithoutItsFieldsOrTheJobsOwnNoticeIsRefused(String json) {
        assertThatThrownBy(() -> parse(json)).isInstanceOf(InvalidRecordException.class);
    }

    private ConversationEvent parse(String json) throws InvalidRecordException {
        return parser.parse(json.getBytes(UTF_8));
    }
}
