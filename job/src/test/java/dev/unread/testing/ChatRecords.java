package dev.unread.testing;

import dev.unread.config.UnreadConfig;
import dev.unread.events.ChatEvent;
import dev.unread.events.EventJson;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Events as a chat server publishes them: JSON on the topic of their kind, keyed by user. */
public final class ChatRecords {

    private ChatRecords() {}

    public static ProducerRecord<byte[], byte[]> of(UnreadConfig config, ChatEvent event) {
        return of(config, event, EventJson.value(event));
    }

    /** {@code event} on its topic and key, written as {@code value}. */
    public static ProducerRecord<byte[], byte[]> of(
            UnreadConfig config, ChatEvent event, byte[] value) {
        return new ProducerRecord<>(
                EventJson.isMessage(event) ? config.messagesTopic : config.readsTopic,
                EventJson.key(event),
                value);
    }

    public static List<ProducerRecord<byte[], byte[]>> of(UnreadConfig config, List<ChatEvent> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(events.size());
        for (ChatEvent event : events) {
            records.add(of(config, event));
        }
        return records;
    }
}
