package dev.unread.cli;

import dev.unread.bench.Bench;
import dev.unread.bench.BenchReport;
import dev.unread.bench.NaiveWorker;
import dev.unread.config.UnreadConfig;
import dev.unread.generator.Workload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code unread bench}: flags in, {@link Bench} run, the markdown report printed and written to a
 * file. Every flag that is not the bench's own is a job setting, as for {@code local}.
 */
public final class BenchCommand {

    public static final String NAME = "bench";

    /** The bench's own flags with their defaults, in the order usage lists them. */
    private static final Map<String, String> OWN_FLAGS = new LinkedHashMap<>();

    /**
     * Job settings whose default differs for the bench: its Redis keys are deleted before and
     * after, so they get a prefix of their own; its cursors go to a database of its own; and
     * checkpoints come often enough that a run of some seconds has several.
     */
    private static final Map<String, String> JOB_DEFAULTS =
            Map.of(
                    "redis-key-prefix", "bench:",
                    "jdbc-url", "jdbc:mysql://127.0.0.1:3306/unread_bench?createDatabaseIfNotExist=true",
                    "parallelism", "2",
                    "checkpoint-interval-ms", "5000");

    static {
        Workload w = Workload.defaults();
        OWN_FLAGS.put("records", "3000000");
        OWN_FLAGS.put("receivers", String.valueOf(w.receivers()));
        OWN_FLAGS.put("friends", String.valueOf(w.friends()));
        OWN_FLAGS.put("skew", String.valueOf(w.receiverSkew()));
        OWN_FLAGS.put("redundancy", String.valueOf(w.redundancy()));
        OWN_FLAGS.put("open-rate", String.valueOf(w.inboxOpenRate()));
        OWN_FLAGS.put("read-rate", String.valueOf(w.conversationReadRate()));
        OWN_FLAGS.put("conversation-share", String.valueOf(w.conversationShare()));
        OWN_FLAGS.put("seed", String.valueOf(w.seed()));
        OWN_FLAGS.put("workers", "per-event,pipelined,check-before-write");
        OWN_FLAGS.put("sql-rows", "1000000,10000000");
        OWN_FLAGS.put("sql-queries", "2000");
        OWN_FLAGS.put("latency-seconds", "20");
        OWN_FLAGS.put("latency-rate", "0");
        OWN_FLAGS.put("probes", "200");
        OWN_FLAGS.put("out", "bench-results.md");
    }

    private BenchCommand() {}

    public static String usage() {
        return """
        Usage: unread bench [flags]

        Measures the job against the designs it replaces, on the same generated records:
        publishes them to an in-process Kafka broker, runs the job (MiniCluster, RocksDB,
        checkpoints) on badge-only and on full traffic, the naive SADD worker three ways,
        end-to-end latency at a fixed rate, and the SQL badge query at the given table
        sizes against a Redis GET. Prints a markdown report and writes it to --out. Redis
        keys under the prefix are deleted before and after; takes some minutes.

        Flags:
          --records N             records per workload (default 3000000)
          --receivers N           users who receive messages (default 10000)
          --friends N             senders per receiver (default 20)
          --skew X                Zipf exponent over receivers (default 1.0)
          --redundancy X          share of messages from a sender already counted (default 0.9)
          --open-rate X           inbox opens per message record (default 0.02)
          --read-rate X           conversation reads per message record, full traffic (default 0.05)
          --conversation-share X  share of messages in conversations, full traffic (default 0.8)
          --seed N                the generator's seed (default 1)
          --workers MODES         naive worker runs, of per-event, pipelined and
                                  check-before-write (default all three; none: skip)
          --sql-rows N,N          table sizes for the SQL baseline (default 1000000,10000000; 0: skip)
          --sql-queries N         badge queries timed per size and index (default 2000)
          --latency-seconds N     length of the latency run (default 20; 0: skip)
          --latency-rate N        its background records/s (default 0: a quarter of the measured rate)
          --probes N              latency probes per second (default 200)
          --out FILE              where the report goes (default bench-results.md)

        Job settings as for local; the bench's defaults: --redis-key-prefix bench: (must not be
        empty), --jdbc-url jdbc:mysql://127.0.0.1:3306/unread_bench?createDatabaseIfNotExist=true,
        --parallelism 2, --checkpoint-interval-ms 5000.
        """;
    }

