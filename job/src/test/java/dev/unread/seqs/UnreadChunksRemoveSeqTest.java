package dev.unread.seqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.util.Random;
import java.util.TreeSet;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Taking single seqs out of UnreadChunks (a deleted message) and looking them up, mixed with adds
 * and cuts, against a TreeSet, with seqs in one chunk, across chunks and across every level of the
 * tree; whatever is taken out leaves no chunk or node behind.
 */
class UnreadChunksRemoveSeqTest {

    private static final long[] SEEDS = {1L, 26L, System.nanoTime()};
    private static final long CONVERSATION = 80001;

    private CounterOnRocksDb counter;
    private MapState<Tuple2<Long, Long>, byte[]> chunks;
    private MapState<Tuple2<Long, Long>, byte[]> tree;
    private UnreadChunks seqs;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
        chunks = counter.state(StateSchema.DELETED.chunks());
        tree = counter.state(StateSchema.DELETED.tree());
        seqs = new UnreadChunks(chunks, tree, null);
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
    }

    @Test
    void randomAddsRemovalsAndCutsMatchATreeSetAndLeaveNothingBehind() throws Exception {
        for (long seed : SEEDS) {
            Random random = new Random(seed);
            TreeSet<Long> oracle = new TreeSet<>();
            long count = 0;
            for (int step = 0; step < 5_000; step++) {
                String at = "seed " + seed + " step " + step;
                long seq = nextSeq(random, oracle);
                int op = random.nextInt(100);
                if (op < 50) {
                    boolean added = seqs.addSeq(CONVERSATION, seq);
                    assertThat(added).as(at + " add " + seq).isEqualTo(oracle.add(seq));
                    count += added ? 1 : 0;
                } else if (op < 90) {
                    boolean removed = seqs.removeSeq(CONVERSATION, seq);
                    assertThat(removed).as(at + " remove " + seq).isEqualTo(oracle.remove(seq));
                    count -= removed ? 1 : 0;
                } else if (op < 95) {
                    int before = oracle.size();
                    oracle.headSet(seq, true).clear();
                    long cut = seqs.removeSeqsUpTo(CONVERSATION, count, seq);
                    assertThat(cut).as(at + " cut at " + seq).isEqualTo(before - oracle.size());
                    count -= cut;
                } else {
                    for (long s : oracle) {
                        assertThat(seqs.containsSeq(CONVERSATION, s)).as(at + " has " + s).isTrue();
                    }
                }
                assertThat(seqs.containsSeq(CONVERSATION, seq))
                        .as(at + " has " + seq)
                        .isEqualTo(oracle.contains(seq));
            }
            for (long s : new TreeSet<>(oracle)) {
                assertThat(seqs.removeSeq(CONVERSATION, s)).isTrue();
            }
            assertThat(chunks.keys()).as("seed " + seed + " chunks left").isEmpty();
            assertThat(tree.keys()).as("seed " + seed + " nodes left").isEmpty();
        }
    }

    /** Near the seqs there are, in one chunk, a few chunks apart, or past 2^32 and 2^48. */
    private static long nextSeq(Random random, TreeSet<Long> oracle) {
        switch (random.nextInt(5)) {
            case 0:
                return oracle.isEmpty() ? 1 : oracle.first();
            case 1:
                return 1 + random.nextInt(300);
            case 2:
                return 1 + random.nextInt(6 << 16);
            case 3:
                return (1L << 32) + random.nextInt(3 << 16);
            default:
                return (1L << 48) * (1 + random.nextInt(3)) + random.nextInt(1 << 17);
        }
    }
}
