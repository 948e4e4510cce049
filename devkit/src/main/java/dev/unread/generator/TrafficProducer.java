package dev.unread.generator;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link TrafficGenerator}'s records to the three input topics: at a steady rate on a
 * thread of its own ({@link #start}, the local stack), or a number of them as fast as the broker
 * takes them ({@link #publish}, for filling topics before a benchmark).
 */
public final class TrafficProducer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TrafficProducer.class);

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    /** Between two batches of a rate-limited run the thread sleeps at least this long. */
    private static final long MIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final KafkaProducer<byte[], byte[]> producer;
    private final String messagesTopic;
    private final String readsTopic;
    private final String conversationsTopic;
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder malformedAcknowledged = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

    /** One callback per outcome, not one per record. */
    private final Callback validSent = (metadata, e) -> sent(e, true);

    private final Callback malformedSent = (metadata, e) -> sent(e, false);
    private volatile boolean running;
    private Thread thread;

    public TrafficProducer(
            String bootstrapServers,
            String messagesTopic,
            String readsTopic,
            String conversationsTopic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        // Records of a few hundred bytes: batching them is what makes millions cheap.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        this.producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        this.messagesTopic = messagesTopic;
        this.readsTopic = readsTopic;
        this.conversationsTopic = conversationsTopic;
    }

    /** Publishes the next {@code count} records and returns once the broker has them all. */
    public void publish(TrafficGenerator generator, long count) {
        for (long i = 0; i < count; i++) {
            send(generator.next());
        }
        producer.flush();
    }

    /**
     * Publishes {@code recordsPerSecond} records a second, evenly, on a daemon thread until {@link
     * #close()}. A run that falls more than a second behind (a stalled broker) skips what it missed
     * rather than bursting to catch up.
     */
    public synchronized void start(TrafficGenerator generator, double recordsPerSecond) {
        if (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond)) {
            throw new IllegalArgumentException(
                    "recordsPerSecond must be > 0, was " + recordsPerSecond);
        }
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        running = true;
        thread = new Thread(() -> run(generator, recordsPerSecond), "unread-traffic");
        thread.setDaemon(true);
        thread.start();
    }

    /** Returns once the broker has every record sent so far. */
    public void flush() {
        producer.flush();
    }

    /** Records the broker has acknowledged, malformed ones included. */
    public long acknowledged() {
        return acknowledged.sum();
    }

    /** Of {@link #acknowledged()}, the malformed records. */
    public long malformedAcknowledged() {
        return malformedAcknowledged.sum();
    }

    /** Records the producer gave up on. */
    public long failed() {
        return failed.sum();
    }

    /** Why the first record that failed did, so that a caller's error can say it; null if none. */
    public Exception firstFailure() {
        return firstFailure.get();
    }

    /** Stops the thread, if any, and sends what is buffered. */
    @Override
    public void close() throws InterruptedException {
        Thread running;
        synchronized (this) {
            this.running = false;
            running = thread;
        }
        if (running != null) {
            running.join(CLOSE_TIMEOUT.toMillis());
        }
        producer.close(CLOSE_TIMEOUT);
    }

    private void run(TrafficGenerator generator, double recordsPerSecond) {
        double nanosPerRecord = 1e9 / recordsPerSecond;
        long maxBehind = Math.max(1, (long) recordsPerSecond);
        long start = System.nanoTime();
        long sent = 0;
        try {
            while (running) {
                long due = (long) ((System.nanoTime() - start) / nanosPerRecord) + 1;
                if (due - sent > maxBehind) {
                    sent = due - maxBehind;
                }
                while (sent < due && running) {
                    send(generator.next());
                    sent++;
                }
                long next = start + (long) (sent * nanosPerRecord);
                LockSupport.parkNanos(Math.max(next - System.nanoTime(), MIN_PAUSE_NANOS));
            }
        } catch (RuntimeException e) {
            // A closed producer ends the run; anything else is worth a line before it does.
            if (running) {
                LOG.error("Traffic generator stopped", e);
            }
        }
    }

    /** Sends one record to its topic, asynchronously; {@link #flush()} waits for what was sent. */
    public void send(TrafficRecord record) {
        String topic =
                switch (record.topic()) {
                    case MESSAGES -> messagesTopic;
                    case READS -> readsTopic;
                    case CONVERSATIONS -> conversationsTopic;
                };
        producer.send(
                new ProducerRecord<>(topic, record.key(), record.value()),
                record.valid() ? validSent : malformedSent);
    }

    private void sent(Exception e, boolean valid) {
        if (e == null) {
            acknowledged.increment();
            if (!valid) {
                malformedAcknowledged.increment();
            }
            return;
        }
        failed.increment();
        if (firstFailure.compareAndSet(null, e)) {
            LOG.warn("Publishing generated traffic failed (logged once)", e);
        }
    }
}