    public static int run(List<String> args, Unread.Session session) throws Exception {
        CommandFlags parsed = CommandFlags.parse(args, OWN_FLAGS, "the bench runs its own broker");
        Map<String, String> own = parsed.own();
        Map<String, String> flags = parsed.settings();
        // A bench default applies unless a flag or the environment says otherwise.
        JOB_DEFAULTS.forEach(
                (name, value) -> {
                    if (!flags.containsKey(name)
                            && !session.env().containsKey(UnreadConfig.envName(name))) {
                        flags.put(name, value);
                    }
                });
        Bench.Options options;
        try {
            UnreadConfig config = UnreadConfig.from(flags, session.env());
            if (config.redisKeyPrefix.isEmpty()) {
                throw new IllegalArgumentException(
                        "--redis-key-prefix must not be empty: the bench deletes the keys under it");
            }
            options = options(own, config);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        BenchReport report = new Bench(options, flags, session.env(), session.err()).run();
        String markdown = report.markdown("unread bench " + String.join(" ", args));
        Path out = Path.of(own.get("out"));
        Files.writeString(out, markdown, StandardCharsets.UTF_8);
        session.out().print(markdown);
        session.err().println("bench: report written to " + out.toAbsolutePath());
        return Unread.OK;
    }

    private static Bench.Options options(Map<String, String> own, UnreadConfig config) {
        Workload full =
                Workload.builder()
                        .receivers((int) whole(own, "receivers"))
                        .friends((int) whole(own, "friends"))
                        .receiverSkew(decimal(own, "skew"))
                        .redundancy(decimal(own, "redundancy"))
                        .inboxOpenRate(decimal(own, "open-rate"))
                        .conversationReadRate(decimal(own, "read-rate"))
                        .conversationShare(decimal(own, "conversation-share"))
                        .seed(whole(own, "seed"))
                        .build();
        // What the seed worker counts: the sender badge alone.
        Workload badge = full.toBuilder().conversationShare(0).conversationReadRate(0).build();
        List<Long> sqlRows = new ArrayList<>();
        for (String rows : own.get("sql-rows").split(",")) {
            long n = parse("sql-rows", rows);
            if (n < 0) {
                throw new IllegalArgumentException("--sql-rows must be >= 0, was " + n);
            }
            if (n > 0) {
                sqlRows.add(n);
            }
        }
        List<NaiveWorker.Mode> workers = new ArrayList<>();
        for (String mode : own.get("workers").split(",")) {
            String name = mode.trim();
            if (name.isEmpty() || name.equals("none")) {
                continue;
            }
            try {
                workers.add(NaiveWorker.Mode.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--workers: unknown mode " + name
                                + " (per-event, pipelined, check-before-write or none)");
            }
        }
        long records = atLeast(own, "records", 1);
        long probes = atLeast(own, "probes", 1);
        return new Bench.Options(
                badge,
                full,
                records,
                config.parallelism > 0 ? config.parallelism : 2,
                workers,
                sqlRows,
                (int) atLeast(own, "sql-queries", 1),
                Duration.ofSeconds(atLeast(own, "latency-seconds", 0)),
                atLeast(own, "latency-rate", 0),
                probes);
    }

    private static long atLeast(Map<String, String> own, String name, long min) {
        long value = whole(own, name);
        if (value < min) {
            throw new IllegalArgumentException("--" + name + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    private static long whole(Map<String, String> own, String name) {
        return parse(name, own.get(name));
    }

    private static long parse(String name, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, was " + value);
        }
    }

    private static double decimal(Map<String, String> own, String name) {
        try {
            return Double.parseDouble(own.get(name).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, was " + own.get(name));
        }
    }
}
