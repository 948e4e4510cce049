package dev.unread.state;

import dev.unread.seqs.UnreadSeqs;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
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
 * record may carry byte arrays too, each as its length and bytes, written unless empty.
 *
 * <p>Each serializer lists its record's fields once, in bit order ({@link Field}); serializing,
 * deserializing and copying all walk that list. A field added to a record takes the next bit, at
 * the end of the list: records written before it have that bit clear and read as 0, so the format
 * grows without a migration; a bit this build does not know is a record of a newer build, refused
 * rather than misread. A field's place in the list is its format: moving one misreads every stored
 * record, which the golden bytes in {@code job/src/test/resources/serializers} catch. Records
 * written by the POJO serializer (versions 1 and 2) are migrated on restore: Flink reads them with
 * the POJO serializer their snapshot restores and writes them again with this one.
 */
abstract class CompactStateSerializer<T> extends TypeSerializerSingleton<T> {

    /**
     * One field of a record: whether it holds its default (then it is not written, and reads as the
     * record's constructor leaves it), and how it is written, read and copied.
     */
    interface Field<T> {
        boolean isDefault(T record);

        void write(T record, DataOutputView out) throws IOException;

        void read(DataInputView in, T record) throws IOException;

        void copy(T from, T to);
    }

    /** A long, written as a zigzag varint. */
    static <T> Field<T> number(ToLongFunction<T> get, ObjLongConsumer<T> set) {
        return new Field<>() {
            @Override
            public boolean isDefault(T record) {
                return get.applyAsLong(record) == 0;
            }

            @Override
            public void write(T record, DataOutputView out) throws IOException {
                long v = get.applyAsLong(record);
                writeVarLong(out, (v << 1) ^ (v >> 63));
            }

            @Override
            public void read(DataInputView in, T record) throws IOException {
                long v = readVarLong(in);
                set.accept(record, (v >>> 1) ^ -(v & 1));
            }

            @Override
            public void copy(T from, T to) {
                set.accept(to, get.applyAsLong(from));
            }
        };
    }

    /** A boolean, written as the number 1 when true; any other number reads as true too. */
    static <T> Field<T> flag(Predicate<T> get, BiConsumer<T, Boolean> set) {
        return number(r -> get.test(r) ? 1 : 0, (r, v) -> set.accept(r, v != 0));
    }

    /**
     * A seq set kept in the record (see ConversationSeqs): its length, then its bytes; not written
     * when null or {@link UnreadSeqs#EMPTY}, either of which reads and copies as EMPTY.
     */
    static <T> Field<T> seqs(Function<T, byte[]> get, BiConsumer<T, byte[]> set) {
        return new Field<>() {
            @Override
            public boolean isDefault(T record) {
                byte[] seqs = get.apply(record);
                return seqs == null || Arrays.equals(seqs, UnreadSeqs.EMPTY);
            }

            @Override
            public void write(T record, DataOutputView out) throws IOException {
                byte[] seqs = get.apply(record);
                writeVarLong(out, seqs.length);
                out.write(seqs);
            }

            @Override
            public void read(DataInputView in, T record) throws IOException {
                byte[] seqs = new byte[Math.toIntExact(readVarLong(in))];
                in.readFully(seqs);
                set.accept(record, seqs);
            }

            @Override
            public void copy(T from, T to) {
                set.accept(to, isDefault(from) ? UnreadSeqs.EMPTY : get.apply(from).clone());
            }
        };
    }

    /** A record with every field at its default, which a field not written keeps. */
    private final Supplier<T> empty;

    /** The fields in bit order: a field's index is its bit in the mask. */
    private final List<Field<T>> fields;

    CompactStateSerializer(Supplier<T> empty, List<Field<T>> fields) {
        if (fields.size() > Long.SIZE) {
            throw new IllegalArgumentException("the mask is one long: at most 64 fields");
        }
        this.empty = empty;
        this.fields = List.copyOf(fields);
    }

    @Override
    public final boolean isImmutableType() {
        return false;
    }

    @Override
    public final T createInstance() {
        return empty.get();
    }

    @Override
    public final T copy(T from) {
        T to = empty.get();
        copyInto(from, to);
        return to;
    }

    /** Sets every field of {@code to} to {@code from}'s: the record kept, its content replaced. */
    public final void copyInto(T from, T to) {
        for (Field<T> field : fields) {
            field.copy(from, to);
        }
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
        long mask = 0;
        for (int i = 0; i < fields.size(); i++) {
            if (!fields.get(i).isDefault(record)) {
                mask |= 1L << i;
            }
        }
        writeVarLong(out, mask);
        for (int i = 0; i < fields.size(); i++) {
            if ((mask & 1L << i) != 0) {
                fields.get(i).write(record, out);
            }
        }
    }

    @Override
    public final T deserialize(DataInputView in) throws IOException {
        long mask = readVarLong(in);
        T record = empty.get();
        for (int i = 0; mask >>> i != 0; i++) {
            if ((mask & 1L << i) == 0) {
                continue;
            }
            if (i >= fields.size()) {
                throw new IOException(
                        getClass().getSimpleName()
                                + ": a record with field "
                                + i
                                + ", written by a newer build");
            }
            fields.get(i).read(in, record);
        }
        return record;
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
