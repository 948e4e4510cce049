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
        return new ProducerRecord<>(
                EventJson.isMessage(event) ? config.messagesTopic : config.readsTopic,
                EventJson.key(event),
                EventJson.value(event));
    }

    public static List<ProducerRecord<byte[], byte[]>> of(UnreadConfig config, List<ChatEvent> events) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(events.size());
        for (ChatEvent event : events) {
            records.add(of(config, event));
        }
        return records;
    }
}
