package dev.unread.bench;

import static dev.unread.bench.BenchReport.line;
import static dev.unread.bench.BenchReport.met;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The sparse regime (issue 46): the full traffic over as many receivers as a run has records, so
 * that a user gets about one message per run and nothing coalesces in a flush, as at production
 * scale, where the default workload's receivers each get several messages a second. Measured from
 * warm state, as a production job meets users it already knows: a warm-up run of the job over the
 * first records stops with a savepoint (its counts in Redis), and the measured run restores from it
 * and takes in as many records again, to the same users, under the same Redis keys.
 */
final class SparseBench {

    static final String RUN = "sparse";

    /**
     * @param warmUp the records the warm-up run took in, unmeasured
     * @param job the measured run, from the warm-up's savepoint
     */
    record Result(Traffic warmUp, JobFigures job) {}

    private SparseBench() {}

    static Result run(Bench bench, EmbeddedKafka kafka, Path dataDir) throws Exception {
        Workload workload = bench.options().sparseWorkload();
        long records = bench.options().sparseRecords();
        UnreadConfig config = bench.config(kafka, RUN);
        TrafficGenerator generator = Bench.generator(workload);
        bench.say(
                "publishing %,d records of sparse traffic over %,d receivers, for the warm-up",
                records, workload.receivers());
        Traffic warmUp = Traffic.publish(kafka, config, RUN + ", warm-up", generator, records);
        bench.say("the job on the sparse warm-up records, not measured, to a savepoint");
        String savepoint =
                bench.runToSavepoint(
                        config, null, warmUp.counterEvents(), dataDir.resolve("warm-up"));
        bench.say("publishing %,d more records of sparse traffic to the same users", records);
        Traffic measured = Traffic.publish(kafka, config, RUN, generator, records);
        JobFigures job =
                bench.runJob(
                        config,
                        measured,
                        measured.counterEvents(),
                        dataDir.resolve("measured"),
                        savepoint);
        return new Result(warmUp, job);
    }

    /** The sparse run beside the full one: the same figures, and their ratios. */
    static void section(StringBuilder md, Result sparse, JobFigures full, Rivals.Result rivals) {
        JobFigures job = sparse.job();
        double ceiling = rivals.statefulPassThrough().messagesPerCpuSecond();
        line(
                md,
                "## The sparse regime: %,d receivers, %,d records from warm state",
                job.traffic().workload().receivers(),
                job.traffic().records());
        line(md, "");
        line(
                md,
                "The full traffic over %,d receivers: a receiver gets about %.1f messages in the"
                        + " measured run, so a flush writes a user's counts once per message,"
                        + " as at production scale. The measured run restored the savepoint of a"
                        + " warm-up run over the %,d records before it, to the same users (Redis"
                        + " holding their counts).",
                job.traffic().workload().receivers(),
                (double) job.traffic().messages() / job.traffic().workload().receivers(),
                sparse.warmUp().records());
        line(md, "");
        line(md, "| | full | sparse | sparse / full |");
        line(md, "|---|--:|--:|--:|");
        row(md, "messages/s", "%,.0f", full.messagesPerSecond(), job.messagesPerSecond());
        row(
                md,
                "messages per CPU-second",
                "%,.0f",
                full.messagesPerCpuSecond(),
                job.messagesPerCpuSecond());
        row(
                md,
                "per CPU-second / the stateful pass-through's",
                "%.2f×",
                full.messagesPerCpuSecond() / ceiling,
                job.messagesPerCpuSecond() / ceiling);
        row(
                md,
                "Redis commands per message",
                "%.4f",
                full.commandsPerMessage(),
                job.commandsPerMessage());
        row(
                md,
                "commands that changed nothing, per message",
                "%.4f",
                full.unchangedPerMessage(),
                job.unchangedPerMessage());
        row(
                md,
                "Redis CPU µs per message",
                "%.3f",
                full.redisCpuMicrosPerMessage(),
                job.redisCpuMicrosPerMessage());
        row(
                md,
                "savepoint bytes per entry, compressed",
                "%.1f",
                full.bytesPerEntry(),
                job.bytesPerEntry());
        row(
                md,
                "savepoint bytes per entry, raw",
                "%.1f",
                full.rawBytesPerEntry(),
                job.rawBytesPerEntry());
        line(
                md,
                "| users / senders / conversations held | %,d / %,d / %,d | %,d / %,d / %,d | |",
                full.state().users(),
                full.state().senders(),
                full.state().conversations(),
                job.state().users(),
                job.state().senders(),
                job.state().conversations());
        line(md, "");
        line(
                md,
                "Sparse commands per message by command (server-wide): %s.",
                BenchReport.perMessage(job.callsByCommand(), job.traffic().messages()));
        line(md, "");
    }

    /** Issue 46's goals for the sparse regime. */
    static void targets(StringBuilder md, Result sparse, Rivals.Result rivals) {
        JobFigures job = sparse.job();
        double ratio =
                job.messagesPerCpuSecond() / rivals.statefulPassThrough().messagesPerCpuSecond();
        line(
                md,
                "| ≤ 1.0 Redis commands per message (sparse, no user live) | %.4f | %s |",
                job.commandsPerMessage(),
                met(job.commandsPerMessage() <= 1.0));
        line(
                md,
                "| ≤ 0.01 commands per message that change nothing (sparse) | %.4f | %s |",
                job.unchangedPerMessage(),
                met(job.unchangedPerMessage() <= 0.01));
        line(
                md,
                "| ≥ 0.2× the stateful pass-through per CPU-second (sparse) | %.2f× | %s |",
                ratio,
                met(ratio >= 0.2));
        line(
                md,
                "| ≤ 60 savepoint bytes per state entry, compressed (sparse; raw %.1f) | %.1f |"
                        + " %s |",
                job.rawBytesPerEntry(),
                job.bytesPerEntry(),
                met(job.bytesPerEntry() <= 60));
    }

    private static void row(
            StringBuilder md, String figure, String format, double full, double sparse) {
        String ratio = full == 0 ? "–" : String.format(Locale.ROOT, "%.2f", sparse / full);
        line(md, "| %s | " + format + " | " + format + " | %s |", figure, full, sparse, ratio);
    }
}
