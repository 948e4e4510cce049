package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The three records of keyed state, each with {@link CompactStateSerializer}. */
class CompactStateSerializerTest {

    private static final long[] INTERESTING = {
        0, 1, -1, 127, 128, -129, 1767225600000L, Long.MAX_VALUE, Long.MIN_VALUE
    };

    static List<CompactStateSerializer<?>> serializers() {
        return List.of(
                ConversationStateSerializer.INSTANCE,
                InboxStateSerializer.INSTANCE,
                ThreadStateSerializer.INSTANCE);
    }

    @ParameterizedTest
    @MethodSource("serializers")
    <T> void everyFieldRoundTripsWhateverItsValue(CompactStateSerializer<T> serializer)
            throws IOException {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int fields = serializer.values(serializer.createInstance()).length;
        for (int n = 0; n < 10_000; n++) {
            long[] values = new long[fields];
            for (int i = 0; i < fields; i++) {
                if (serializer.isBytes(i) || random.nextInt(3) == 0) {
                    continue;
                }
                values[i] =
                        booleanField(serializer, i)
                                ? 1
                                : random.nextBoolean()
                                        ? INTERESTING[random.nextInt(INTERESTING.length)]
                                        : random.nextLong() >> random.nextInt(64);
            }
            byte[][] bytes = new byte[fields][];
            for (int i = 0; i < fields; i++) {
                if (serializer.isBytes(i) && random.nextInt(4) == 0) {
                    bytes[i] = new byte[random.nextInt(300)];
                    random.nextBytes(bytes[i]);
                }
            }
            T record = serializer.of(values, bytes);

            T back = roundTrip(serializer, record);
            T copy = serializer.copy(record);

            assertThat(serializer.values(back)).as("seed %d", seed).isEqualTo(values);
            assertThat(serializer.values(copy)).isEqualTo(values);
            for (int i = 0; i < fields; i++) {
                assertThat(serializer.bytes(back, i))
                        .as("seed %d field %d", seed, i)
                        .isEqualTo(serializer.bytes(record, i));
                assertThat(serializer.bytes(copy, i)).isEqualTo(serializer.bytes(record, i));
            }
        }
    }

    @Test
    void aTypicalConversationTakesAFewBytesNotThePojoSerializersHundredAndMore()
            throws IOException {
        ConversationState state = new ConversationState();
        state.lastReadSeq = 1038;
        state.unreadCount = 4;
        state.refreshedIn = 3;
        state.lastReadAt = 1767225600000L;

        assertThat(size(ConversationStateSerializer.INSTANCE, state)).isLessThanOrEqualTo(14);
        assertThat(size(pojo(ConversationState.class), state)).isGreaterThan(100);
    }

    @ParameterizedTest
    @MethodSource("serializers")
    <T> void recordsThePojoSerializerWroteMigrateAndItsOwnAreCompatibleAsTheyAre(
            CompactStateSerializer<T> serializer) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) serializer.createInstance().getClass();
        TypeSerializerSnapshot<T> own = serializer.snapshotConfiguration();

        assertThat(own.resolveSchemaCompatibility(pojo(type).snapshotConfiguration()))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAfterMigration)
                .isEqualTo(true);
        assertThat(own.resolveSchemaCompatibility(serializer.snapshotConfiguration()))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAsIs)
                .isEqualTo(true);
        assertThat(own.restoreSerializer()).isSameAs(serializer);
    }

    @Test
    void aFieldOfANewerBuildIsRefusedNotMisread() {
        // Bit 22: one past ConversationState's fields.
        DataInputDeserializer in =
                new DataInputDeserializer(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, 2, 1});
        assertThatThrownBy(() -> ConversationStateSerializer.INSTANCE.deserialize(in))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("newer build");
    }

    /** InboxState.totalsKept and ThreadState.involved are booleans: 0 or 1 only. */
    private static boolean booleanField(CompactStateSerializer<?> serializer, int i) {
        return serializer == InboxStateSerializer.INSTANCE && i == 8
                || serializer == ThreadStateSerializer.INSTANCE && i == 7;
    }

    private static <T> T roundTrip(TypeSerializer<T> serializer, T record) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(record, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    private static <T> int size(TypeSerializer<T> serializer, T record) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(record, out);
        return out.length();
    }

    private static <T> TypeSerializer<T> pojo(Class<T> type) {
        return TypeExtractor.createTypeInfo(type).createSerializer(new SerializerConfigImpl());
    }
}
