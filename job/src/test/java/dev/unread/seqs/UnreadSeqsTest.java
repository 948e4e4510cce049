package dev.unread.seqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

class UnreadSeqsTest {

    /** Fixed seeds reproduce past runs; the fresh one explores, and is printed when it fails. */
    private static final long[] SEEDS = {1L, 20260101L, 0x5EED5L, System.nanoTime()};

    @Test
    void randomEditsMatchATreeSet() {
        for (long seed : SEEDS) {
            try {
                randomEdits(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("UnreadSeqsTest seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private static void randomEdits(long seed) {
        Random random = new Random(seed);
        TreeSet<Long> oracle = new TreeSet<>();
        UnreadSeqs seqs = UnreadSeqs.of(UnreadSeqs.EMPTY);
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(100);
            if (op < 85) {
                long seq = nextSeq(random, oracle);
                assertThat(seqs.add(seq))
                        .as("step %d add %d", step, seq)
                        .isEqualTo(oracle.add(seq));
            } else if (op < 90) {
                assertThat(UnreadSeqs.of(seqs.toBytes()).runs())
                        .as("step %d runs", step)
                        .isEqualTo(runs(oracle));
            } else if (op < 95) {
                seqs = UnreadSeqs.of(seqs.toBytes());
            } else if (op < 96) {
                oracle.clear();
                seqs = UnreadSeqs.of(UnreadSeqs.EMPTY);
            } else {
                assertThat(seqs.toBytes()).as("step %d", step).isEqualTo(encode(oracle));
                assertMembership(random, seqs.toBytes(), oracle);
            }
            assertThat(seqs.count()).as("step %d count", step).isEqualTo(oracle.size());
        }
        assertThat(seqs.toBytes()).isEqualTo(encode(oracle));
        assertThat(UnreadSeqs.of(seqs.toBytes()).count()).isEqualTo(oracle.size());
    }

    /** Mostly the next seq or near a present one, so runs form, merge and split. */
    private static long nextSeq(Random random, TreeSet<Long> oracle) {
        long last = oracle.isEmpty() ? 0 : oracle.last();
        switch (random.nextInt(10)) {
            case 0:
            case 1:
            case 2:
                return last == Long.MAX_VALUE ? Long.MAX_VALUE : last + 1;
            case 3:
                return 1 + random.nextInt(300);
            case 4:
                return Long.MAX_VALUE - random.nextInt(300);
            case 5:
                return 1 + (random.nextLong() >>> 1) % (Long.MAX_VALUE - 1);
            case 6:
                return (1L << (31 + random.nextInt(32))) + random.nextInt(300) - 150;
            default:
                if (oracle.isEmpty()) {
                    return 1 + random.nextInt(1000);
                }
                long near = pick(random, oracle) + random.nextInt(7) - 3;
                return near < 1 ? 1 : near;
        }
    }

    private static long pick(Random random, TreeSet<Long> oracle) {
        Long floor =
                oracle.floor(
                        oracle.first()
                                + (random.nextLong() >>> 1)
                                        % Math.max(1, oracle.last() - oracle.first() + 1));
        return floor == null ? oracle.first() : floor;
    }

    /** Adding to a copy of the bytes finds exactly the oracle's seqs present. */
    private static void assertMembership(Random random, byte[] bytes, TreeSet<Long> oracle) {
        for (int i = 0; i < 20 && !oracle.isEmpty(); i++) {
            long seq = Math.max(1, pick(random, oracle) + random.nextInt(3) - 1);
            assertThat(UnreadSeqs.of(bytes).add(seq))
                    .as("add %d", seq)
                    .isEqualTo(!oracle.contains(seq));
        }
    }

    @Test
    void theAlternatingAndHostilePatternsOfIssue17MatchATreeSet() {
        // A 1:1 conversation whose reader never reads (odd seqs unread), alone and after one
        // hostile seq of Long.MAX_VALUE; each message read from and written back to bytes, as
        // UnreadCounter does, then read up to a cursor in the middle and past the end.
        for (boolean hostile : new boolean[] {false, true}) {
            TreeSet<Long> oracle = new TreeSet<>();
            byte[] bytes = UnreadSeqs.EMPTY;
            if (hostile) {
                UnreadSeqs seqs = UnreadSeqs.of(bytes);
                assertThat(seqs.add(Long.MAX_VALUE)).isTrue();
                oracle.add(Long.MAX_VALUE);
                bytes = seqs.toBytes();
            }
            for (long seq = 1; seq <= 6_001; seq += 2) {
                UnreadSeqs seqs = UnreadSeqs.of(bytes);
                assertThat(seqs.add(seq)).as("add %d", seq).isEqualTo(oracle.add(seq));
                assertThat(seqs.add(seq)).as("add %d again", seq).isFalse();
                bytes = seqs.toBytes();
            }
            assertThat(bytes).isEqualTo(encode(oracle));
            assertThat(UnreadSeqs.of(bytes).count()).isEqualTo(oracle.size());
            assertThat(UnreadSeqs.of(bytes).runs()).isEqualTo(runs(oracle));
        }
    }

    @Test
    void appendingToMillionsOfSeqsTouchesOnlyTheLastRun() {
        byte[] bytes = UnreadSeqs.EMPTY;
        for (long seq = 1; seq <= 1_000_000; seq++) {
            UnreadSeqs seqs = UnreadSeqs.of(bytes);
            seqs.add(seq);
            bytes = seqs.toBytes();
        }
        assertThat(UnreadSeqs.of(bytes).count()).isEqualTo(1_000_000);
        assertThat(bytes).hasSizeLessThan(12);

        UnreadSeqs gaps = UnreadSeqs.of(bytes);
        for (long seq = 1_000_002; seq <= 3_000_000; seq += 2) {
            gaps.add(seq);
        }
        assertThat(UnreadSeqs.of(gaps.toBytes()).count()).isEqualTo(2_000_000);
    }

    @Test
    void bytesWrittenByEarlierBuildsReadAsTheSameSeqs() {
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            TreeSet<Long> oracle = new TreeSet<>();
            Roaring64NavigableMap old = new Roaring64NavigableMap();
            int n = random.nextInt(50);
            for (int j = 0; j < n; j++) {
                long seq = nextSeq(random, oracle);
                oracle.add(seq);
                old.addLong(seq);
            }
            if (random.nextBoolean()) {
                long start = 1 + random.nextInt(1 << 20);
                long length = random.nextInt(20_000);
                old.addRange(start, start + length);
                for (long seq = start; seq < start + length; seq++) {
                    oracle.add(seq);
                }
            }
            if (random.nextBoolean()) {
                old.runOptimize();
            }
            byte[] bytes = portable(old);
            UnreadSeqs seqs = UnreadSeqs.of(bytes);
            assertThat(seqs.count()).isEqualTo(oracle.size());
            assertThat(seqs.toBytes()).isEqualTo(encode(oracle));
        }
    }

    @Test
    void oldBytesLedByTheNewFormatByteStillReadAsOld() {
        Roaring64NavigableMap old = new Roaring64NavigableMap();
        old.addLong(7);
        old.addLong(1L << 40);
        byte[] bytes = portable(old);
        // Two 32-bit buckets: the old format's first byte is its bucket count, 2.
        assertThat(bytes[0]).isEqualTo(UnreadSeqs.EMPTY[0]);
        assertThat(UnreadSeqs.of(bytes).toBytes())
                .isEqualTo(encode(new TreeSet<>(List.of(7L, 1L << 40))));
    }

    @Test
    void emptyInEitherFormatReadsAsEmpty() {
        byte[] oldEmpty = portable(new Roaring64NavigableMap());
        for (byte[] bytes : List.of(UnreadSeqs.EMPTY, oldEmpty)) {
            UnreadSeqs seqs = UnreadSeqs.of(bytes);
            assertThat(seqs.count()).isZero();
            assertThat(seqs.toBytes()).isEqualTo(UnreadSeqs.EMPTY);
            assertThat(seqs.add(3)).isTrue();
            assertThat(seqs.count()).isEqualTo(1);
        }
    }

    @Test
    void readingWithoutEditsWritesBackTheSameBytes() {
        byte[] bytes = encode(new TreeSet<>(List.of(3L, 4L, 9L)));
        UnreadSeqs seqs = UnreadSeqs.of(bytes);
        assertThat(seqs.add(4)).isFalse();
        assertThat(seqs.toBytes()).isSameAs(bytes);
    }

    @Test
    void seqsArePositive() {
        UnreadSeqs seqs = UnreadSeqs.of(UnreadSeqs.EMPTY);
        assertThatThrownBy(() -> seqs.add(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> seqs.add(-5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void corruptBytesFailAsCorrupt() {
        byte f = UnreadSeqs.EMPTY[0];
        List<byte[]> corrupt =
                new ArrayList<>(
                        List.of(
                                new byte[0],
                                new byte[] {9},
                                new byte[] {f, (byte) 0x80},
                                new byte[] {f, 1},
                                new byte[] {f, 1, 3},
                                new byte[] {f, 5, 3, 3, 1},
                                new byte[] {f, 1, 3, 3, 0},
                                new byte[] {f, 1, 3, 3, (byte) 0x81},
                                new byte[] {1, 0, 0, 0, 0, 0, 0, 0},
                                new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5}));
        for (byte[] bytes : corrupt) {
            assertThatThrownBy(() -> UnreadSeqs.of(bytes))
                    .as(Arrays.toString(bytes))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessage("corrupt unread seqs in state");
        }
    }

    @Test
    void runsPastTheHeaderFailAsCorruptWhenWalked() {
        byte f = UnreadSeqs.EMPTY[0];
        // One seq, the greatest 3, but the run starts at 9.
        UnreadSeqs seqs = UnreadSeqs.of(new byte[] {f, 1, 3, 9, 1});
        assertThatThrownBy(() -> seqs.add(2))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("corrupt unread seqs in state");
    }

    @Test
    void damagedBytesFailOnlyAsCorrupt() {
        Random random = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            TreeSet<Long> oracle = new TreeSet<>();
            for (int j = random.nextInt(20); j > 0; j--) {
                oracle.add(nextSeq(random, oracle));
            }
            byte[] bytes = random.nextInt(4) == 0 ? portable(roaring(oracle)) : encode(oracle);
            bytes = Arrays.copyOf(bytes, Math.max(0, bytes.length - random.nextInt(3)));
            for (int k = random.nextInt(3); k > 0 && bytes.length > 0; k--) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            try {
                UnreadSeqs seqs = UnreadSeqs.of(bytes);
                seqs.add(nextSeq(random, oracle));
                UnreadSeqs.of(seqs.toBytes()).runs();
            } catch (UncheckedIOException e) {
                assertThat(e).hasMessage("corrupt unread seqs in state");
            }
        }
    }

    /** The encoding UnreadSeqs documents, built independently from the sorted seqs. */
    private static byte[] encode(TreeSet<Long> seqs) {
        if (seqs.isEmpty()) {
            return UnreadSeqs.EMPTY;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(UnreadSeqs.EMPTY[0]);
        varint(out, seqs.size());
        varint(out, seqs.last());
        long end = 0;
        long start = -1;
        long previous = -1;
        for (long seq : seqs) {
            if (start >= 0 && seq != previous + 1) {
                varint(out, start - end);
                varint(out, previous - start + 1);
                end = previous;
                start = seq;
            } else if (start < 0) {
                start = seq;
            }
            previous = seq;
        }
        varint(out, start - end);
        varint(out, previous - start + 1);
        return out.toByteArray();
    }

    /** The oracle's runs as UnreadSeqs#runs gives them: first and last seq of each. */
    private static long[] runs(TreeSet<Long> oracle) {
        List<Long> runs = new ArrayList<>();
        for (long seq : oracle) {
            if (!runs.isEmpty() && runs.get(runs.size() - 1) + 1 == seq) {
                runs.set(runs.size() - 1, seq);
            } else {
                runs.add(seq);
                runs.add(seq);
            }
        }
        return runs.stream().mapToLong(Long::longValue).toArray();
    }

    private static void varint(ByteArrayOutputStream out, long value) {
        while (value >= 0x80) {
            out.write((int) (value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.write((int) value);
    }

    private static Roaring64NavigableMap roaring(TreeSet<Long> seqs) {
        Roaring64NavigableMap map = new Roaring64NavigableMap();
        seqs.forEach(map::addLong);
        return map;
    }

    private static byte[] portable(Roaring64NavigableMap map) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            map.serializePortable(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
