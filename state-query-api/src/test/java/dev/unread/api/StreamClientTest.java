package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a stream runs when it ends, which frees its slot in {@link LiveStreams}. */
class StreamClientTest {

    @Test
    void aStreamThatEndedBeforeItsEndActionWasSetRunsItAtOnceAndOnce() {
        StreamClient client = client();
        AtomicInteger ended = new AtomicInteger();

        client.close(true);
        client.onClosed(ended::incrementAndGet);
        client.close(true);
        client.cutOff();

        assertThat(ended).hasValue(1);
    }

    @Test
    void aStreamRunsItsEndActionOnceHoweverOftenItEnds() {
        StreamClient client = client();
        AtomicInteger ended = new AtomicInteger();

        client.onClosed(ended::incrementAndGet);
        client.cutOff();
        client.close(true);

        assertThat(ended).hasValue(1);
    }

    private static StreamClient client() {
        return new StreamClient(1, new ApiMetrics(), 4, Runnable::run) {
            @Override
            boolean write(String text) {
                return true;
            }

            @Override
            boolean heartbeat() {
                return true;
            }

            @Override
            void disconnect(boolean hard) {}
        };
    }
}
