package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.EventJson;
import dev.unread.contract.InputField;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MESSAGE_EDITED, mentionsAll and ignoreChannelMentions as docs/contract.md, "Edits that change
 * mentions" and "Channel-wide mentions", gives them: what parses, and what goes to
 * chat-dead-letters and why.
 */
class EditParsingTest {

    private final EventParser parser = new EventParser();
    private final ConversationParser conversations = new ConversationParser();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void editsParseOnBothTopics() throws Exception {
        assertThat(parser.parseMessage(utf8(EventJson.edited(1, 80001, 60, 38, 100, true, false))))
                .isEqualTo(ChatEvent.edited(1, 80001, 60, 38, 100, true, false));
        assertThat(parser.parseMessage(utf8(EventJson.edited(1, 80001, 60, 0, 100, false, true))))
                .isEqualTo(ChatEvent.edited(1, 80001, 60, 0, 100, false, true));
        assertThat(conversations.parse(utf8(EventJson.groupEdited(80001, 60, 100, true, 3, 1))))
                .isEqualTo(ConversationEvent.edited(80001, 60, 100, true, 1, 3));
        // mentions absent: none; mentionsAll absent or null: false.
        assertThat(
                        conversations.parse(
                                utf8(
                                        "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":80001,"
                                                + "\"seq\":60,\"mentionsAll\":null,\"editedAt\":100}")))
                .isEqualTo(ConversationEvent.edited(80001, 60, 100, false));
    }

    @Test
    void channelWideMentionsParseOnMessagesOfBothTopics() throws Exception {
        ChatEvent message =
                parser.parseMessage(
                        utf8(EventJson.mentioningAll(EventJson.message(2, 1, 100, 80001, 60))));
        assertThat(message.mentionsAll).isTrue();
        assertThat(message.kind).isEqualTo(ChatEvent.Kind.MESSAGE);
        ConversationEvent group =
                conversations.parse(
                        utf8(EventJson.mentioningAll(EventJson.groupMessage(80001, 60, 2, 100))));
        assertThat(group.mentionsAll).isTrue();
    }

    @Test
    void aMessageWithAnotherTypeIsStillAMessage() throws Exception {
        // Version 1 ignored a message's type whatever its value; only MESSAGE_EDITED is an edit.
        ChatEvent message =
                parser.parseMessage(
                        utf8(
                                "{\"type\":\"MESSAGE\",\"senderId\":2,\"receiverId\":1,"
                                        + "\"sentAt\":100,\"conversationId\":80001,\"seq\":60}"));
        assertThat(message).isEqualTo(ChatEvent.message(2, 1, 80001, 60, 100));
    }

    @Test
    void preferencesCarryEitherFieldOrBoth() throws Exception {
        assertThat(
                        parser.parseRead(
                                utf8(EventJson.ignoreChannelMentions(1, 80001, null, true, 100))))
                .isEqualTo(
                        ChatEvent.ignoreChannelMentions(
                                1, 80001, ChatEvent.NO_COUNT_PREFERENCE, true, 100));
        assertThat(
                        parser.parseRead(
                                utf8(
                                        EventJson.ignoreChannelMentions(
                                                1,
                                                80001,
                                                InputField.CountPreference.MENTIONS.name(),
                                                false,
                                                100))))
                .isEqualTo(
                        ChatEvent.ignoreChannelMentions(1, 80001, ChatEvent.MENTIONS, false, 100));
        // A null field counts as absent.
        assertThat(
                        parser.parseRead(
                                utf8(
                                        "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,"
                                                + "\"conversationId\":80001,\"countPreference\":\"NONE\","
                                                + "\"ignoreChannelMentions\":null,\"setAt\":100}")))
                .isEqualTo(ChatEvent.preference(1, 80001, ChatEvent.NONE, 100));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"editedAt\":2} | seq: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5} | editedAt: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":4,\"seq\":5,\"editedAt\":2} | receiverId: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"seq\":5,\"editedAt\":2} | conversationId: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5,\"editedAt\":0} | editedAt: must be > 0",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5,\"editedAt\":2,\"mentioned\":1} | mentioned: must be true or false",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5,\"editedAt\":2,\"mentionsAll\":\"yes\"} | mentionsAll: must be true or false",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5,\"editedAt\":2,\"threadSeq\":5} | threadSeq: must be less than seq",
                "{\"senderId\":2,\"receiverId\":1,\"sentAt\":2,\"conversationId\":4,\"seq\":5,\"mentionsAll\":1} | mentionsAll: must be true or false",
            })
    void badEditsAndChannelMentionsOnChatMessagesAreDeadLetters(String json, String reason) {
        assertThatThrownBy(() -> parser.parseMessage(utf8(json)))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"setAt\":2} | neither given",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"countPreference\":null,\"ignoreChannelMentions\":null,\"setAt\":2} | neither given",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"ignoreChannelMentions\":\"true\",\"setAt\":2} | ignoreChannelMentions: must be true or false",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"ignoreChannelMentions\":true} | setAt: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"receiverId\":1,\"conversationId\":4,\"seq\":5,\"editedAt\":2} | type: unknown MESSAGE_EDITED",
            })
    void badPreferencesOnChatReadsAreDeadLetters(String json, String reason) {
        assertThatThrownBy(() -> parser.parseRead(utf8(json)))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":4,\"editedAt\":2} | seq: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":4,\"seq\":5} | editedAt: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"seq\":5,\"editedAt\":2} | conversationId: missing",
                "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":4,\"seq\":5,\"editedAt\":2,\"mentionsAll\":0} | mentionsAll: must be true or false",
                "{\"type\":\"MESSAGE_EDITED\",\"conversationId\":4,\"seq\":5,\"editedAt\":2,\"mentions\":[0]} | mentions: must hold user ids",
                "{\"type\":\"MESSAGE\",\"conversationId\":4,\"seq\":5,\"senderId\":2,\"sentAt\":2,\"mentionsAll\":[]} | mentionsAll: must be true or false",
            })
    void badEditsAndChannelMentionsOnChatConversationsAreDeadLetters(String json, String reason) {
        assertThatThrownBy(() -> conversations.parse(utf8(json)))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void anEditOfMoreThanAThousandMentionsIsADeadLetter() {
        long[] ids = new long[InputField.MENTIONS.max() + 1];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i + 1;
        }
        assertThatThrownBy(
                        () -> conversations.parse(utf8(EventJson.groupEdited(4, 5, 2, false, ids))))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("mentions: more than 1000 ids");
    }
}
