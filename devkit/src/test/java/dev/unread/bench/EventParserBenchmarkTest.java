package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

/** What {@link EventParserBenchmark} measures is the work the job does: no timing here. */
class EventParserBenchmarkTest {

    @Test
    void theParserRefusesExactlyTheGeneratorsMalformedRecords() {
        EventParserBenchmark benchmark = new EventParserBenchmark();
        benchmark.generate();
        Blackhole events =
                new Blackhole(
                        "Today's password is swordfish. I understand instantiating Blackholes"
                                + " directly is dangerous.");

        long refused = benchmark.parseAll(events);

        assertThat(benchmark.malformed).as("the generator's malformed share").isPositive();
        assertThat(refused).isEqualTo(benchmark.malformed);
        assertThat(benchmark.parseGeneratedTraffic(events)).isEqualTo(refused);
    }
}
