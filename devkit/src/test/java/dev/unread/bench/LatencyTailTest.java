package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.minicluster.FlinkRest.CheckpointTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyTailTest {

    @Test
    void liveProbesInFlightAtATriggerAreToldFromTheRest() {
        // Probe p goes to live user p % PROBE_USERS; the first 25 users are live.
        int probes = Latency.PROBE_USERS * 2;
        double[] latencies = new double[probes];
        long[] sentAtMillis = new long[probes];
        for (int p = 0; p < probes; p++) {
            sentAtMillis[p] = 10_000 + p * 10L;
            latencies[p] = 50;
        }
        // Live probe 3 is slow and in flight at the trigger at 10,100; live probe 20 is slow
        // with no checkpoint on its way; probe 30 (nobody watches) is slow and not counted.
        latencies[3] = 900;
        latencies[20] = 700;
        latencies[30] = 2000;
        latencies[4] = Double.NaN;
        List<CheckpointTime> history =
                List.of(new CheckpointTime(9_000, 40), new CheckpointTime(10_100, 35));

        double[] ackMillis = new double[probes];
        Arrays.fill(ackMillis, 2);
        ackMillis[0] = 40;

        Latency.Tail tail = Latency.tail(latencies, ackMillis, sentAtMillis, 0, history);

        // The trigger before the measured part is no checkpoint of it.
        assertThat(tail.checkpoints()).containsExactly(new CheckpointTime(10_100, 35));
        assertThat(tail.slow()).isEqualTo(2);
        assertThat(tail.slowMetCheckpoint()).isEqualTo(1);
        // In flight at 10,100: probe 3 (sent at 10,030, 900 ms) and probes 5 to 10 (sent from
        // 10,050 to 10,100, 50 ms each); probe 4 never landed and is no probe of either side's
        // percentiles.
        assertThat(tail.metCheckpoint().landed()).isEqualTo(7);
        assertThat(tail.metCheckpoint().maxMillis()).isEqualTo(900);
        assertThat(tail.rest().maxMillis()).isEqualTo(700);
        assertThat(tail.metCheckpoint().probes() + tail.rest().probes())
                .isEqualTo(2 * Latency.LIVE_PROBE_USERS);
        // Of the live probes alone: probe 0's 40 ms is the slowest acknowledgement.
        assertThat(tail.toKafka().landed()).isEqualTo(2 * Latency.LIVE_PROBE_USERS);
        assertThat(tail.toKafka().maxMillis()).isEqualTo(40);
    }
}
