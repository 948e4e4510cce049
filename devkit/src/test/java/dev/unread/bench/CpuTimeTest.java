package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The machine's time as the bench reads it from /proc/stat, for the stolen share it reports, and
 * the JIT's compiling, for the share of a run's CPU it reports.
 */
class CpuTimeTest {

    @Test
    void theMachinesTimeAdvancesAndItsStolenShareIsAShare() throws Exception {
        CpuTime.Machine before = CpuTime.Machine.now();
        CpuTime.Machine after = before;
        long deadline = System.nanoTime() + 5_000_000_000L;
        // /proc/stat counts in ticks of 10 ms: spin until one passes.
        while (after.ticks() == before.ticks() && System.nanoTime() < deadline) {
            after = CpuTime.Machine.now();
        }

        assertThat(after.ticks()).isGreaterThan(before.ticks());
        assertThat(after.stolenTicks()).isBetween(before.stolenTicks(), after.ticks());
        assertThat(after.stolenSince(before)).isBetween(0.0, 1.0);
        assertThat(before.stolenSince(before)).isZero();
    }

    @Test
    void theJitsCompilingIsCountedAndOnlyRises() {
        CpuTime.Sample before = CpuTime.Sample.now();
        long sum = 0;
        // Enough calls that the JIT compiles this method's loop on any HotSpot.
        for (int i = 0; i < 2_000_000; i++) {
            sum += Long.toString(i).hashCode();
        }
        CpuTime.Sample after = CpuTime.Sample.now();

        assertThat(sum).isNotZero();
        // HotSpot tells, and the bench runs on HotSpot: a JVM that did not would report no JIT.
        assertThat(before.compilingMillis()).isPositive();
        assertThat(after.compilingMillis()).isGreaterThanOrEqualTo(before.compilingMillis());
        assertThat(after.processNanos()).isGreaterThan(before.processNanos());
    }
}
