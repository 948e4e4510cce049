package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ChatEventSerializerTest {

    private static final List<ChatEvent> EVENTS =
            List.of(
                    deleted(ChatEvent.reply(10087, 10086, 80001, 1061, 1038, 6, true)),
                    deleted(ChatEvent.message(10087, 10086, 80001, 1062, 7)),
                    ChatEvent.message(10087, 10086, 1_767_225_600_000L),
                    ChatEvent.message(Long.MAX_VALUE, 1, 80001, 1038, 1),
                    ChatEvent.inboxOpened(10086, 1_767_225_600_001L),
                    ChatEvent.conversationRead(10086, 80001, 0, 2),
                    ChatEvent.reply(10087, 10086, 80001, 1060, 1038, 3, true),
                    ChatEvent.threadRead(10086, 80001, 1038, 1060, 4),
                    ChatEvent.threadFollowed(10086, 80001, 1038, true, 5));

    private final ChatEventSerializer serializer = ChatEventSerializer.INSTANCE;

    /** A delivery the conversation's stage stamped deleted: both flags share one byte. */
    private static ChatEvent deleted(ChatEvent message) {
        message.deleted = true;
        return message;
    }

    @Test
    void flinkDerivesThisSerializerForChatEvent() {
        TypeInformation<ChatEvent> info = TypeInformation.of(ChatEvent.class);
        assertThat(info.createSerializer(new SerializerConfigImpl())).isSameAs(serializer);
    }

    @Test
    void everyKindRoundTripsFieldForField() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        for (ChatEvent event : EVENTS) {
            serializer.serialize(event, out);
        }
        assertThat(out.length()).isEqualTo(EVENTS.size() * serializer.getLength());
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        ChatEvent reused = serializer.createInstance();
        for (int i = 0; i < EVENTS.size(); i++) {
            ChatEvent read =
                    i % 2 == 0 ? serializer.deserialize(in) : serializer.deserialize(reused, in);
            assertThat(read).isEqualTo(EVENTS.get(i));
        }
        assertThat(in.available()).isZero();
    }

    @Test
    void copyingBytesAndObjectsKeepsTheEvent() throws IOException {
        for (ChatEvent event : EVENTS) {
            DataOutputSerializer out = new DataOutputSerializer(64);
            serializer.serialize(event, out);
            DataOutputSerializer copied = new DataOutputSerializer(64);
            serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
            assertThat(serializer.deserialize(new DataInputDeserializer(copied.getCopyOfBuffer())))
                    .isEqualTo(event);
            ChatEvent copy = serializer.copy(event);
            assertThat(copy).isEqualTo(event).isNotSameAs(event);
        }
    }

    @Test
    void anUnknownKindIsRefusedAsCorrupt() {
        byte[] bytes = new byte[serializer.getLength()];
        bytes[0] = (byte) ChatEvent.Kind.values().length;
        assertThatThrownBy(() -> serializer.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("kind " + ChatEvent.Kind.values().length);
    }

    @Test
    void aRestoredSnapshotAcceptsTheSerializerAsIs() throws IOException {
        TypeSerializerSnapshot<ChatEvent> snapshot = serializer.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        snapshot.writeSnapshot(out);
        TypeSerializerSnapshot<ChatEvent> restored = new ChatEventSerializer.Snapshot();
        restored.readSnapshot(
                snapshot.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader());
        assertThat(restored.restoreSerializer()).isSameAs(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
    }
}
