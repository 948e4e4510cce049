package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.InputField;
import dev.unread.testing.BadRecords;
import dev.unread.testing.EventStreams;
import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The input rules of docs/contract.md ("Input"), field by field. */
class EventParserTest {

    private final EventParser parser = new EventParser();

    @Test
    void messageWithConversationParses() throws Exception {
        ChatEvent e =
                message(
                        "{\"messageId\":\"m-9f1c\",\"conversationId\":80001,\"seq\":1038,"
                                + "\"senderId\":10087,\"receiverId\":10086,\"sentAt\":1767225600000}");
        assertThat(e).isEqualTo(ChatEvent.message(10087, 10086, 80001, 1038, 1767225600000L));
    }

    @Test
    void messageWithoutConversationCountsTowardBadgeOnly() throws Exception {
        ChatEvent e = message("{\"senderId\":1,\"receiverId\":2,\"sentAt\":3}");
        assertThat(e).isEqualTo(ChatEvent.message(1, 2, 3));
        assertThat(e.hasConversation()).isFalse();
    }

    @Test
    void unknownFieldsAndNullOptionalsAreIgnored() throws Exception {
        ChatEvent e =
                message(
                        "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":null,"
                                + "\"extra\":{\"deep\":[1,2,{\"x\":null}]},\"conversationId\":null,\"seq\":null}");
        assertThat(e).isEqualTo(ChatEvent.message(1, 2, 3));
    }

    @Test
    void ownMessageIsValid() throws Exception {
        assertThat(message("{\"senderId\":5,\"receiverId\":5,\"sentAt\":3}").senderId).isEqualTo(5);
    }

