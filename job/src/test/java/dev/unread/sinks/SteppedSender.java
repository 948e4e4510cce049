package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A Redis writer's sender that the test steps: after {@link #holdNext}, the next send handed over
 * waits on the sender's thread, not begun, until {@link #release}; every other send runs as soon as
 * it is handed over. The sends run on a thread of their own, as the writer's do, while the test's
 * thread plays the task's, so a test sets exactly where the two threads meet.
 */
final class SteppedSender extends AbstractExecutorService {
    private static final long WAIT_SECONDS = 30;

    private final ExecutorService thread = FlushSender.newSender();

    /** Set by {@link #holdNext} until a send takes it; touched by the test's thread alone. */
    private Step next;

    private Step held;

    private record Step(CountDownLatch handedOver, CountDownLatch go, CountDownLatch done) {
        Step() {
            this(new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1));
        }
    }

    /** The next send handed over waits for {@link #release}. */
    void holdNext() {
        next = new Step();
    }

    /** Returns once the held send is on the sender's thread, waiting to begin. */
    void awaitHandedOver() throws InterruptedException {
        assertThat(next).as("holdNext before").isNull();
        assertThat(held.handedOver().await(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("a send handed over")
                .isTrue();
    }

    /** Lets the held send run, and returns once it ran. */
    void release() throws InterruptedException {
        held.go().countDown();
        assertThat(held.done().await(WAIT_SECONDS, TimeUnit.SECONDS)).as("the send ran").isTrue();
    }

    @Override
    public void execute(Runnable send) {
        if (next == null) {
            thread.execute(send);
            return;
        }
        Step step = next;
        next = null;
        held = step;
        thread.execute(
                () -> {
                    step.handedOver().countDown();
                    try {
                        step.go().await();
                        send.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        step.done().countDown();
                    }
                });
    }

    @Override
    public void shutdown() {
        thread.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return thread.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return thread.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return thread.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return thread.awaitTermination(timeout, unit);
    }
}
