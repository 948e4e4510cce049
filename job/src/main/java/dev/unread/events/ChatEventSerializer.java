package dev.unread.events;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Every {@link ChatEvent} crosses the network once, from the parsing tasks to the counting task of
 * its user: this writes it as a kind byte, six longs and a flag byte, without the reflection
 * Flink's POJO serializer pays per field, which a profile showed as a tenth of the counting task's
 * time. ChatEvent is never kept in state, so the format may change freely between versions. The
 * fields are listed once ({@link #FIELDS}), for writing, reading and copying alike.
 */
public final class ChatEventSerializer extends TypeSerializerSingleton<ChatEvent> {

    public static final ChatEventSerializer INSTANCE = new ChatEventSerializer();

    private static final ChatEvent.Kind[] KINDS = ChatEvent.Kind.values();

    private static final int MENTIONED = 1;
    private static final int DELETED = 2;

    /** A field of the event at a fixed width, in the order it is written. */
    private record Field(
            int width, Writer write, Reader read, BiConsumer<ChatEvent, ChatEvent> copy) {}

    private interface Writer {
        void write(ChatEvent event, DataOutputView target) throws IOException;
    }

    private interface Reader {
        void read(DataInputView source, ChatEvent event) throws IOException;
    }

    private static final List<Field> FIELDS =
            List.of(
                    new Field(
                            Byte.BYTES,
                            (e, out) -> out.writeByte(e.kind.ordinal()),
                            (in, e) -> e.kind = kind(in.readUnsignedByte()),
                            (from, to) -> to.kind = from.kind),
                    number(e -> e.userId, (e, v) -> e.userId = v),
                    number(e -> e.senderId, (e, v) -> e.senderId = v),
                    number(e -> e.conversationId, (e, v) -> e.conversationId = v),
                    number(e -> e.seq, (e, v) -> e.seq = v),
                    number(e -> e.time, (e, v) -> e.time = v),
                    new Field(
                            Byte.BYTES,
                            (e, out) ->
                                    out.writeByte(
                                            (e.mentioned ? MENTIONED : 0)
                                                    | (e.deleted ? DELETED : 0)),
                            (in, e) -> {
                                int flags = in.readUnsignedByte();
                                e.mentioned = (flags & MENTIONED) != 0;
                                e.deleted = (flags & DELETED) != 0;
                            },
                            (from, to) -> {
                                to.mentioned = from.mentioned;
                                to.deleted = from.deleted;
                            }),
                    number(e -> e.threadSeq, (e, v) -> e.threadSeq = v));

    private static final int LENGTH = FIELDS.stream().mapToInt(Field::width).sum();

    private static Field number(ToLongFunction<ChatEvent> get, ObjLongConsumer<ChatEvent> set) {
        return new Field(
                Long.BYTES,
                (e, out) -> out.writeLong(get.applyAsLong(e)),
                (in, e) -> set.accept(e, in.readLong()),
                (from, to) -> set.accept(to, get.applyAsLong(from)));
    }

    private static ChatEvent.Kind kind(int ordinal) throws IOException {
        if (ordinal >= KINDS.length) {
            throw new IOException("corrupt ChatEvent: kind " + ordinal);
        }
        return KINDS[ordinal];
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public ChatEvent createInstance() {
        return new ChatEvent();
    }

    @Override
    public ChatEvent copy(ChatEvent from) {
        return copy(from, new ChatEvent());
    }

    @Override
    public ChatEvent copy(ChatEvent from, ChatEvent reuse) {
        for (Field field : FIELDS) {
            field.copy().accept(from, reuse);
        }
        return reuse;
    }

    @Override
    public int getLength() {
        return LENGTH;
    }

    @Override
    public void serialize(ChatEvent event, DataOutputView target) throws IOException {
        for (Field field : FIELDS) {
            field.write().write(event, target);
        }
    }

    @Override
    public ChatEvent deserialize(DataInputView source) throws IOException {
        return deserialize(new ChatEvent(), source);
    }

    @Override
    public ChatEvent deserialize(ChatEvent reuse, DataInputView source) throws IOException {
        for (Field field : FIELDS) {
            field.read().read(source, reuse);
        }
        return reuse;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.write(source, LENGTH);
    }

    @Override
    public TypeSerializerSnapshot<ChatEvent> snapshotConfiguration() {
        return new Snapshot();
    }

    /** What a checkpoint would record of this serializer, were a ChatEvent ever in one. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<ChatEvent> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    /** Gives ChatEvent this serializer wherever Flink derives its type ({@code @TypeInfo}). */
    public static final class TypeInfoFactoryImpl extends TypeInfoFactory<ChatEvent> {
        @Override
        public TypeInformation<ChatEvent> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new Info();
        }
    }

    /** ChatEvent's type information: an atomic type with this serializer. */
    public static final class Info extends TypeInformation<ChatEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<ChatEvent> getTypeClass() {
            return ChatEvent.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<ChatEvent> createSerializer(SerializerConfig config) {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "ChatEvent";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Info;
        }

        @Override
        public int hashCode() {
            return Info.class.hashCode();
        }

        @Override
        public boolean canEqual(Object o) {
            return o instanceof Info;
        }
    }
}
