package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.bench.NaiveWorker.Mode;
import dev.unread.bench.NaiveWorker.Result;
import org.junit.jupiter.api.Test;

/** The arithmetic of {@link NaiveWorker}'s report and its key pattern, without Kafka or Redis. */
class NaiveWorkerTest {

    @Test
    void ratesAreMessagesPerSecondAndCommandsPerMessage() {
        Result result = new Result(Mode.PER_EVENT, 1000, 20, 1500, 500_000_000L, 3_000_000L);

        assertThat(result.messagesPerSecond()).isEqualTo(2000.0);
        assertThat(result.commandsPerMessage()).isEqualTo(1.5);
        assertThat(result.redisCpuMicrosPerMessage()).isEqualTo(3.0);
    }

    @Test
    void aRunWithoutMessagesOrTimeReportsZeroRatherThanInfinityOrNaN() {
        assertThat(new Result(Mode.PIPELINED, 0, 3, 3, 1000, 10).commandsPerMessage()).isZero();
        assertThat(new Result(Mode.PIPELINED, 0, 3, 3, 1000, 10).redisCpuMicrosPerMessage())
                .isZero();
        assertThat(new Result(Mode.PIPELINED, 5, 0, 5, 0, 0).messagesPerSecond()).isZero();
    }

    @Test
    void globCharactersInAPrefixMatchOnlyThemselves() {
        assertThat(RedisKeys.glob("bench:")).isEqualTo("bench:");
        assertThat(RedisKeys.glob("a*b?c[d]e\\f:")).isEqualTo("a\\*b\\?c\\[d\\]e\\\\f:");
    }
}
