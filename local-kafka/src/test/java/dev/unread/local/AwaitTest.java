package dev.unread.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

    @Test
    void returnsTheFirstAnswer() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        String answer =
                Await.until(
                        "the third question",
                        Duration.ofMinutes(1),
                        () -> asked.incrementAndGet() == 3 ? "yes" : null);
        assertThat(answer).isEqualTo("yes");
        assertThat(asked).hasValue(3);
    }

    @Test
    void timesOutNamingWhatItWaitedFor() {
        assertThatThrownBy(() -> Await.until("nothing", Duration.ofMillis(50), () -> null))
                .isExactlyInstanceOf(Await.TimedOut.class)
                .hasMessage("not within PT0.05S: nothing");
    }

    @Test
    void passesOnWhatTheProbeThrows() {
        assertThatThrownBy(
                        () ->
                                Await.until(
                                        "a broken probe",
                                        Duration.ofMinutes(1),
                                        () -> {
                                            throw new IOException("refused");
                                        }))
                .isExactlyInstanceOf(IOException.class)
                .hasMessage("refused");
    }
}
