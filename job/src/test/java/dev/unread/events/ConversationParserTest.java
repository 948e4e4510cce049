package dev.unread.events;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.EventJson;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** "Topic chat-conversations" of docs/contract.md, record by record. */
class ConversationParserTest {

    private final ConversationParser parser = new ConversationParser();

    private ConversationEvent parse(String json) throws InvalidRecordException {
        return parser.parse(json.getBytes(UTF_8));
    }

    @Test
    void membershipChangesAsTheContractWritesThem() throws Exception {
        assertThat(parse(EventJson.membership(true, 80001, 10086, 1000)))
                .isEqualTo(ConversationEvent.joined(80001, 10086, 1000));
        assertThat(parse(EventJson.membership(false, 80001, 10086, 1050)))
                .isEqualTo(ConversationEvent.left(80001, 10086, 1050));
    }

    @Test
    void aChannelDeclarationAsTheContractWritesIt() throws Exception {
        assertThat(parse("{\"type\":\"CHANNEL\",\"conversationId\":80001}"))
                .isEqualTo(ConversationEvent.channel(80001));
        assertThat(parse(EventJson.channel(80001))).isEqualTo(ConversationEvent.channel(80001));
        assertThatThrownBy(() -> parse("{\"type\":\"CHANNEL\"}"))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("conversationId");
    }

    @Test
    void aMessageWithMentionsAndMessageId() throws Exception {
        ConversationEvent e =
                parse(
                        "{\"type\":\"MESSAGE\",\"conversationId\":80001,\"seq\":1038,"
                                + "\"senderId\":10087,\"sentAt\":1767225600000,\"mentions\":[10086,7,10086],"
                                + "\"messageId\":\"m-9f1c\"}");
        assertThat(e)
                .isEqualTo(ConversationEvent.message(80001, 1038, 10087, 1767225600000L, 7, 10086));
        assertThat(e.mentions).containsExactly(7, 10086);
        assertThat(e.mentions(10086)).isTrue();
        assertThat(e.mentions(10087)).isFalse();
    }

    @Test
    void theEncoderAndTheParserAgree() throws Exception {
        assertThat(parse(EventJson.groupMessage(5, 6, 7, 8)))
                .isEqualTo(ConversationEvent.message(5, 6, 7, 8));
        assertThat(parse(EventJson.groupMessage(5, 6, 7, 8, 9, 10)))
                .isEqualTo(ConversationEvent.message(5, 6, 7, 8, 9, 10));
    }

    /**
     * Unknown fields are ignored however deep, long-named or long-numbered within the 64 KiB, as on
     * chat-messages: Jackson's default limits (nesting 32, numbers of 1,000 digits, names of 50,000
     * characters) would send these valid records to the dead letters.
     */
    @Test
    void anUnknownFieldNestedDeepOrHugeIsIgnoredAsOnTheOtherTopics() throws Exception {
        String joined = EventJson.membership(true, 80001, 10086, 1000);
        String body = joined.substring(0, joined.length() - 1);
        String deep = "[".repeat(40) + "]".repeat(40);
        String longNumber = "1" + "0".repeat(2_000);
        String longName = "n".repeat(60_000);
        ConversationEvent expected = ConversationEvent.joined(80001, 10086, 1000);

        assertThat(parse(body + ",\"extra\":" + deep + "}")).isEqualTo(expected);
        assertThat(parse(body + ",\"extra\":" + longNumber + "}")).isEqualTo(expected);
        assertThat(parse(body + ",\"" + longName + "\":1}")).isEqualTo(expected);
        assertThat(
                        parse(
                                body
                                        + ",\"extra\":"
                                        + "{\"a\":".repeat(5_000)
                                        + "0"
                                        + "}".repeat(5_000)
                                        + "}"))
                .isEqualTo(expected);
    }

    @Test
    void aThousandMentionsAreFineOneMoreIsNot() throws Exception {
        long[] thousand = LongStream.rangeClosed(1, 1000).toArray();
        assertThat(parse(EventJson.groupMessage(1, 2, 3, 4, thousand)).mentions).hasSize(1000);
        long[] more = LongStream.rangeClosed(1, 1001).toArray();
        assertThatThrownBy(() -> parse(EventJson.groupMessage(1, 2, 3, 4, more)))
                .hasMessage("mentions: more than 1000 ids");
    }