    @Test
    void largestIdIsAccepted() throws Exception {
        assertThat(
                        message("{\"senderId\":9223372036854775807,\"receiverId\":2,\"sentAt\":3}")
                                .senderId)
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theEncoderAndTheParserAgree() throws Exception {
        for (ChatEvent e :
                new ChatEvent[] {
                    ChatEvent.message(1, 2, 3), ChatEvent.message(1, 2, 4, 5, 6),
                    ChatEvent.inboxOpened(7, 8), ChatEvent.conversationRead(9, 10, 0, 11)
                }) {
            ChatEvent parsed =
                    ChatEventJson.isMessage(e)
                            ? parser.parseMessage(ChatEventJson.value(e))
                            : parser.parseRead(ChatEventJson.value(e));
            assertThat(parsed).isEqualTo(e);
        }
    }

    @Test
    void readsOfBothTypesParse() throws Exception {
        assertThat(read("{\"type\":\"INBOX_OPENED\",\"userId\":10086,\"readAt\":1767225600000}"))
                .isEqualTo(ChatEvent.inboxOpened(10086, 1767225600000L));
        assertThat(
                        read(
                                "{\"type\":\"CONVERSATION_READ\",\"userId\":10086,\"conversationId\":80001,"
                                        + "\"readSeq\":1038,\"readAt\":1767225600000}"))
                .isEqualTo(ChatEvent.conversationRead(10086, 80001, 1038, 1767225600000L));
    }

    @Test
    void allReadParses() throws Exception {
        assertThat(read("{\"type\":\"ALL_READ\",\"userId\":10086,\"readAt\":1767225600000}"))
                .isEqualTo(ChatEvent.allRead(10086, 1767225600000L));
        // Through Jackson too: whitespace and an unknown field leave the compact scan.
        assertThat(
                        read(
                                "{ \"type\": \"ALL_READ\", \"userId\": 10086, \"x\": [1],"
                                        + " \"readAt\": 1767225600000 }"))
                .isEqualTo(ChatEvent.allRead(10086, 1767225600000L));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"receiverId\":2,\"sentAt\":3}                              | senderId: missing",
                "{\"senderId\":null,\"receiverId\":2,\"sentAt\":3}            | senderId: missing",
                "{\"senderId\":\"1\",\"receiverId\":2,\"sentAt\":3}           | senderId: must be an integer",
                "{\"senderId\":1.0,\"receiverId\":2,\"sentAt\":3}             | senderId: must be an integer",
                "{\"senderId\":true,\"receiverId\":2,\"sentAt\":3}            | senderId: must be an integer",
                "{\"senderId\":[1],\"receiverId\":2,\"sentAt\":3}             | senderId: must be an integer",
                "{\"senderId\":9223372036854775808,\"receiverId\":2,\"sentAt\":3} | senderId: out of range",
                "{\"senderId\":0,\"receiverId\":2,\"sentAt\":3}               | senderId: must be > 0",
                "{\"senderId\":1,\"receiverId\":-2,\"sentAt\":3}              | receiverId: must be > 0",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":0}               | sentAt: must be > 0",
                "{\"senderId\":1,\"receiverId\":2}                            | sentAt: missing",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"seq\":4}     | conversationId and seq must come together",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"conversationId\":4} | conversationId and seq must come together",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"conversationId\":4,\"seq\":0} | seq: must be > 0",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":7} | messageId: must be text",
                "{\"senderId\":1,\"senderId\":1,\"receiverId\":2,\"sentAt\":3} | malformed JSON: Duplicate field",
                "[1,2,3]                                                      | not a JSON object",
                "42                                                           | not a JSON object",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3} {}             | trailing data",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3                | malformed JSON",
                "hello                                                        | malformed JSON",
            })
    void invalidMessagesAreRefusedWithAReason(String json, String reason) {
        assertThatThrownBy(() -> message(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void mentionedCountsOnlyOnAMessageInAConversationAndDefaultsToFalse() throws Exception {
        String conversation = "\"conversationId\":80001,\"seq\":9,";
        String ids = "\"senderId\":10087,\"receiverId\":10086,\"sentAt\":5";
        assertThat(message("{" + conversation + ids + ",\"mentioned\":true}").mentioned).isTrue();
        assertThat(message("{" + conversation + ids + ",\"mentioned\":false}").mentioned).isFalse();
        assertThat(message("{" + conversation + ids + ",\"mentioned\":null}").mentioned).isFalse();
        assertThat(message("{" + conversation + ids + "}").mentioned).isFalse();
        assertThat(message("{" + ids + ",\"mentioned\":true}").mentioned).isFalse();
        assertThat(message(dev.unread.contract.EventJson.message(10087, 10086, 5, 80001, 9, true)))
                .isEqualTo(ChatEvent.mention(10087, 10086, 80001, 9, 5));
    }

    @Test
    void preferencesAndMarksParse() throws Exception {
        assertThat(
                        read(
                                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":10086,"
                                        + "\"conversationId\":80001,\"countPreference\":\"MENTIONS\","
                                        + "\"setAt\":1767225600000}"))
                .isEqualTo(ChatEvent.preference(10086, 80001, ChatEvent.MENTIONS, 1767225600000L));
        for (String name : new String[] {"ALL", "MENTIONS", "NONE"}) {
            ChatEvent e = read(dev.unread.contract.EventJson.conversationPreference(1, 2, name, 3));
            assertThat(ChatEventJson.text(e))
                    .isEqualTo(dev.unread.contract.EventJson.conversationPreference(1, 2, name, 3));
        }
        assertThat(
                        read(
                                "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"userId\":10086,"
                                        + "\"conversationId\":80001,\"markedAt\":1767225600000}"))
                .isEqualTo(ChatEvent.markedUnread(10086, 80001, 1767225600000L));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"conversationId\":4,\"seq\":5,\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"mentioned\":1} | mentioned: must be true or false",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"mentioned\":\"yes\"} | mentioned: must be true or false",
            })
    void aMentionedThatIsNoBooleanIsRefused(String json, String reason) {
        assertThatThrownBy(() -> message(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"setAt\":2} | countPreference, ignoreChannelMentions: neither given",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"countPreference\":\"all\",\"setAt\":2} | countPreference: must be",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"countPreference\":1,\"setAt\":2} | countPreference: must be",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"countPreference\":\"ALL\"} | setAt: missing",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"countPreference\":\"ALL\",\"setAt\":2} | conversationId: missing",
                "{\"type\":\"CONVERSATION_PREFERENCE\",\"userId\":1,\"conversationId\":4,\"countPreference\":\"NONE\",\"setAt\":0} | setAt: must be > 0",
                "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"userId\":1,\"conversationId\":4} | markedAt: missing",
                "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"userId\":1,\"conversationId\":4,\"markedAt\":\"2\"} | markedAt: must be an integer",
                "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"conversationId\":4,\"markedAt\":2} | userId: missing",
                "{\"type\":\"CONVERSATION_MARKED_UNREAD\",\"userId\":1,\"conversationId\":-4,\"markedAt\":2} | conversationId: must be > 0",
            })
    void invalidPreferencesAndMarksAreRefusedWithAReason(String json, String reason) {
        assertThatThrownBy(() -> read(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"userId\":1,\"readAt\":2}                                  | type: missing",
                "{\"type\":\"INBOX_CLOSED\",\"userId\":1,\"readAt\":2}        | type: unknown INBOX_CLOSED",
                "{\"type\":7,\"userId\":1,\"readAt\":2}                       | type: must be text",
                "{\"type\":\"INBOX_OPENED\",\"readAt\":2}                     | userId: missing",
                "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":-2}       | readAt: must be > 0",
                "{\"type\":\"ALL_READ\",\"userId\":1}                         | readAt: missing",
                "{\"type\":\"ALL_READ\",\"userId\":1,\"readAt\":\"today\"}    | readAt: must be",
                "{\"type\":\"ALL_READ\",\"userId\":1,\"readAt\":1.5}        | readAt: must be",
                "{\"type\":\"ALL_READ\",\"userId\":1,\"readAt\":0}          | readAt: must be > 0",
                "{\"type\":\"ALL_READ\",\"readAt\":2}                         | userId: missing",
                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"readSeq\":3,\"readAt\":2} | conversationId: missing",
                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,\"readSeq\":-1,\"readAt\":2} | readSeq: must be >= 0",
                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,\"readAt\":2} | readSeq: missing",
            })
    void invalidReadsAreRefusedWithAReason(String json, String reason) {
        assertThatThrownBy(() -> read(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"receiverId\":2}   | receiverId",
                "{\"senderId\":null,\"receiverId\":2,\"sentAt\":3,\"senderId\":1} | senderId",
                "{\"seq\":4,\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"seq\":4} | seq",
                "{\"messageId\":\"a\",\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":\"a\"} | messageId",
                "{\"type\":\"x\",\"userId\":9,\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"userId\":9} | userId",
                "{\"x\":1,\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":{}}  | x",
                "{\"a\":1,\"b\":2,\"c\":3,\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"b\":2} | b",
                "{\"x\":{\"y\":1,\"y\":2},\"senderId\":1,\"receiverId\":2,\"sentAt\":3} | y",
                "{\"x\":[{\"y\":[{\"z\":1,\"z\":1}]}],\"senderId\":1,\"receiverId\":2,\"sentAt\":3} | z",
            })
    void duplicateFieldsOfAnyNameAtAnyDepthAreRefused(String json, String name) {
        assertThatThrownBy(() -> message(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("malformed JSON: Duplicate field '" + name + "'");
    }

    @Test
    void duplicateReadFieldsAreRefused() {
        assertThatThrownBy(
                        () ->
                                read(
                                        "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":2,"
                                                + "\"type\":\"INBOX_OPENED\"}"))
                .hasMessage("malformed JSON: Duplicate field 'type'");
        assertThatThrownBy(
                        () ->
                                read(
                                        "{\"type\":\"CONVERSATION_READ\",\"userId\":1,"
                                                + "\"conversationId\":4,\"readSeq\":3,\"readAt\":2,\"readSeq\":3}"))
                .hasMessage("malformed JSON: Duplicate field 'readSeq'");
    }

    @Test
    void sameNamesInDifferentObjectsAreNotDuplicates() throws Exception {
        ChatEvent e =
                message(
                        "{\"x\":{\"senderId\":7,\"x\":[{\"y\":1},{\"y\":2}]},"
                                + "\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"y\":{\"y\":{\"y\":0}}}");
        assertThat(e).isEqualTo(ChatEvent.message(1, 2, 3));
    }

    @Test
    void oneParserParsesRecordAfterRecordWithoutCarryingFieldsOver() throws Exception {
        assertThat(
                        read(
                                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,"
                                        + "\"readSeq\":3,\"readAt\":2,\"x\":1}"))
                .isEqualTo(ChatEvent.conversationRead(1, 4, 3, 2));
        assertThatThrownBy(() -> read("{\"type\":\"INBOX_CLOSED\",\"userId\":1,\"readAt\":2}"))
                .hasMessage("type: unknown INBOX_CLOSED");
        assertThatThrownBy(() -> read("{\"userId\":1,\"readAt\":2,\"x\":1}"))
                .hasMessage("type: missing");
        assertThatThrownBy(
                        () ->
                                read(
                                        "{\"type\":\"CONVERSATION_READ\",\"userId\":1,"
                                                + "\"readSeq\":3,\"readAt\":2}"))
                .hasMessage("conversationId: missing");
        assertThat(
                        message(
                                "{\"conversationId\":5,\"seq\":6,\"senderId\":1,\"receiverId\":2,"
                                        + "\"sentAt\":3}"))
                .isEqualTo(ChatEvent.message(1, 2, 5, 6, 3));
        assertThat(message("{\"senderId\":1,\"receiverId\":2,\"sentAt\":3}"))
                .isEqualTo(ChatEvent.message(1, 2, 3));
        assertThatThrownBy(() -> message("{\"receiverId\":2,\"sentAt\":3}"))
                .hasMessage("senderId: missing");
    }

    @Test
    void messageIdOfExactlyTheLimitIsValid() throws Exception {
        String id = "\u00e9".repeat(InputField.MESSAGE_ID.max());
        assertThat(
                        message(
                                "{\"messageId\":\""
                                        + id
                                        + "\",\"senderId\":1,\"receiverId\":2,"
                                        + "\"sentAt\":3}"))
                .isEqualTo(ChatEvent.message(1, 2, 3));
    }

    @Test
    void longUnknownTypesAreClippedInTheReason() {
        String type = "T".repeat(400);
        assertThatThrownBy(() -> read("{\"type\":\"" + type + "\",\"userId\":1,\"readAt\":2}"))
                .hasMessage("type: unknown " + "T".repeat(160) + "...");
    }

    @Test
    void readSeqZeroIsValid() throws Exception {
        assertThat(
                        read("{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,"
                                        + "\"readSeq\":0,\"readAt\":2}")
                                .seq)
                .isZero();
    }

    @Test
    void emptyAndNullRecordsAreRefused() {
        assertThatThrownBy(() -> parser.parseMessage(null)).hasMessage("empty record");
        assertThatThrownBy(() -> parser.parseRead(new byte[0])).hasMessage("empty record");
    }

    @Test
    void recordsOver64KiBAreRefusedUnparsed() {
        byte[] big = new byte[EventParser.MAX_RECORD_BYTES + 1];
        assertThatThrownBy(() -> parser.parseMessage(big))
                .hasMessageContaining("exceeds " + EventParser.MAX_RECORD_BYTES);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "\"type\":5",
                "\"type\":\"INBOX_CLOSED\"",
                "\"userId\":\"u-1\"",
                "\"readAt\":1.5",
                "\"readSeq\":{\"x\":[1,2]}",
                "\"readAt\":-1,\"userId\":99999999999999999999",
            })
    void fieldsOfReadsInAMessageAreUnknownAndIgnored(String field) throws Exception {
        assertThat(message("{\"senderId\":1," + field + ",\"receiverId\":2,\"sentAt\":3}"))
                .isEqualTo(ChatEvent.message(1, 2, 3));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "\"conversationId\":\"c-9\"",
                "\"conversationId\":0,\"readSeq\":-5",
                "\"senderId\":\"bob\"",
                "\"receiverId\":[1],\"sentAt\":1.5,\"seq\":{\"a\":1}",
                "\"messageId\":7",
                "\"messageId\":\"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\"",
            })
    void fieldsOfMessagesAndOfTheOtherTypeInAnInboxOpenAreUnknownAndIgnored(String field)
            throws Exception {
        assertThat(read("{\"type\":\"INBOX_OPENED\"," + field + ",\"userId\":1,\"readAt\":2}"))
                .isEqualTo(ChatEvent.inboxOpened(1, 2));
    }

    @Test
    void fieldsOfMessagesInAConversationReadAreUnknownAndIgnored() throws Exception {
        assertThat(
                        read(
                                "{\"senderId\":\"bob\",\"type\":\"CONVERSATION_READ\",\"userId\":1,"
                                        + "\"conversationId\":4,\"seq\":-1,\"readSeq\":3,\"readAt\":2,"
                                        + "\"messageId\":\""
                                        + "m".repeat(200)
                                        + "\"}"))
                .isEqualTo(ChatEvent.conversationRead(1, 4, 3, 2));
    }

    @Test
    void aWrongTypeOfAFieldOfTheRecordsOwnKindIsStillRefused() {
        assertThatThrownBy(
                        () ->
                                read(
                                        "{\"type\":\"CONVERSATION_READ\",\"userId\":1,"
                                                + "\"conversationId\":\"c-9\",\"readSeq\":3,\"readAt\":2}"))
                .hasMessage("conversationId: must be an integer");
        assertThatThrownBy(
                        () ->
                                message(
                                        "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,"
                                                + "\"conversationId\":4,\"seq\":{\"x\":1}}"))
                .hasMessage("seq: must be an integer");
        assertThatThrownBy(
                        () ->
                                message(
                                        "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,"
                                                + "\"conversationId\":99999999999999999999,\"seq\":1}"))
                .hasMessageStartingWith("conversationId: out of range");
        assertThatThrownBy(() -> read("{\"type\":[\"INBOX_OPENED\"],\"userId\":1,\"readAt\":2}"))
                .hasMessage("type: must be text");
    }

    @Test
    void unknownValuesAreIgnoredAtAnyDepthWithinTheSizeLimit() throws Exception {
        int depth = (EventParser.MAX_RECORD_BYTES - 100) / 2;
        String ids = ",\"senderId\":1,\"receiverId\":2,\"sentAt\":3}";
        assertThat(message("{\"x\":" + "[".repeat(depth) + "]".repeat(depth) + ids))
                .isEqualTo(ChatEvent.message(1, 2, 3));
        int objects = (EventParser.MAX_RECORD_BYTES - 100) / 7;
        assertThat(message("{\"x\":" + "{\"a\":".repeat(objects) + "1" + "}".repeat(objects) + ids))
                .isEqualTo(ChatEvent.message(1, 2, 3));
        assertThat(
                        message(
                                "{\"x\":"
                                        + "9".repeat(60_000)
                                        + ",\""
                                        + "n".repeat(4_000)
                                        + "\":1"
                                        + ids))
                .isEqualTo(ChatEvent.message(1, 2, 3));
        assertThat(
                        message(
                                "{\"x\":[{\"a\":1},{\"a\":["
                                        + "[".repeat(3000)
                                        + "]".repeat(3000)
                                        + "]}],\"y\":"
                                        + "[".repeat(3000)
                                        + "{}"
                                        + "]".repeat(3000)
                                        + ids))
                .isEqualTo(ChatEvent.message(1, 2, 3));
    }

    @Test
    void duplicateNamesDeepInsideUnknownValuesAreStillRefused() {
        String deep =
                "{\"x\":"
                        + "[".repeat(3000)
                        + "{\"d\":1,\"d\":2}"
                        + "]".repeat(3000)
                        + ",\"senderId\":1,\"receiverId\":2,\"sentAt\":3}";
        assertThatThrownBy(() -> message(deep)).hasMessage("malformed JSON: Duplicate field 'd'");
        String second =
                "{\"x\":[{\"a\":1}],\"y\":[[{\"b\":1,\"c\":2,\"b\":3}]],"
                        + "\"senderId\":1,\"receiverId\":2,\"sentAt\":3}";
        assertThatThrownBy(() -> message(second)).hasMessage("malformed JSON: Duplicate field 'b'");
    }

    @Test
    void invalidUtf8IsRefused() {
        byte[] bad =
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":\"xx\"}"
                        .getBytes(StandardCharsets.UTF_8);
        bad[bad.length - 4] = (byte) 0xC3;
        bad[bad.length - 3] = (byte) 0x28;
        assertThatThrownBy(() -> parser.parseMessage(bad))
                .hasMessage("not UTF-8: truncated sequence at byte 53");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // Overlong forms of 'e' and '/' in a name and in text, where a lax decoder reads
                // them as
                // the ASCII they encode.
                "{\"s<C1 A5>nderId\":1,\"receiverId\":2,\"sentAt\":3}     | not UTF-8: overlong encoding at byte 3",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":\"<C0 AF>\"} | overlong encoding",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":\"<E0 80 AF>\"} | overlong encoding",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<F0 80 80 AF>\"} | overlong encoding",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<ED A0 80>\"} | not UTF-8: surrogate at byte",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<ED BF BF>\"} | surrogate",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<F4 90 80 80>\"} | not UTF-8: beyond U+10FFFF at byte",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<F5 80 80 80>\"} | not UTF-8: invalid byte 0xF5 at byte",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<FF>\"} | not UTF-8: invalid byte 0xFF",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<E2 82>\"} | not UTF-8: truncated sequence at byte",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<80>\"} | not UTF-8: invalid byte 0x80",
                "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"x\":\"<E2 82>                        | truncated sequence",
                "<EF BB BF>{\"senderId\":1,\"receiverId\":2,\"sentAt\":3}   | byte-order mark",
            })
    void recordsThatAreNotStrictUtf8AreRefusedWithAReason(String hex, String reason) {
        byte[] bytes = withBytes(hex);
        assertThatThrownBy(() -> parser.parseMessage(bytes)).hasMessageContaining(reason);
        assertThatThrownBy(() -> new EventParser(false).parseMessage(bytes))
                .hasMessageContaining(reason);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32BE", "UTF-32LE", "UTF-32"})
    void recordsInUtf16OrUtf32AreRefused(String charset) {
        String text = "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3}";
        byte[] bytes = text.getBytes(Charset.forName(charset));
        assertThatThrownBy(() -> parser.parseMessage(bytes)).hasMessageStartingWith("not UTF-8");
        byte[] read =
                "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":2}"
                        .getBytes(Charset.forName(charset));
        assertThatThrownBy(() -> parser.parseRead(read)).hasMessageStartingWith("not UTF-8");
    }

    @Test
    void everyWellFormedUtf8SequenceIsAccepted() throws Exception {
        // The boundaries of each sequence length, the last before and first after the surrogates,
        // U+FEFF inside text, and the largest code point.
        String text =
                "\u0000\u007f \u0080\u07ff \u0800\ud7ff\ue000\ufeff\uffff"
                        + " \ud800\udc00\udbff\udfff \u00e9\u4e2d\ud83d\ude00";
        String json =
                "{\"\u00e9\":\""
                        + text.replace("\u0000", "\\u0000")
                        + "\",\"senderId\":1,\"receiverId\":2,\"sentAt\":3,\"messageId\":\""
                        + text.substring(1)
                        + "\"}";
        assertThat(message(json)).isEqualTo(ChatEvent.message(1, 2, 3));
    }

    /** {@code text} as UTF-8 with each {@code <hex bytes>} replaced by those raw bytes. */
    private static byte[] withBytes(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < text.length()) {
            int open = text.indexOf('<', i);
            if (open < 0) {
                open = text.length();
            }
            out.writeBytes(text.substring(i, open).getBytes(StandardCharsets.UTF_8));
            if (open == text.length()) {
                break;
            }
            int close = text.indexOf('>', open);
            for (String hex : text.substring(open + 1, close).split(" ")) {
                out.write(Integer.parseInt(hex, 16));
            }
            i = close + 1;
        }
        return out.toByteArray();
    }

    @Test
    void overlongMessageIdIsRefused() {
        String id = "m".repeat(InputField.MESSAGE_ID.max() + 1);
        assertThatThrownBy(
                        () ->
                                message(
                                        "{\"messageId\":\""
                                                + id
                                                + "\",\"senderId\":1,"
                                                + "\"receiverId\":2,\"sentAt\":3}"))
                .hasMessageContaining("messageId: longer than 128");
    }

    @Test
    void theCompactScanAgreesWithJacksonOnTrafficBadRecordsAndMutationsOfThem() {
        EventParser jacksonOnly = new EventParser(false);
        List<byte[]> inputs = new ArrayList<>();
        for (ChatEvent event : new EventStreams(1).events(5_000)) {
            inputs.add(ChatEventJson.value(event));
        }
        new BadRecords(7, EventParser.MAX_RECORD_BYTES + 8)
                .of(400)
                .forEach(b -> inputs.add(b.value()));
        Random random = new Random(7);
        byte[] alphabet = "0123456789{}[]\":,.eE-+ \t\\nulx\u007f".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 5_000; i++) {
            inputs.add(mutated(inputs.get(random.nextInt(5_000)), random, alphabet));
        }
        String ids = ",\"senderId\":1,\"receiverId\":2,\"sentAt\":3}";
        String conversationRead =
                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,";
        for (String edge :
                new String[] {
                    "{\"senderId\":-0,\"receiverId\":2,\"sentAt\":3}",
                    "{\"senderId\":01,\"receiverId\":2,\"sentAt\":3}",
                    "{\"senderId\":999999999999999999,\"receiverId\":2,\"sentAt\":3}",
                    "{\"senderId\":1000000000000000000,\"receiverId\":2,\"sentAt\":3}",
                    "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3} ",
                    " {\"senderId\":1,\"receiverId\":2,\"sentAt\":3}",
                    "{\"sender\\u0049d\":1,\"receiverId\":2,\"sentAt\":3}",
                    "{\"messageId\":\"\u007f\"" + ids,
                    "{\"messageId\":\"" + "m".repeat(128) + "\"" + ids,
                    "{\"messageId\":\"" + "m".repeat(129) + "\"" + ids,
                    "{\"messageId\":\"\u00e9\"" + ids,
                    "{\"messageId\":\"a\\\"b\"" + ids,
                    "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":2,\"userId\":1}",
                    "{\"type\":\"INBOX_OPENEDX\",\"userId\":1,\"readAt\":2}",
                    conversationRead + "\"readSeq\":0,\"readAt\":2}",
                    conversationRead + "\"readSeq\":00,\"readAt\":2}",
                    conversationRead + "\"readSeq\":9223372036854775807,\"readAt\":2}",
                    "{}",
                    "{\"senderId\":1,\"receiverId\":2,\"sentAt\":3,}",
                }) {
            inputs.add(edge.getBytes(StandardCharsets.UTF_8));
        }
        for (byte[] input : inputs) {
            String text = new String(input, StandardCharsets.UTF_8);
            assertThat(outcome(() -> parser.parseMessage(input)))
                    .as("message %s", text)
                    .isEqualTo(outcome(() -> jacksonOnly.parseMessage(input)));
            assertThat(outcome(() -> parser.parseRead(input)))
                    .as("read %s", text)
                    .isEqualTo(outcome(() -> jacksonOnly.parseRead(input)));
        }
    }

    /** One byte of {@code value} deleted, replaced or preceded by one from {@code alphabet}. */
    private static byte[] mutated(byte[] value, Random random, byte[] alphabet) {
        int at = random.nextInt(value.length);
        byte b = alphabet[random.nextInt(alphabet.length)];
        switch (random.nextInt(3)) {
            case 0:
                byte[] shorter = new byte[value.length - 1];
                System.arraycopy(value, 0, shorter, 0, at);
                System.arraycopy(value, at + 1, shorter, at, value.length - at - 1);
                return shorter;
            case 1:
                byte[] replaced = value.clone();
                replaced[at] = b;
                return replaced;
            default:
                byte[] longer = new byte[value.length + 1];
                System.arraycopy(value, 0, longer, 0, at);
                longer[at] = b;
                System.arraycopy(value, at, longer, at + 1, value.length - at);
                return longer;
        }
    }

    private interface Parse {
        ChatEvent run() throws InvalidRecordException;
    }

    /** The event parsed, or the reason it was refused. */
    private static String outcome(Parse parse) {
        try {
            return parse.run().toString();
        } catch (InvalidRecordException e) {
            return "refused: " + e.getMessage();
        }
    }

    private ChatEvent message(String json) throws InvalidRecordException {
        return parser.parseMessage(json.getBytes(StandardCharsets.UTF_8));
    }

    private ChatEvent read(String json) throws InvalidRecordException {
        return parser.parseRead(json.getBytes(StandardCharsets.UTF_8));
    }
}
