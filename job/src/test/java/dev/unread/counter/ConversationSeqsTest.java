package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.seqs.SmallSeqs;
import dev.unread.seqs.UnreadChunks;
import dev.unread.seqs.UnreadSeqs;
import dev.unread.state.ConversationState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A conversation's seq sets against a TreeSet, in the production state backend: in the record while
 * small, in chunks once grown, back in the record once emptied, whatever the edits.
 */
class ConversationSeqsTest {

    private static final int CONVERSATIONS = 3;

    private CounterOnRocksDb counter;
    private MapState<Tuple2<Long, Long>, byte[]> chunks;
    private UnreadChunks stored;

    @BeforeEach
    void open() throws Exception {
        counter = CounterOnRocksDb.open();
        chunks = counter.state(StateSchema.UNREAD.chunks());
        stored = new UnreadChunks(chunks, counter.state(StateSchema.UNREAD.tree()), null);
    }

    @AfterEach
    void close() throws Exception {
        counter.close();
    }

    @ParameterizedTest
    @EnumSource(ConversationSeqs.Field.class)
    void randomEditsMatchTreeSets(ConversationSeqs.Field field) throws Exception {
        long seed = System.nanoTime();
        try {
            randomEdits(field, new Random(seed));
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("ConversationSeqsTest seed " + seed + ": " + e, e);
        }
    }

    private void randomEdits(ConversationSeqs.Field field, Random random) throws Exception {
        ConversationSeqs seqs = new ConversationSeqs(stored, field);
        ConversationState[] states = new ConversationState[CONVERSATIONS];
        TreeSet<Long>[] oracles = new TreeSet[CONVERSATIONS];
        boolean[] spilled = new boolean[CONVERSATIONS];
        for (int c = 0; c < CONVERSATIONS; c++) {
            states[c] = new ConversationState();
            oracles[c] = new TreeSet<>();
        }
        for (int step = 0; step < 20_000; step++) {
            int c = random.nextInt(CONVERSATIONS);
            ConversationState state = states[c];
            TreeSet<Long> oracle = oracles[c];
            // Sets grow for a while, then a read cuts them: small and large ones both come.
            long seq = 1 + random.nextInt(step % 500 < 400 ? 200 : 70_000);
            switch (random.nextInt(10)) {
                case 0:
                    {
                        long cursor = random.nextInt(10) == 0 ? Long.MAX_VALUE : seq;
                        int before = oracle.size();
                        oracle.headSet(cursor, true).clear();
                        assertThat(seqs.removeUpTo(c, state, cursor))
                                .as("step %d remove up to %d", step, cursor)
                                .isEqualTo(before - oracle.size());
                        break;
                    }
                case 1:
                    assertThat(seqs.remove(c, state, seq))
                            .as("step %d remove %d", step, seq)
                            .isEqualTo(oracle.remove(seq));
                    break;
                case 2:
                    assertThat(seqs.contains(c, state, seq))
                            .as("step %d contains %d", step, seq)
                            .isEqualTo(oracle.contains(seq));
                    break;
                default:
                    assertThat(seqs.add(c, state, seq))
                            .as("step %d add %d", step, seq)
                            .isEqualTo(oracle.add(seq));
            }
            assertThat(field.count(state)).as("step %d count", step).isEqualTo(oracle.size());
            boolean inRecord = !isEmpty(field.seqs(state));
            if (inRecord) {
                long[] kept = SmallSeqs.decode(field.seqs(state), oracle.size());
                assertThat(Arrays.stream(kept, 0, oracle.size()).boxed().toList())
                        .as("step %d: the record holds the set", step)
                        .containsExactlyElementsOf(oracle);
            }
            if (oracle.isEmpty()) {
                spilled[c] = false;
                assertThat(hasChunks(c)).as("step %d: an empty set has no chunk", step).isFalse();
            } else if (oracle.size() > ConversationSeqs.SMALL) {
                spilled[c] = true;
            }
            assertThat(inRecord)
                    .as("step %d: in the record until it first grows past SMALL", step)
                    .isEqualTo(!oracle.isEmpty() && !spilled[c]);
            assertThat(hasChunks(c))
                    .as("step %d: in chunks once grown", step)
                    .isEqualTo(spilled[c]);
        }
        for (int c = 0; c < CONVERSATIONS; c++) {
            for (long seq : oracles[c]) {
                assertThat(seqs.contains(c, states[c], seq)).as("holds %d", seq).isTrue();
            }
        }
    }

    @Test
    void theRecordsFormRoundTripsAndRefusesWhatDoesNotMatchItsCount() {
        long[] seqs = {1, 2, 130, 131, 1L << 40, Long.MAX_VALUE};
        byte[] bytes = SmallSeqs.encode(seqs, 0, seqs.length);
        // A byte for a seq within 127 of the one before, and the format byte.
        assertThat(SmallSeqs.encode(seqs, 0, 4)).hasSize(1 + 1 + 1 + 2 + 1);
        assertThat(Arrays.copyOf(SmallSeqs.decode(bytes, seqs.length), seqs.length))
                .isEqualTo(seqs);
        assertThat(SmallSeqs.runs(seqs, 4)).containsExactly(1, 2, 130, 131);
        for (int count : new int[] {seqs.length - 1, seqs.length + 1}) {
            assertThatThrownBy(() -> SmallSeqs.decode(bytes, count))
                    .isInstanceOf(UncheckedIOException.class);
        }
        assertThatThrownBy(() -> SmallSeqs.decode(UnreadSeqs.EMPTY, 1))
                .isInstanceOf(UncheckedIOException.class);
        assertThatThrownBy(() -> SmallSeqs.decode(new byte[] {SmallSeqs.FORMAT, 5, 0}, 2))
                .isInstanceOf(UncheckedIOException.class);
    }

    private boolean hasChunks(long conversation) throws Exception {
        for (Tuple2<Long, Long> key : chunks.keys()) {
            if (key.f0 == conversation) {
                return true;
            }
        }
        return false;
    }

    private static boolean isEmpty(byte[] seqs) {
        return Arrays.equals(seqs, UnreadSeqs.EMPTY);
    }
}
