package dev.unread.seqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link SentAtFrontier} against the plain answer over every message it was given. */
class SentAtFrontierTest {

    @Test
    void answersAsEveryMessageWouldThroughEncodingAndCuts() {
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            TreeMap<Long, Long> earliest = new TreeMap<>();
            byte[] bytes = SentAtFrontier.EMPTY;
            long cursor = 0;
            for (int i = 0; i < 200; i++) {
                if (random.nextInt(10) == 0) {
                    cursor = Math.max(cursor, random.nextInt(60));
                    earliest.headMap(cursor, true).clear();
                    SentAtFrontier f = SentAtFrontier.decode(bytes);
                    f.cut(cursor);
                    bytes = f.encode();
                    continue;
                }
                long seq = 1 + random.nextInt(60);
                long sentAt = random.nextInt(8) == 0 ? 0 : 1_767_225_600_000L + random.nextInt(90);
                if (seq <= cursor) {
                    continue;
                }
                earliest.merge(seq, sentAt, Math::min);
                SentAtFrontier f = SentAtFrontier.decode(bytes);
                f.add(seq, sentAt);
                bytes = f.encode();
            }
            SentAtFrontier f = SentAtFrontier.decode(bytes);
            for (long time = 0;
                    time < 1_767_225_600_100L;
                    time += time == 0 ? 1_767_225_599_990L : 3) {
                long expected = 0;
                for (var e : earliest.entrySet()) {
                    if (e.getValue() <= time) {
                        expected = e.getKey();
                    }
                }
                assertThat(f.largestSentBy(time))
                        .as("seed %d, time %d", seed, time)
                        .isEqualTo(expected);
            }
            assertThat(f.size()).isLessThanOrEqualTo(earliest.size());
        }
    }

    @Test
    void appendedIsWhatAddingThroughTheArraysEncodes() {
        int appended = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            byte[] bytes = SentAtFrontier.EMPTY;
            long seq = 0;
            long sentAt = 1_767_225_600_000L;
            for (int i = 0; i < 100; i++) {
                // Mostly in order, as messages arrive; sometimes a seq or a sentAt out of it.
                long nextSeq =
                        random.nextInt(5) == 0
                                ? 1 + random.nextInt(60)
                                : seq + 1 + random.nextInt(200);
                long nextSentAt =
                        random.nextInt(5) == 0
                                ? sentAt - random.nextInt(50)
                                : sentAt + random.nextInt(20_000);
                SentAtFrontier f = SentAtFrontier.decode(bytes);
                boolean changed = f.add(nextSeq, nextSentAt);
                byte[] expected = changed ? f.encode() : bytes;
                byte[] fast = SentAtFrontier.appended(bytes, nextSeq, nextSentAt);
                if (fast != null) {
                    appended++;
                    assertThat(fast).as("seed %d, add %d", seed, i).isEqualTo(expected);
                }
                bytes = expected;
                seq = Math.max(seq, nextSeq);
                sentAt = Math.max(sentAt, nextSentAt);
            }
        }
        assertThat(appended).as("adds that took the short way").isGreaterThan(10_000);
    }

    @Test
    void appendedAfterTheLastPairIsWhatAddingThroughTheArraysEncodes() {
        int appended = 0;
        int replaced = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            byte[] bytes = SentAtFrontier.EMPTY;
            long lastSeq = 0;
            long lastSentAt = 0;
            long sentAt = 1_767_225_600_000L;
            for (int i = 0; i < 100; i++) {
                // Mostly in order, often sent with the one before; sometimes out of order.
                long nextSeq =
                        random.nextInt(5) == 0
                                ? 1 + random.nextInt(60)
                                : lastSeq + 1 + random.nextInt(200);
                int draw = random.nextInt(5);
                long nextSentAt =
                        draw == 0
                                ? sentAt - random.nextInt(50)
                                : draw == 1 ? sentAt : sentAt + random.nextInt(20_000);
                SentAtFrontier f = SentAtFrontier.decode(bytes);
                boolean changed = f.add(nextSeq, nextSentAt);
                byte[] expected = changed ? f.encode() : bytes;
                byte[] fast =
                        SentAtFrontier.appendedAfter(
                                bytes, lastSeq, lastSentAt, nextSeq, nextSentAt);
                if (fast != null) {
                    appended++;
                    replaced += bytes.length > 0 && nextSentAt == lastSentAt ? 1 : 0;
                    assertThat(fast).as("seed %d, add %d", seed, i).isEqualTo(expected);
                }
                bytes = expected;
                if (nextSeq > lastSeq) {
                    lastSeq = nextSeq;
                    lastSentAt = nextSentAt;
                } else if (nextSeq == lastSeq) {
                    lastSentAt = Math.min(lastSentAt, nextSentAt);
                }
                sentAt = Math.max(sentAt, nextSentAt);
            }
        }
        assertThat(appended).as("adds that took the short way").isGreaterThan(10_000);
        assertThat(replaced).as("of them, a last pair replaced").isGreaterThan(2_000);
    }

    @Test
    void appendedLeavesAnAddThatIsNotLastToTheArrays() {
        SentAtFrontier first = SentAtFrontier.decode(SentAtFrontier.EMPTY);
        first.add(5, 100);
        SentAtFrontier second = SentAtFrontier.decode(first.encode());
        second.add(9, 200);
        byte[] bytes = second.encode();
        assertThat(SentAtFrontier.appended(SentAtFrontier.EMPTY, 5, 100)).isNull();
        assertThat(SentAtFrontier.appended(bytes, 9, 300)).isNull();
        assertThat(SentAtFrontier.appended(bytes, 7, 300)).isNull();
        assertThat(SentAtFrontier.appended(bytes, 12, 200)).isNull();
        assertThat(
                        SentAtFrontier.decode(SentAtFrontier.appended(bytes, 12, 201))
                                .largestSentBy(201))
                .isEqualTo(12);
    }

    @Test
    void aMessageBeatenByALaterSeqSentNoLaterIsNotKept() {
        SentAtFrontier f = SentAtFrontier.decode(SentAtFrontier.EMPTY);
        assertThat(f.add(5, 100)).isTrue();
        assertThat(f.add(3, 100)).isFalse();
        assertThat(f.add(5, 120)).isFalse();
        assertThat(f.add(7, 90)).isTrue();
        assertThat(f.size()).isEqualTo(1);
        assertThat(f.largestSentBy(89)).isZero();
        assertThat(f.largestSentBy(90)).isEqualTo(7);
    }
}