    @Test
    void nullAndUnknownFieldsAreIgnored() throws Exception {
        assertThat(
                        parse(
                                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,"
                                        + "\"sentAt\":4,\"mentions\":null,\"messageId\":null,\"x\":{\"y\":[1]}}"))
                .isEqualTo(ConversationEvent.message(1, 2, 3, 4));
    }

    @Test
    void fieldsOfAnotherKindAreNotChecked() throws Exception {
        assertThat(
                        parse(
                                "{\"type\":\"MEMBER_JOINED\",\"conversationId\":1,\"userId\":2,"
                                        + "\"seq\":3,\"senderId\":\"x\",\"mentions\":7}"))
                .isEqualTo(ConversationEvent.joined(1, 2, 3));
        assertThat(
                        parse(
                                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,"
                                        + "\"sentAt\":4,\"userId\":-5}"))
                .isEqualTo(ConversationEvent.message(1, 2, 3, 4));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"conversationId\":1,\"userId\":2,\"seq\":3}|type: missing",
                "{\"type\":\"JOINED\",\"conversationId\":1,\"userId\":2,\"seq\":3}|type: unknown JOINED",
                "{\"type\":7,\"conversationId\":1,\"userId\":2,\"seq\":3}|type: must be text",
                "{\"type\":\"MEMBER_JOINED\",\"conversationId\":1,\"seq\":3}|userId: missing",
                "{\"type\":\"MEMBER_LEFT\",\"conversationId\":1,\"userId\":2,\"seq\":0}|seq: must be > 0, was 0",
                "{\"type\":\"MEMBER_LEFT\",\"userId\":2,\"seq\":3}|conversationId: missing",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"sentAt\":4}|senderId: missing",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3}|sentAt: missing",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,\"sentAt\":\"4\"}|sentAt: must be an integer",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,\"sentAt\":4,\"mentions\":5}|mentions: must be an array of user ids",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,\"sentAt\":4,\"mentions\":[0]}|mentions: must hold user ids (integers 1..2^63-1)",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,\"sentAt\":4,\"mentions\":[\"7\"]}|mentions: must hold user ids (integers 1..2^63-1)",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,\"senderId\":3,\"sentAt\":4,\"messageId\":5}|messageId: must be text",
                "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":99999999999999999999,\"senderId\":3,\"sentAt\":4}|seq: out of range (1..2^63-1)",
                "[1]|not a JSON object",
                "{\"type\":\"MEMBER_LEFT\",\"conversationId\":1,\"userId\":2,\"seq\":3} x|malformed JSON: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
            })
    void badRecordsAreRefusedWithTheirReason(String json, String reason) {
        assertThatThrownBy(() -> parse(json))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage(reason);
    }

    @Test
    void duplicateFieldsTrailingDataAndSizeAreRefused() {
        assertThatThrownBy(
                        () ->
                                parse(
                                        "{\"type\":\"MEMBER_LEFT\",\"conversationId\":1,\"userId\":2,\"userId\":2,\"seq\":3}"))
                .hasMessageStartingWith("malformed JSON: Duplicate field 'userId'");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "{\"type\":\"MEMBER_LEFT\",\"conversationId\":1,\"userId\":2,\"seq\":3}{}"))
                .hasMessage("trailing data after the JSON object");
        String big =
                "{\"type\":\"MEMBER_LEFT\",\"conversationId\":1,\"userId\":2,\"seq\":3,\"pad\":\""
                        + "x".repeat(EventParser.MAX_RECORD_BYTES)
                        + "\"}";
        assertThatThrownBy(() -> parse(big)).hasMessageContaining("exceeds 65536");
        assertThatThrownBy(() -> parser.parse(new byte[0])).hasMessage("empty record");
        assertThatThrownBy(() -> parser.parse(null)).hasMessage("empty record");
    }

    @Test
    void aLongMessageIdIsRefused() {
        String id = LongStream.range(0, 129).mapToObj(i -> "a").collect(Collectors.joining());
        assertThatThrownBy(
                        () ->
                                parse(
                                        "{\"type\":\"MESSAGE\",\"conversationId\":1,\"seq\":2,"
                                                + "\"senderId\":3,\"sentAt\":4,\"messageId\":\""
                                                + id
                                                + "\"}"))
                .hasMessage("messageId: longer than 128 characters");
    }
}
