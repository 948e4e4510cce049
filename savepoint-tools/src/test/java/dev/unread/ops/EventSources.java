package dev.unread.ops;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationEventJson;
import dev.unread.events.RawRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/** Bounded sources of given events, encoded as producers publish them, in place of Kafka. */
final class EventSources {

    private EventSources() {}

    /** The events of {@code events} that belong on {@code topic}'s side, as raw records. */
    static DataGeneratorSource<RawRecord> of(Collection<ChatEvent> events, boolean messages) {
        ArrayList<String> values = new ArrayList<>();
        for (ChatEvent e : events) {
            if (ChatEventJson.isMessage(e) == messages) {
                values.add(ChatEventJson.text(e));
            }
        }
        String topic = messages ? "chat-messages" : "chat-reads";
        return new DataGeneratorSource<>(
                new Records(topic, values), values.size(), TypeInformation.of(RawRecord.class));
    }

    /**
     * {@code chat-conversations} records, in the order given: a DataGeneratorSource keeps that
     * order only at parallelism 1, where it has one split.
     */
    static DataGeneratorSource<RawRecord> conversations(Collection<ConversationEvent> events) {
        ArrayList<String> values = new ArrayList<>();
        for (ConversationEvent e : events) {
            values.add(ConversationEventJson.text(e, e.sentAt));
        }
        return new DataGeneratorSource<>(
                new Records("chat-conversations", values),
                values.size(),
                TypeInformation.of(RawRecord.class));
    }

    /**
     * For a topic the test does not use: one empty record, which the job refuses to the dead
     * letters and which so changes nothing (a DataGeneratorSource of no records still asks its
     * function for record 0).
     */
    static DataGeneratorSource<RawRecord> oneRefusedRecord(String topic) {
        ArrayList<String> values = new ArrayList<>();
        values.add("");
        return new DataGeneratorSource<>(
                new Records(topic, values), 1, TypeInformation.of(RawRecord.class));
    }

    /** Record {@code i} is the {@code i}-th value, at offset {@code i} of partition 0. */
    private static final class Records implements GeneratorFunction<Long, RawRecord> {
        private static final long serialVersionUID = 1L;

        private final String topic;
        private final ArrayList<String> values;

        Records(String topic, ArrayList<String> values) {
            this.topic = topic;
            this.values = values;
        }

        @Override
        public RawRecord map(Long index) {
            byte[] value = values.get(index.intValue()).getBytes(StandardCharsets.UTF_8);
            // Stamped when made, as a producer stamps a record when it sends it.
            return new RawRecord(topic, 0, index, System.currentTimeMillis(), null, value);
        }
    }
}
