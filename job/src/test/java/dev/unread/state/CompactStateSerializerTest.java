package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
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

    /**
     * Every public field of the record, set by reflection rather than through the serializer's own
     * list, so that a field the list leaves out fails here.
     */
    @ParameterizedTest
    @MethodSource("serializers")
    <T> void everyFieldRoundTripsWhateverItsValue(CompactStateSerializer<T> serializer)
            throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<Field> fields = publicFields(serializer.createInstance().getClass());
        for (int n = 0; n < 10_000; n++) {
            T record = serializer.createInstance();
            for (Field field : fields) {
                if (random.nextInt(3) == 0) {
                    continue;
                }
                if (field.getType() == long.class) {
                    field.setLong(
                            record,
                            random.nextBoolean()
                                    ? INTERESTING[random.nextInt(INTERESTING.length)]
                                    : random.nextLong() >> random.nextInt(64));
                } else if (field.getType() == boolean.class) {
                    field.setBoolean(record, true);
                } else if (random.nextInt(4) == 0) {
                    byte[] bytes = new byte[random.nextInt(300)];
                    random.nextBytes(bytes);
                    field.set(record, bytes);
                }
            }

            assertThat(differences(fields, roundTrip(serializer, record), record))
                    .as("seed %d", seed)
                    .isEmpty();
            assertThat(differences(fields, serializer.copy(record), record))
                    .as("seed %d", seed)
                    .isEmpty();
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
        // Bit 31: one past ConversationState's fields.
        DataInputDeserializer in =
                new DataInputDeserializer(
                        new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 8, 1});
        assertThatThrownBy(() -> ConversationStateSerializer.INSTANCE.deserialize(in))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("newer build");
    }

    /** The fields in which the records differ: AssertJ's recursive comparison is too slow here. */
    private static List<String> differences(List<Field> fields, Object actual, Object expected)
            throws IllegalAccessException {
        List<String> differ = new ArrayList<>();
        for (Field field : fields) {
            Object a = field.get(actual);
            Object e = field.get(expected);
            if (a instanceof byte[] ? !Arrays.equals((byte[]) a, (byte[]) e) : !a.equals(e)) {
                differ.add(field.getName());
            }
        }
        return differ;
    }

    private static List<Field> publicFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Field field : type.getFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                assertThat(field.getType()).isIn(long.class, boolean.class, byte[].class);
                fields.add(field);
            }
        }
        return fields;
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
