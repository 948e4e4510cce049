package dev.unread.state;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The keyed state's records (a user's inbox, a conversation, a thread) as a mask of the fields that
 * are not zero, then each of those as a zigzag varint. Most of a record's fields are 0 (no mention,
 * preference, mark, deletion or thread) and the rest are small counts and seqs, so a record takes
 * about a tenth of what Flink's POJO serializer writes (a null flag and 8 bytes for every field). A
 * record may carry byte arrays too, each as the field whose bit it takes.
 *
 * <p>A field added to a record takes the next bit: records written before it have that bit clear
 * and read as 0, so the format grows without a migration; a bit this build does not know is a
 * record of a newer build, refused rather than misread. Records written by the POJO serializer
 * (versions 1 and 2) are migrated on restore: Flink reads them with the POJO serializer their
 * snapshot restores and writes them again with this one.
 */
abstract class CompactStateSerializer<T> extends TypeSerializerSingleton<T> {

    private final int fields;

    CompactStateSerializer(int fields) {
        this.fields = fields;
    }

    /** The fields in bit order; the byte arrays' slots, if any, hold 0. */
    abstract long[] values(T record);

    /**
     * A record of these field values and byte arrays ({@code bytes[field]}, null for a field that
     * is no byte array or was not written).
     */
    abstract T of(long[] values, byte[][] bytes);

    /** Whether the field of this bit is a byte array. */
    boolean isBytes(int field) {
        return false;
    }

    /** The record's byte array of a field, written unless {@link #isDefault}. */
    byte[] bytes(T record, int field) {
        return null;
    }

    /** Whether a byte array is a field's default, which is not written. */
    boolean isDefault(byte[] bytes) {
        return true;
    }

    @Override
    public final boolean isImmutableType() {
        return false;
    }

    @Override
    public final T createInstance() {
        return of(new long[fields], new byte[fields][]);
    }

    @Override
    public final T copy(T from) {
        byte[][] bytes = new byte[fields][];
        for (int i = 0; i < fields; i++) {
            byte[] b = isBytes(i) ? bytes(from, i) : null;
            bytes[i] = b == null || isDefault(b) ? null : b.clone();
        }
        return of(values(from), bytes);
    }

    @Override
    public final T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public final int getLength() {
        return -1;
    }

    @Override
    public final void serialize(T record, DataOutputView out) throws IOException {
        long[] values = values(record);
        long mask = 0;
        for (int i = 0; i < values.length; i++) {
            if (isBytes(i) ? !isDefault(bytes(record, i)) : values[i] != 0) {
                mask |= 1L << i;
            }
        }
        writeVarLong(out, mask);
        for (int i = 0; i < values.length; i++) {
            if ((mask & 1L << i) == 0) {
                continue;
            }
            if (isBytes(i)) {
                byte[] bytes = bytes(record, i);
                writeVarLong(out, bytes.length);
                out.write(bytes);
            } else {
                writeVarLong(out, (values[i] << 1) ^ (values[i] >> 63));
            }
        }
    }

    @Override
    public final T deserialize(DataInputView in) throws IOException {
        long mask = readVarLong(in);
        long[] values = new long[fields];
        byte[][] bytes = new byte[fields][];
        for (int i = 0; mask >>> i != 0; i++) {
            if ((mask & 1L << i) == 0) {
                continue;
            }
            if (i >= values.length) {
                throw new IOException(
                        getClass().getSimpleName()
                                + ": a record with field "
                                + i
                                + ", written by a newer build");
            }
            if (isBytes(i)) {
                bytes[i] = new byte[Math.toIntExact(readVarLong(in))];
                in.readFully(bytes[i]);
            } else {
                long v = readVarLong(in);
                values[i] = (v >>> 1) ^ -(v & 1);
            }
        }
        return of(values, bytes);
    }

    @Override
    public final T deserialize(T reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public final void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
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
        throw new IOException("malformed varint in keyed state");
    }

    /**
     * Compatible as it is with itself (fields only ever take new bits), and after a migration with
     * the POJO serializer that wrote the record before.
     */
    abstract static class Snapshot<T> extends SimpleTypeSerializerSnapshot<T> {

        Snapshot(Supplier<? extends TypeSerializer<T>> serializer) {
            super(serializer);
        }

        @Override
        public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
                TypeSerializerSnapshot<T> oldSerializerSnapshot) {
            if (oldSerializerSnapshot instanceof PojoSerializerSnapshot) {
                return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
            }
            return super.resolveSchemaCompatibility(oldSerializerSnapshot);
        }
    }
}
