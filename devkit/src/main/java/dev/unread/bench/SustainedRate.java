package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The rate the running job sustains with the bench's producer running beside it (issue 35): "half
 * the burst rate" measured records published beforehand, a rate the job never sustained on the same
 * machine with the producer taking its share of the cores.
 *
 * <p>Starting at the burst rate, each try publishes at a rate for the window and compares the
 * counting operator's backlog (the records acknowledged, in counter events, minus the events it
 * took in) at the window's middle and at its end: a rate is sustained when the backlog grew by less
 * than a second of its traffic over the second half and ended under a second of it, and the
 * producer itself kept within a tenth of the rate. A backlog that stopped growing but stood seconds
 * high is no sustained rate: latency measured at 0.8 times one such rate met the job still seconds
 * behind and falling further (2 s at the median). Otherwise the next try is 15% lower. Each try
 * ends once the backlog drained, the last too, so that latency, measured then at {@link
 * #LATENCY_SHARE} of the rate found, starts from a job that has caught up.
 */
final class SustainedRate {

    /** Of the sustained rate, the rate latency is measured at. */
    static final double LATENCY_SHARE = 0.8;

    /** Of the sustained rate, the rate latency is measured at first, in the same job (issue 46). */
    static final double LIGHTER_SHARE = 0.7;

    private static final double STEP = 0.85;
    private static final int MAX_TRIES = 10;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

    private SustainedRate() {}

    /**
     * @param counterEventsPerRecord what the counting operator takes in per record published (the
     *     copies of messages for their senders make it more than one)
     * @return records per second; the last rate tried when none was sustained
     */
    static double find(
            JobRun job,
            UnreadConfig config,
            TrafficGenerator traffic,
            double burstRate,
            double counterEventsPerRecord,
            Duration window,
            Consumer<String> say)
            throws Exception {
        double rate = burstRate;
        for (int attempt = 1; ; attempt++) {
            long baseline = job.counterRecordsIn();
            double midBacklog;
            double endBacklog;
            long published;
            try (TrafficProducer producer =
                    new TrafficProducer(
                            config.kafkaBootstrap,
                            config.messagesTopic,
                            config.readsTopic,
                            config.conversationsTopic)) {
                producer.start(traffic, rate);
                Thread.sleep(window.toMillis() / 2);
                midBacklog = backlog(job, producer, baseline, counterEventsPerRecord);
                Thread.sleep(window.toMillis() - window.toMillis() / 2);
                endBacklog = backlog(job, producer, baseline, counterEventsPerRecord);
                published = producer.acknowledged();
            }
            double grewBy = (endBacklog - midBacklog) / (rate * counterEventsPerRecord);
            double behind = endBacklog / (rate * counterEventsPerRecord);
            boolean producerKept = published >= 0.9 * rate * window.toMillis() / 1000;
            boolean sustained = grewBy < 1 && behind < 1 && producerKept;
            say.accept(
                    String.format(
                            "sustained rate: %,.0f records/s for %d s: backlog grew by %.1f s of"
                                    + " traffic to %.1f s, %,d records published: %s",
                            rate,
                            window.toSeconds(),
                            grewBy,
                            behind,
                            published,
                            sustained ? "sustained" : "not sustained"));
            // Drained after the last try too: latency measured on a job still behind a standing
            // backlog measured the backlog (a sustained try may end seconds behind, as long as
            // the backlog stopped growing).
            drain(job, baseline + (long) (published * counterEventsPerRecord));
            if (sustained || attempt == MAX_TRIES) {
                return rate;
            }
            rate *= STEP;
        }
    }

    private static double backlog(
            JobRun job, TrafficProducer producer, long baseline, double counterEventsPerRecord)
            throws Exception {
        return producer.acknowledged() * counterEventsPerRecord
                - (job.counterRecordsIn() - baseline);
    }

    /** Waits until the job took in what was published, so the next try starts without backlog. */
    private static void drain(JobRun job, long events) throws Exception {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        // The events per record are an average: within a thousandth is drained.
        while (job.counterRecordsIn() < events * 0.999 && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
        }
    }
}
