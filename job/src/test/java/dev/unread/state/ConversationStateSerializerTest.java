package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Random;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ConversationStateSerializerTest {

    private static final ConversationStateSerializer SERIALIZER =
            ConversationStateSerializer.INSTANCE;

    @Test
    void everyFieldRoundTripsWhateverItsValue() throws IOException {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        long[] interesting = {0, 1, -1, 127, 128, -129, Long.MAX_VALUE, Long.MIN_VALUE};
        for (int n = 0; n < 10_000; n++) {
            ConversationState state = new ConversationState();
            long[] v = new long[13];
            for (int i = 0; i < v.length; i++) {
                v[i] =
                        random.nextInt(3) == 0
                                ? 0
                                : random.nextBoolean()
                                        ? interesting[random.nextInt(interesting.length)]
                                        : random.nextLong() >> random.nextInt(64);
            }
            fill(state, v);
            if (random.nextInt(4) == 0) {
                state.unreadSeqs = new byte[random.nextInt(300)];
                random.nextBytes(state.unreadSeqs);
            }

            ConversationState back = roundTrip(state);

            assertThat(back).as("seed %d", seed).usingRecursiveComparison().isEqualTo(state);
            assertThat(SERIALIZER.copy(state))
                    .as("seed %d", seed)
                    .usingRecursiveComparison()
                    .isEqualTo(state);
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

        DataOutputSerializer out = new DataOutputSerializer(64);
        SERIALIZER.serialize(state, out);
        DataOutputSerializer pojo = new DataOutputSerializer(256);
        pojoSerializer().serialize(state, pojo);

        assertThat(out.length()).isLessThanOrEqualTo(14);
        assertThat(pojo.length()).isGreaterThan(100);
    }

    @Test
    void stateOfThePojoSerializerMigratesAndItsOwnIsCompatibleAsItIs() {
        assertThat(
                        SERIALIZER
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(
                                        pojoSerializer().snapshotConfiguration()))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAfterMigration)
                .isEqualTo(true);
        assertThat(
                        SERIALIZER
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(SERIALIZER.snapshotConfiguration()))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAsIs)
                .isEqualTo(true);
    }

    @Test
    void aFieldOfANewerBuildIsRefusedNotMisread() {
        DataInputDeserializer in =
                new DataInputDeserializer(new byte[] {(byte) 0x80, (byte) 0x80, 1, 1});
        assertThatThrownBy(() -> SERIALIZER.deserialize(in))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("newer build");
    }

    private static ConversationState roundTrip(ConversationState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        SERIALIZER.serialize(state, out);
        return SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @SuppressWarnings("unchecked")
    private static PojoSerializer<ConversationState> pojoSerializer() {
        PojoTypeInfo<ConversationState> info =
                (PojoTypeInfo<ConversationState>)
                        TypeExtractor.createTypeInfo(ConversationState.class);
        return (PojoSerializer<ConversationState>)
                info.createSerializer(new SerializerConfigImpl());
    }

    private static void fill(ConversationState s, long[] v) {
        s.lastReadSeq = v[0];
        s.unreadCount = v[1];
        s.refreshedIn = v[2];
        s.membership = v[3];
        s.mentionCount = v[4];
        s.preference = v[5];
        s.preferenceSetAt = v[6];
        s.lastReadAt = v[7];
        s.markedAt = v[8];
        s.deletedCount = v[9];
        s.followedUnreadThreads = v[10];
        s.followedMentionThreads = v[11];
        s.followedThreadMentions = v[12];
    }
}
