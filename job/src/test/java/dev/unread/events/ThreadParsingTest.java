package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.EventJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** threadSeq, THREAD_READ and THREAD_FOLLOWED as docs/contract.md, "Threads", gives them. */
class ThreadParsingTest {

    private final EventParser parser = new EventParser();
    private final ConversationParser conversations = new ConversationParser();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aReplyOnEitherTopicCarriesItsThread() throws Exception {
        assertThat(parser.parseMessage(utf8(EventJson.reply(2, 1, 100, 80001, 60, 38, true))))
                .isEqualTo(ChatEvent.reply(2, 1, 80001, 60, 38, 100, true));
        assertThat(conversations.parse(utf8(EventJson.groupReply(80001, 60, 38, 2, 100, 1))))
                .isEqualTo(ConversationEvent.reply(80001, 60, 38, 2, 100, 1));
    }

    @Test
    void threadReadsAndFollowsParse() throws Exception {
        assertThat(parser.parseRead(utf8(EventJson.threadRead(1, 80001, 38, 60, 100))))
                .isEqualTo(ChatEvent.threadRead(1, 80001, 38, 60, 100));
        assertThat(parser.parseRead(utf8(EventJson.threadFollowed(1, 80001, 38, false, 100))))
                .isEqualTo(ChatEvent.threadFollowed(1, 80001, 38, false, 100));
    }

    @Test
    void aBadThreadSeqIsADeadLetterWithItsReason() {
        assertThatThrownBy(
                        () ->
                                parser.parseMessage(
                                        utf8(EventJson.reply(2, 1, 100, 80001, 60, 60, false))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("threadSeq: must be less than seq");
        assertThatThrownBy(
                        () ->
                                parser.parseMessage(
                                        utf8(EventJson.reply(2, 1, 100, 80001, 60, 0, false))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("threadSeq: must be > 0, was 0");
        assertThatThrownBy(
                        () ->
                                parser.parseMessage(
                                        utf8(
                                                "{\"senderId\":2,\"receiverId\":1,\"sentAt\":1,"
                                                        + "\"threadSeq\":3}")))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("threadSeq: needs conversationId and seq");
        assertThatThrownBy(
                        () ->
                                conversations.parse(
                                        utf8(EventJson.groupReply(80001, 60, 61, 2, 100))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("threadSeq: must be less than seq");
        assertThatThrownBy(
                        () ->
                                parser.parseRead(
                                        utf8(
                                                EventJson.threadFollowed(1, 80001, 38, true, 100)
                                                        .replace("true", "\"yes\""))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("following: must be true or false");
    }
}
