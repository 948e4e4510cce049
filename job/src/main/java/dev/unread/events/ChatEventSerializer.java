package dev.unread.events;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
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
 * its user: this writes it as a kind byte, longs and a flag byte, without the reflection Flink's
 * POJO serializer pays per field, which a profile showed as a tenth of the counting task's time.
 * ChatEvent is never kept in state, so the format may change freely between versions. The fields
 * are written one by one, not walked from a list as the state serializers do: every event passes
 * here, and walking a list of lambdas cost the pass-through ceilings about a tenth of their rate
 * (docs/benchmarks.md, issue 34); ChatEventSerializerTest and the golden bytes pin the order.
 */
public final class ChatEventSerializer extends TypeSerializerSingleton<ChatEvent> {

    public static final ChatEventSerializer INSTANCE = new ChatEventSerializer();

    private static final ChatEvent.Kind[] KINDS = ChatEvent.Kind.values();

    /** A kind byte, seven longs and a byte of flags. */
    private static final int LENGTH = 1 + 7 * Long.BYTES + 1;

    private static final int MENTIONED = 1;
    private static final int DELETED = 2;
    private static final int MENTIONS_ALL = 4;

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
        reuse.kind = from.kind;
        reuse.userId = from.userId;
        reuse.senderId = from.senderId;
        reuse.conversationId = from.conversationId;
        reuse.seq = from.seq;
        reuse.time = from.time;
        reuse.mentioned = from.mentioned;
        reuse.deleted = from.deleted;
        reuse.threadSeq = from.threadSeq;
        reuse.rootSenderId = from.rootSenderId;
        reuse.mentionsAll = from.mentionsAll;
        return reuse;
    }

    @Override
    public int getLength() {
        return LENGTH;
    }

    @Override
    public void serialize(ChatEvent event, DataOutputView target) throws IOException {
        target.writeByte(event.kind.ordinal());
        target.writeLong(event.userId);
        target.writeLong(event.senderId);
        target.writeLong(event.conversationId);
        target.writeLong(event.seq);
        target.writeLong(event.time);
        target.writeByte(
                (event.mentioned ? MENTIONED : 0)
                        | (event.deleted ? DELETED : 0)
                        | (event.mentionsAll ? MENTIONS_ALL : 0));
        target.writeLong(event.threadSeq);
        target.writeLong(event.rootSenderId);
    }

    @Override
    public ChatEvent deserialize(DataInputView source) throws IOException {
        return deserialize(new ChatEvent(), source);
    }

    @Override
    public ChatEvent deserialize(ChatEvent reuse, DataInputView source) throws IOException {
        int kind = source.readUnsignedByte();
        if (kind >= KINDS.length) {
            throw new IOException("corrupt ChatEvent: kind " + kind);
        }
        reuse.kind = KINDS[kind];
        reuse.userId = source.readLong();
        reuse.senderId = source.readLong();
        reuse.conversationId = source.readLong();
        reuse.seq = source.readLong();
        reuse.time = source.readLong();
        int flags = source.readUnsignedByte();
        reuse.mentioned = (flags & MENTIONED) != 0;
        reuse.deleted = (flags & DELETED) != 0;
        reuse.mentionsAll = (flags & MENTIONS_ALL) != 0;
        reuse.threadSeq = source.readLong();
        reuse.rootSenderId = source.readLong();
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
