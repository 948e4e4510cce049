package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.EventJson;
import dev.unread.testing.BadRecords;
import dev.unread.testing.EventStreams;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * Times bounded by the Kafka record's own timestamp: a {@code sentAt} or {@code readAt} more than
 * the allowed skew ahead of it is refused, so that a hostile time cannot silence a badge forever or
 * keep a sender counted, and the decision is the same on every replay.
 */
class ParseEventsTest {

    private static final long DAY = 86_400_000L;
    private static final long STAMP = 1_767_225_600_000L;

    @Test
    void aMessageSentUpToTheSkewAfterItsRecordIsAcceptedAndOneLaterIsRefused() throws Exception {
        Outcome out =
                run(
                        ParseEvents.Topic.MESSAGES,
                        DAY,
                        message(STAMP + DAY, STAMP),
                        message(STAMP + DAY + 1, STAMP),
                        message(1, STAMP),
                        message(STAMP * 1000, STAMP));
        assertThat(out.events)
                .containsExactly(ChatEvent.message(1, 2, STAMP + DAY), ChatEvent.message(1, 2, 1));
        assertThat(out.reasons)
                .containsExactly(
                        "sentAt: 1767312000001 is more than 86400000 ms after the record's timestamp"
                                + " 1767225600000",
                        "sentAt: 1767225600000000 is more than 86400000 ms after the record's timestamp"
                                + " 1767225600000");
    }

    @Test
    void readsFromTheFarFutureAreRefused() throws Exception {
        Outcome out =
                run(
                        ParseEvents.Topic.READS,
                        DAY,
                        record(
                                STAMP,
                                "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":"
                                        + Long.MAX_VALUE
                                        + "}"),
                        record(
                                STAMP,
                                "{\"type\":\"CONVERSATION_READ\",\"userId\":1,\"conversationId\":4,"
                                        + "\"readSeq\":3,\"readAt\":"
                                        + (STAMP + 2 * DAY)
                                        + "}"),
                        record(
                                STAMP,
                                "{\"type\":\"INBOX_OPENED\",\"userId\":1,\"readAt\":"
                                        + STAMP
                                        + "}"));
        assertThat(out.events).containsExactly(ChatEvent.inboxOpened(1, STAMP));
        assertThat(out.reasons)
                .hasSize(2)
                .allSatisfy(
                        r ->
                                assertThat(r)
                                        .startsWith("readAt: ")
                                        .contains("after the record's timestamp 1767225600000"));
    }

    /** An erasure in the future would hold back every event of its user until then. */
    @Test
    void anErasureFromTheFarFutureIsRefused() throws Exception {
        Outcome out =
                run(
                        ParseEvents.Topic.READS,
                        DAY,
                        record(STAMP, EventJson.userErased(1, STAMP + 2 * DAY)),
                        record(STAMP, EventJson.userErased(1, STAMP)));
        assertThat(out.events).containsExactly(ChatEvent.userErased(1, STAMP));
        assertThat(out.reasons)
                .singleElement()
                .satisfies(
                        r ->
                                assertThat(r)
                                        .startsWith("erasedAt: ")
                                        .contains("after the record's timestamp 1767225600000"));
    }

    @Test
    void aZeroSkewAllowsNoTimeAfterTheRecordAndTheLargestSkewDoesNotOverflow() throws Exception {
        assertThat(
                        run(
                                        ParseEvents.Topic.MESSAGES,
                                        0,
                                        message(STAMP, STAMP),
                                        message(STAMP + 1, STAMP))
                                .events)
                .containsExactly(ChatEvent.message(1, 2, STAMP));
        assertThat(
                        run(
                                        ParseEvents.Topic.MESSAGES,
                                        Long.MAX_VALUE,
                                        message(Long.MAX_VALUE, STAMP))
                                .events)
                .containsExactly(ChatEvent.message(1, 2, Long.MAX_VALUE));
    }

    @Test
    void aRecordWithoutATimestampIsRefusedSinceItsTimeCannotBeBounded() throws Exception {
        Outcome out = run(ParseEvents.Topic.MESSAGES, DAY, message(STAMP, -1));
        assertThat(out.events).isEmpty();
        assertThat(out.reasons)
                .containsExactly("sentAt: the record has no timestamp to bound it by");
    }

    @Test
    void theHostileCorpusIsRefusedWholeAndItsUnusualButValidCounterpartAccepted() throws Exception {
        long now = System.currentTimeMillis();
        List<BadRecords.Bad> bad =
                new BadRecords(17, EventParser.MAX_RECORD_BYTES + 8)
                        .of(BadRecords.Kind.values().length * 30);
        for (BadRecords.Bad b : bad) {
            Outcome out =
                    run(
                            b.toMessages() ? ParseEvents.Topic.MESSAGES : ParseEvents.Topic.READS,
                            DAY,
                            new RawRecord("t", 0, 0, now, null, b.value()));
            assertThat(out.events).as("%s %s", b.kind(), abbreviated(b.value())).isEmpty();
            assertThat(out.reasons).hasSize(1).allSatisfy(r -> assertThat(r).isNotBlank());
        }

        Random random = new Random(17);
        List<ChatEvent> events = new EventStreams(17).events(600);
        for (ParseEvents.Topic topic : ParseEvents.Topic.values()) {
            boolean messages = topic == ParseEvents.Topic.MESSAGES;
            List<ChatEvent> mine =
                    events.stream().filter(e -> ChatEventJson.isMessage(e) == messages).toList();
            RawRecord[] records =
                    mine.stream()
                            .map(
                                    e ->
                                            new RawRecord(
                                                    "t",
                                                    0,
                                                    0,
                                                    now,
                                                    null,
                                                    BadRecords.unusualButValid(e, random)))
                            .toArray(RawRecord[]::new);
            Outcome out = run(topic, DAY, records);
            assertThat(out.reasons).as(topic.name()).isEmpty();
            assertThat(out.events).isEqualTo(mine);
        }
    }

    private record Outcome(List<ChatEvent> events, List<String> reasons) {}

    private static Outcome run(ParseEvents.Topic topic, long skew, RawRecord... records)
            throws Exception {
        try (OneInputStreamOperatorTestHarness<RawRecord, ChatEvent> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new ParseEvents(topic, skew)))) {
            harness.open();
            for (RawRecord r : records) {
                harness.processElement(new StreamRecord<>(r));
            }
            List<ChatEvent> events = harness.extractOutputValues();
            var letters = harness.getSideOutput(ParseEvents.DEAD_LETTERS);
            List<String> reasons =
                    letters == null
                            ? List.of()
                            : letters.stream().map(letter -> letter.getValue().reason).toList();
            return new Outcome(events, reasons);
        }
    }

    private static String abbreviated(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }

    private static RawRecord message(long sentAt, long recordTimestamp) {
        return record(
                recordTimestamp, "{\"senderId\":1,\"receiverId\":2,\"sentAt\":" + sentAt + "}");
    }

    private static RawRecord record(long timestamp, String json) {
        return new RawRecord("t", 0, 0, timestamp, null, json.getBytes(StandardCharsets.UTF_8));
    }
}
