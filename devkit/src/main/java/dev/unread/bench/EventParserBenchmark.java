package dev.unread.bench;

import dev.unread.events.ChatEvent;
import dev.unread.events.EventParser;
import dev.unread.events.InvalidRecordException;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Nanoseconds per record {@link EventParser} spends on generated traffic (malformed records
 * included, as the job sees them), on JMH: {@code bin/unread bench parser}. One operation is one
 * record; an invocation parses them all. Warm-up is long because on a busy machine the JIT's
 * compiler threads get little CPU.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(1)
public class EventParserBenchmark {

    /** Records per invocation: enough that the mix of record kinds is the workload's. */
    public static final int RECORDS = 200_000;

    private final EventParser parser = new EventParser();

    /** The records' values, and whether each is a message (else a read event). */
    byte[][] values;

    boolean[] messages;

    /** How many of the records the generator made malformed. */
    long malformed;

    @Setup
    public void generate() {
        TrafficGenerator generator = TrafficGenerator.synthetic(Workload.defaults(), 1, 1000);
        values = new byte[RECORDS][];
        messages = new boolean[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            values[i] = record.value();
            messages[i] = record.topic() == TrafficRecord.Topic.MESSAGES;
        }
        malformed = generator.malformedRecords();
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long parseGeneratedTraffic(Blackhole events) {
        return parseAll(events);
    }

    /** Parses every record into {@code events}; returns how many the parser refused. */
    long parseAll(Blackhole events) {
        long refused = 0;
        for (int i = 0; i < values.length; i++) {
            try {
                ChatEvent e =
                        messages[i] ? parser.parseMessage(values[i]) : parser.parseRead(values[i]);
                events.consume(e);
            } catch (InvalidRecordException e) {
                refused++;
            }
        }
        return refused;
    }
}
