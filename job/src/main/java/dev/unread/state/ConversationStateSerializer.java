package dev.unread.state;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link ConversationState} as a mask of the fields that are not zero (or, for {@code unreadSeqs},
 * not {@link UnreadSeqs#EMPTY}), then each of those as a zigzag varint: most of a conversation's
 * fields are 0 (no mention, no preference, no mark, no deletion, no thread), and the rest are small
 * counts and seqs, so an entry takes about a tenth of what Flink's POJO serializer writes (a null
 * flag and 8 bytes for every field).
 *
 * <p>A field added to ConversationState takes the next bit: states written before it have that bit
 * clear and read as 0, so the format grows without a migration. State written by the POJO
 * serializer (versions 1 and 2, and this one until this serializer) is migrated on restore: Flink
 * reads it with the POJO serializer its snapshot restores and writes it again with this one.
 */
public final class ConversationStateSerializer extends TypeSerializerSingleton<ConversationState> {

    public static final ConversationStateSerializer INSTANCE = new ConversationStateSerializer();

    private static final int UNREAD_SEQS = 1;
    private static final int FIELDS = 14;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public ConversationState createInstance() {
        return new ConversationState();
    }

    @Override
    public ConversationState copy(ConversationState from) {
        ConversationState to = new ConversationState();
        long[] values = longs(from);
        set(to, values);
        to.unreadSeqs =
                Arrays.equals(from.unreadSeqs, UnreadSeqs.EMPTY)
                        ? UnreadSeqs.EMPTY
                        : from.unreadSeqs.clone();
        return to;
    }

    @Override
    public ConversationState copy(ConversationState from, ConversationState reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ConversationState state, DataOutputView out) throws IOException {
        long[] values = longs(state);
        int mask = 0;
        for (int i = 0; i < FIELDS; i++) {
            if (i == UNREAD_SEQS
                    ? !Arrays.equals(state.unreadSeqs, UnreadSeqs.EMPTY)
                    : values[i] != 0) {
                mask |= 1 << i;
            }
        }
        writeVarLong(out, mask);
        for (int i = 0; i < FIELDS; i++) {
            if ((mask & 1 << i) == 0) {
                continue;
            }
            if (i == UNREAD_SEQS) {
                writeVarLong(out, state.unreadSeqs.length);
                out.write(state.unreadSeqs);
            } else {
                writeVarLong(out, zigzag(values[i]));
            }
        }
    }

    @Override
    public ConversationState deserialize(DataInputView in) throws IOException {
        long mask = readVarLong(in);
        long[] values = new long[FIELDS];
        ConversationState state = new ConversationState();
        for (int i = 0; mask >>> i != 0; i++) {
            if ((mask & 1L << i) == 0) {
                continue;
            }
            if (i >= FIELDS) {
                throw new IOException(
                        "conversation state with field " + i + ", written by a newer build");
            }
            if (i == UNREAD_SEQS) {
                byte[] seqs = new byte[Math.toIntExact(readVarLong(in))];
                in.readFully(seqs);
                state.unreadSeqs = seqs;
            } else {
                values[i] = unzigzag(readVarLong(in));
            }
        }
        set(state, values);
        return state;
    }

    @Override
    public ConversationState deserialize(ConversationState reuse, DataInputView in)
            throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public TypeSerializerSnapshot<ConversationState> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The fields in their bit order; {@code unreadSeqs}' slot holds 0. */
    private static long[] longs(ConversationState s) {
        return new long[] {
            s.lastReadSeq,
            0,
            s.unreadCount,
            s.refreshedIn,
            s.membership,
            s.mentionCount,
            s.preference,
            s.preferenceSetAt,
            s.lastReadAt,
            s.markedAt,
            s.deletedCount,
            s.followedUnreadThreads,
            s.followedMentionThreads,
            s.followedThreadMentions
        };
    }

    private static void set(ConversationState s, long[] v) {
        s.lastReadSeq = v[0];
        s.unreadCount = v[2];
        s.refreshedIn = v[3];
        s.membership = v[4];
        s.mentionCount = v[5];
        s.preference = v[6];
        s.preferenceSetAt = v[7];
        s.lastReadAt = v[8];
        s.markedAt = v[9];
        s.deletedCount = v[10];
        s.followedUnreadThreads = v[11];
        s.followedMentionThreads = v[12];
        s.followedThreadMentions = v[13];
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static void writeVarLong(DataOutputView out, long v) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    private static long readVarLong(DataInputView in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < Long.SIZE; shift += 7) {
            byte b = in.readByte();
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return v;
            }
        }
        throw new IOException("malformed varint in conversation state");
    }

    /**
     * Compatible as it is with itself (fields only ever take new bits), and after a migration with
     * the POJO serializer that wrote ConversationState before it.
     */
    public static final class Snapshot implements TypeSerializerSnapshot<ConversationState> {

        public Snapshot() {}

        @Override
        public int getCurrentVersion() {
            return 1;
        }

        @Override
        public void writeSnapshot(DataOutputView out) {}

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) {}

        @Override
        public TypeSerializer<ConversationState> restoreSerializer() {
            return INSTANCE;
        }

        @Override
        public TypeSerializerSchemaCompatibility<ConversationState> resolveSchemaCompatibility(
                TypeSerializerSnapshot<ConversationState> oldSerializerSnapshot) {
            if (oldSerializerSnapshot instanceof Snapshot) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            if (oldSerializerSnapshot instanceof PojoSerializerSnapshot) {
                return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
            }
            return TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
