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

    @Test
    void aReplyOnEitherTopicMayNameItsRootsSender() throws Exception {
        ChatEvent reply = ChatEvent.reply(2, 1, 80001, 60, 38, 100, false);
        reply.rootSenderId = 7;
        assertThat(
                        parser.parseMessage(
                                utf8(
                                        EventJson.withRootSender(
                                                EventJson.reply(2, 1, 100, 80001, 60, 38, false),
                                                7))))
                .isEqualTo(reply);
        assertThat(
                        new EventParser(false)
                                .parseMessage(
                                        utf8(
                                                EventJson.withRootSender(
                                                        EventJson.reply(
                                                                2, 1, 100, 80001, 60, 38, false),
                                                        7))))
                .isEqualTo(reply);
        ConversationEvent group = ConversationEvent.reply(80001, 60, 38, 2, 100, 1);
        group.rootSenderId = 7;
        assertThat(
                        conversations.parse(
                                utf8(
                                        EventJson.withRootSender(
                                                EventJson.groupReply(80001, 60, 38, 2, 100, 1),
                                                7))))
                .isEqualTo(group);
        assertThat(ConversationEvent.receivedReply(reply).rootSenderId).isEqualTo(7);
    }

    @Test
    void aRootSenderWithoutAThreadOrOutOfRangeIsADeadLetter() {
        String root = EventJson.message(2, 1, 100, 80001, 60, false);
        String noConversation = EventJson.message(2, 1, 100);
        String group = EventJson.groupMessage(80001, 60, 2, 100);
        for (String record :
                new String[] {
                    EventJson.withRootSender(root, 7), EventJson.withRootSender(noConversation, 7)
                }) {
            assertThatThrownBy(() -> parser.parseMessage(utf8(record)))
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessage("rootSenderId: needs threadSeq");
        }
        assertThatThrownBy(() -> conversations.parse(utf8(EventJson.withRootSender(group, 7))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("rootSenderId: needs threadSeq");
        String reply = EventJson.reply(2, 1, 100, 80001, 60, 38, false);
        assertThatThrownBy(() -> parser.parseMessage(utf8(EventJson.withRootSender(reply, 0))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("rootSenderId: must be > 0, was 0");
        String tooLarge =
                reply.substring(0, reply.length() - 1) + ",\"rootSenderId\":9223372036854775808}";
        assertThatThrownBy(() -> parser.parseMessage(utf8(tooLarge)))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("rootSenderId: ");
        String groupReply = EventJson.groupReply(80001, 60, 38, 2, 100);
        assertThatThrownBy(
                        () -> conversations.parse(utf8(EventJson.withRootSender(groupReply, -3))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("rootSenderId: must be > 0, was -3");
    }
}
