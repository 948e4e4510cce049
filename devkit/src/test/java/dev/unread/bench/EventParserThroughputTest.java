package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.EventParser;
import dev.unread.events.InvalidRecordException;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Nanoseconds per record the parser spends on generated traffic, printed for a person to compare
 * across changes; no timing is asserted, since the machine running the build decides the numbers.
 * Off by default: {@code mvn -B -o test -pl job -Dtest=EventParserThroughputTest
 * -Dunread.bench.parser=true}.
 */
@EnabledIfSystemProperty(named = "unread.bench.parser", matches = "true")
class EventParserThroughputTest {

    private static final int RECORDS = 200_000;

    /**
     * Passes over the records before measuring, for as many rounds and as long as both say: on a
     * busy machine the JIT's compiler threads get little CPU, and a count alone ends the warm-up
     * before the parser's hot path is compiled.
     */
    private static final int WARM_UP_ROUNDS = 15;

    private static final long WARM_UP_NANOS = 20_000_000_000L;

    private static final int MEASURED_ROUNDS = 15;

    @Test
    void generatedTrafficParsesAtTheSpeedItPrints() {
        TrafficGenerator generator = TrafficGenerator.synthetic(Workload.defaults(), 1, 1000);
        byte[][] values = new byte[RECORDS][];
        boolean[] messages = new boolean[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            values[i] = record.value();
            messages[i] = record.topic() == TrafficRecord.Topic.MESSAGES;
        }
        EventParser parser = new EventParser();
        long refused = 0;
        long warmUpStart = System.nanoTime();
        for (int round = 0;
                round < WARM_UP_ROUNDS || System.nanoTime() - warmUpStart < WARM_UP_NANOS;
                round++) {
            refused = parseAll(parser, values, messages);
        }
        double[] nanosPerRecord = new double[MEASURED_ROUNDS];
        for (int round = 0; round < MEASURED_ROUNDS; round++) {
            long start = System.nanoTime();
            parseAll(parser, values, messages);
            nanosPerRecord[round] = (double) (System.nanoTime() - start) / RECORDS;
        }
        Arrays.sort(nanosPerRecord);
        System.out.printf(
                "EventParser: %d records (%d refused), ns/record min %.1f median %.1f max %.1f%n",
                RECORDS,
                refused,
                nanosPerRecord[0],
                nanosPerRecord[MEASURED_ROUNDS / 2],
                nanosPerRecord[MEASURED_ROUNDS - 1]);
        assertThat(refused)
                .as("the generator's malformed share")
                .isEqualTo(generator.malformedRecords());
    }

    /** The refused count; the parsed events feed it too, so that the JIT cannot drop the work. */
    private static long parseAll(EventParser parser, byte[][] values, boolean[] messages) {
        long refused = 0;
        long sink = 0;
        for (int i = 0; i < values.length; i++) {
            try {
                ChatEvent e =
                        messages[i] ? parser.parseMessage(values[i]) : parser.parseRead(values[i]);
                sink += e.time;
            } catch (InvalidRecordException e) {
                refused++;
            }
        }
        return sink == Long.MIN_VALUE ? -1 : refused;
    }
}
