package dev.unread.cli;

import dev.unread.bench.Bench;
import dev.unread.bench.BenchOptions;
import dev.unread.bench.BenchReport;
import dev.unread.bench.EventParserBenchmark;
import dev.unread.bench.GroupBench;
import dev.unread.bench.LiveLoad;
import dev.unread.bench.NaiveWorker;
import dev.unread.bench.SeqSetPatterns;
import dev.unread.config.UnreadConfig;
import dev.unread.generator.Workload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code unread bench}: flags in, {@link Bench} run, the markdown report printed and written to a
 * file. The job settings are flags too, as for {@code local}, with defaults of the bench's own.
 */
@Command(
        name = BenchCommand.NAME,
        description = {
            "The job against a naive SADD worker and SQL, on the same records.",
            "",
            "Measures the job against the designs it replaces, on the same generated records:"
                    + " publishes them to an in-process Kafka broker, runs the job (MiniCluster,"
                    + " RocksDB, checkpoints) on badge-only and on full traffic, on full traffic"
                    + " over a million users from warm state (the sparse regime), the naive SADD"
                    + " worker three ways, end-to-end latency at a fixed rate, and the SQL badge"
                    + " query at the given table sizes against a Redis GET; group traffic"
                    + " published once against the producer's fan-out, the job on a Redis Cluster"
                    + " beside one node, SSE streams on one API process, and a channel of 100,000"
                    + " members beside one of 1,000 and a group of 1,000. Prints a markdown"
                    + " report and writes it to --out. Redis keys under the prefix (which must not"
                    + " be empty) are deleted before and after; takes some minutes.",
            "",
            "unread bench parser: the event parser alone, on JMH.",
            "unread bench seqs: the unread-seq sets alone, per pattern of seqs."
        },
        descriptionHeading = "%n",
        optionListHeading = "%nFlags:%n",
        abbreviateSynopsis = true,
        sortOptions = false,
        defaultValueProvider = BenchCommand.Defaults.class,
        subcommands = {BenchCommand.Parser.class, BenchCommand.Seqs.class},
        modelTransformer = CommandFlags.class)
public final class BenchCommand implements Callable<Integer> {

    public static final String NAME = "bench";

    /**
     * Job settings whose default differs for the bench: its Redis keys are deleted before and
     * after, so they get a prefix of their own; its cursors go to a database of its own; and
     * checkpoints come often enough that a run of some seconds has several.
     */
    private static final Map<String, String> JOB_DEFAULTS =
            Map.of(
                    "redis-key-prefix", "bench:",
                    "jdbc-url",
                            "jdbc:mysql://127.0.0.1:3306/unread_bench?createDatabaseIfNotExist=true",
                    "parallelism", "2",
                    "checkpoint-interval-ms", "5000");

    /** The defaults of the workload's flags are the generator's; the job's as above. */
    static final class Defaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec arg) {
            if (!(arg instanceof OptionSpec option)) {
                return null;
            }
            String name = option.longestName().substring(2);
            Workload w = Workload.defaults();
            return switch (name) {
                case "receivers" -> String.valueOf(w.receivers());
                case "friends" -> String.valueOf(w.friends());
                case "skew" -> String.valueOf(w.receiverSkew());
                case "redundancy" -> String.valueOf(w.redundancy());
                case "open-rate" -> String.valueOf(w.inboxOpenRate());
                case "read-rate" -> String.valueOf(w.conversationReadRate());
                case "conversation-share" -> String.valueOf(w.conversationShare());
                case "seed" -> String.valueOf(w.seed());
                default -> JOB_DEFAULTS.get(name);
            };
        }
    }

    @Spec private CommandSpec spec;

    @Mixin private ChannelFlags channels;

    @Option(
            names = "--records",
            paramLabel = "N",
            defaultValue = "3000000",
            description = "records per workload (default ${DEFAULT-VALUE})")
    long records;

    @Option(
            names = "--receivers",
            paramLabel = "N",
            description = "users who receive messages (default ${DEFAULT-VALUE})")
    int receivers;

    @Option(
            names = "--friends",
            paramLabel = "N",
            description = "senders per receiver (default ${DEFAULT-VALUE})")
    int friends;

    @Option(
            names = "--skew",
            paramLabel = "X",
            description = "Zipf exponent over receivers (default ${DEFAULT-VALUE})")
    double skew;

    @Option(
            names = "--redundancy",
            paramLabel = "X",
            description =
                    "share of messages from a sender already counted"
                            + " (default ${DEFAULT-VALUE})")
    double redundancy;

    @Option(
            names = "--open-rate",
            paramLabel = "X",
            description = "inbox opens per message record (default ${DEFAULT-VALUE})")
    double openRate;

    @Option(
            names = "--read-rate",
            paramLabel = "X",
            description =
                    "conversation reads per message record, full traffic"
                            + " (default ${DEFAULT-VALUE})")
    double readRate;

    @Option(
            names = "--conversation-share",
            paramLabel = "X",
            description =
                    "share of messages in conversations, full traffic"
                            + " (default ${DEFAULT-VALUE})")
    double conversationShare;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "the generator's seed (default ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--workers",
            paramLabel = "MODES",
            defaultValue = "per-event,pipelined,check-before-write",
            description =
                    "naive worker runs, of per-event, pipelined and check-before-write"
                            + " (default ${DEFAULT-VALUE}; none: skip)")
    String workers;

    @Option(
            names = "--sql-rows",
            paramLabel = "N,N",
            split = ",",
            defaultValue = "1000000,10000000",
            description = "table sizes for the SQL baseline (default ${DEFAULT-VALUE}; 0: skip)")
    List<Long> sqlRows;

    @Option(
            names = "--sql-queries",
            paramLabel = "N",
            defaultValue = "2000",
            description = "badge queries timed per size and index (default ${DEFAULT-VALUE})")
    int sqlQueries;

    @Option(
            names = "--latency-seconds",
            paramLabel = "N",
            defaultValue = "20",
            description =
                    "length of the latency run's measured part (default ${DEFAULT-VALUE}; 0:"
                            + " skip)")
    long latencySeconds;

    @Option(
            names = "--latency-warm-up-seconds",
            paramLabel = "N",
            defaultValue = "10",
            description =
                    "how long the latency run goes before its measured part; its probes are"
                            + " reported apart (default ${DEFAULT-VALUE})")
    long latencyWarmUpSeconds;

    @Option(
            names = "--warm-up-events",
            paramLabel = "N",
            defaultValue = "1000000",
            description =
                    "events of the full records the job takes in, unmeasured, before the"
                            + " measured runs (default ${DEFAULT-VALUE}; 0: skip)")
    long warmUpEvents;

    @Option(
            names = "--latency-rate",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "its background records/s (default ${DEFAULT-VALUE}: 0.8 times the rate the"
                            + " job sustains, see --sustain-seconds; with that 0 too, half the"
                            + " measured rate)")
    long latencyRate;

    @Option(
            names = "--probes",
            paramLabel = "N",
            defaultValue = "200",
            description = "latency probes per second (default ${DEFAULT-VALUE})")
    long probes;

    @Option(
            names = "--group-records",
            paramLabel = "N",
            defaultValue = "50000",
            description =
                    "records of group traffic, published once and fanned out by the producer"
                            + " (default ${DEFAULT-VALUE}; 0: skip)")
    long groupRecords;

    @Option(
            names = "--group-reply-share",
            paramLabel = "SHARE",
            defaultValue = "0.3",
            description =
                    "share of the group messages that reply in a thread, in one more run of the"
                            + " same groups published once (default ${DEFAULT-VALUE}; 0: skip)")
    double groupReplyShare;

    @Option(
            names = "--groups",
            paramLabel = "N",
            defaultValue = "64",
            description = "groups of that traffic (default ${DEFAULT-VALUE})")
    int groups;

    @Option(
            names = "--group-max-size",
            paramLabel = "N",
            defaultValue = "2000",
            description =
                    "members of the largest group; sizes spread from 3 on a log scale"
                            + " (default ${DEFAULT-VALUE})")
    int groupMaxSize;

    @Option(
            names = "--redis-cluster",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "run the full records on a local Redis Cluster (six redis-server processes) too"
                            + " (default ${DEFAULT-VALUE})")
    boolean redisCluster;

    @Option(
            names = "--track-root-senders-run",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "run the full records once more with --track-root-senders, version 3's way for"
                            + " replies that do not name their root's sender, beside the full run"
                            + " (default ${DEFAULT-VALUE})")
    boolean trackRootSendersRun;

    @Option(
            names = "--sparse-receivers",
            paramLabel = "N",
            defaultValue = "1000000",
            description =
                    "receivers of the sparse regime: the full traffic over as many users as it has"
                            + " records, measured from the savepoint of a warm-up run over the"
                            + " same users (default ${DEFAULT-VALUE}; 0: skip)")
    int sparseReceivers;

    @Option(
            names = "--sparse-records",
            paramLabel = "N",
            defaultValue = "1000000",
            description =
                    "records of the sparse regime's warm-up, and as many again measured"
                            + " (default ${DEFAULT-VALUE})")
    long sparseRecords;

    @Option(
            names = "--live-streams",
            paramLabel = "N",
            defaultValue = "10000",
            description =
                    "SSE streams on one API process under the full traffic"
                            + " (default ${DEFAULT-VALUE}; 0: skip; fewer if open files run short)")
    int liveStreams;

    @Option(
            names = "--live-seconds",
            paramLabel = "N",
            defaultValue = "20",
            description =
                    "how long the traffic runs with the streams open (default ${DEFAULT-VALUE})")
    long liveSeconds;

    @Option(
            names = "--deleted-share",
            paramLabel = "F",
            defaultValue = "0.02",
            description =
                    "share of conversation messages deleted in one more run of the full records,"
                            + " for what deletions cost (default ${DEFAULT-VALUE}; 0: skip)")
    double deletedShare;

    @Option(
            names = "--sustain-seconds",
            paramLabel = "S",
            defaultValue = "60",
            description =
                    "how long each try publishes while the bench looks for the rate the job"
                            + " sustains with the producer running; latency is measured at 0.8"
                            + " times it (default ${DEFAULT-VALUE}; 0, or --latency-rate: no"
                            + " search)")
    long sustainSeconds;

    @Option(
            names = "--live-share",
            paramLabel = "F",
            defaultValue = "0.2",
            description =
                    "share of the receivers registered live in one more run of each workload, whose"
                            + " counts are written every flush interval, beside the runs with none"
                            + " (default ${DEFAULT-VALUE}; 0: skip)")
    double liveShare;

    @Option(
            names = "--all-read-share",
            paramLabel = "F",
            defaultValue = "0.1",
            description =
                    "share of the read steps sent as ALL_READ in one more run of the full records,"
                            + " for what mark-all-read costs (default ${DEFAULT-VALUE}; 0: skip)")
    double allReadShare;

    @Option(
            names = "--edit-share",
            paramLabel = "F",
            defaultValue = "0.02",
            description =
                    "share of conversation messages edited, and as many mentioning the whole"
                            + " channel, in one more run of the full records, for what edits and"
                            + " channel-wide mentions cost (default ${DEFAULT-VALUE}; 0: skip)")
    double editShare;

    @Option(
            names = "--profile",
            paramLabel = "DIR",
            description =
                    "write a JFR recording of each measured run of the job and of the"
                            + " pass-throughs to DIR/{run}.jfr (default: none)")
    Path profileDir;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            defaultValue = "bench-results.md",
            description = "where the report goes (default ${DEFAULT-VALUE})")
    Path out;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help")
    boolean help;

    /** The job's --kafka-bootstrap would be this bench's own broker; refused with the reason. */
    @Option(names = "--kafka-bootstrap", hidden = true)
    void kafkaBootstrap(String value) {
        throw new ParameterException(
                spec.commandLine(), "--kafka-bootstrap: the bench runs its own broker");
    }

    @Override
    public Integer call() throws Exception {
        Unread.Session session = Unread.session(spec);
        Map<String, String> flags = new HashMap<>(CommandFlags.given(spec));
        // A bench default applies unless a flag or the environment says otherwise.
        JOB_DEFAULTS.forEach(
                (name, value) -> {
                    if (!flags.containsKey(name)
                            && !session.env().containsKey(UnreadConfig.envName(name))) {
                        flags.put(name, value);
                    }
                });
        BenchOptions options;
        try {
            UnreadConfig config = UnreadConfig.from(flags, session.env());
            if (config.redisKeyPrefix.isEmpty()) {
                throw new IllegalArgumentException(
                        "--redis-key-prefix must not be empty: the bench deletes the keys under it");
            }
            options = options(config);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        BenchReport report;
        try (Bench bench = new Bench(options, flags, session.env(), session.err())) {
            report = bench.run();
        }
        String markdown = report.markdown(typed(spec));
        Files.writeString(out, markdown, StandardCharsets.UTF_8);
        session.out().print(markdown);
        session.err().println("bench: report written to " + out.toAbsolutePath());
        return Unread.OK;
    }

    /**
     * The command line as typed, for the report: the root command's name, then every argument as
     * given to it, this subcommand's name among them.
     */
    static String typed(CommandSpec spec) {
        return spec.root().name()
                + " "
                + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    }

    /** {@code unread bench parser}: {@link EventParserBenchmark} on JMH, as it declares. */
    @Command(
            name = "parser",
            description = {
                "Nanoseconds per record the event parser spends on generated traffic, measured by"
                        + " JMH in a JVM of its own (about a minute)."
            },
            descriptionHeading = "%n",
            optionListHeading = "%nFlags:%n")
    static final class Parser implements Callable<Integer> {

        @Spec private CommandSpec spec;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "this help")
        boolean help;

        @Override
        public Integer call() throws Exception {
            Options options =
                    new OptionsBuilder()
                            .include(Pattern.quote(EventParserBenchmark.class.getName()))
                            .build();
            new Runner(
                            options,
                            OutputFormatFactory.createFormatInstance(
                                    Unread.session(spec).out(), VerboseMode.NORMAL))
                    .run();
            return Unread.OK;
        }
    }

    /** {@code unread bench seqs}: {@link SeqSetPatterns}. */
    @Command(
            name = "seqs",
            description = {
                "Nanoseconds and bytes of state per message that one conversation's unread seqs"
                        + " cost under the patterns of issue 17 (consecutive, alternating, one"
                        + " huge seq, seqs spread one per chunk), and the set's bytes against a"
                        + " Roaring bitmap; in memory, without RocksDB (seconds)."
            },
            descriptionHeading = "%n",
            optionListHeading = "%nFlags:%n")
    static final class Seqs implements Callable<Integer> {

        @Spec private CommandSpec spec;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true,
                description = "this help")
        boolean help;

        @Option(
                names = "--messages",
                paramLabel = "N",
                description = "messages per pattern (default ${DEFAULT-VALUE})")
        int messages = SeqSetPatterns.DEFAULT_MESSAGES;

        @Override
        public Integer call() throws Exception {
            if (messages < 1) {
                throw new UsageException("--messages must be >= 1, was " + messages);
            }
            SeqSetPatterns.print(messages, Unread.session(spec).out());
            return Unread.OK;
        }
    }

    private BenchOptions options(UnreadConfig config) {
        Workload full =
                Workload.builder()
                        .receivers(receivers)
                        .friends(friends)
                        .receiverSkew(skew)
                        .redundancy(redundancy)
                        .inboxOpenRate(openRate)
                        .conversationReadRate(readRate)
                        .conversationShare(conversationShare)
                        .seed(seed)
                        .build();
        // What the seed worker counts: the sender badge alone.
        Workload badge = full.toBuilder().conversationShare(0).conversationReadRate(0).build();
        List<Long> tables = new ArrayList<>();
        for (long n : sqlRows) {
            atLeast("--sql-rows", n, 0);
            if (n > 0) {
                tables.add(n);
            }
        }
        List<NaiveWorker.Mode> modes = new ArrayList<>();
        for (String mode : workers.split(",")) {
            String name = mode.trim();
            if (name.isEmpty() || name.equals("none")) {
                continue;
            }
            try {
                modes.add(
                        NaiveWorker.Mode.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--workers: unknown mode "
                                + name
                                + " (per-event, pipelined, check-before-write or none)");
            }
        }
        return new BenchOptions(
                badge,
                full,
                atLeast("--records", records, 1),
                config.parallelism > 0 ? config.parallelism : 2,
                modes,
                tables,
                (int) atLeast("--sql-queries", sqlQueries, 1),
                Duration.ofSeconds(atLeast("--latency-seconds", latencySeconds, 0)),
                atLeast("--latency-rate", latencyRate, 0),
                atLeast("--probes", probes, 1),
                atLeast("--group-records", groupRecords, 0) == 0
                        ? null
                        : new GroupBench.Options(
                                full.toBuilder()
                                        .publishedGroupShare(1)
                                        .publishedGroups((int) atLeast("--groups", groups, 1))
                                        .publishedGroupMaxSize(groupMaxSize)
                                        .build(),
                                groupRecords,
                                groupReplyShare,
                                share("--edit-share", editShare)),
                atLeast("--live-streams", liveStreams, 0) == 0
                        ? null
                        : new LiveLoad.Options(
                                liveStreams,
                                Duration.ofSeconds(atLeast("--live-seconds", liveSeconds, 1))),
                redisCluster,
                atLeast("--warm-up-events", warmUpEvents, 0),
                Duration.ofSeconds(atLeast("--latency-warm-up-seconds", latencyWarmUpSeconds, 0)),
                deletedShare > 0 ? full.toBuilder().deletedShare(deletedShare).build() : null,
                share("--live-share", liveShare),
                Duration.ofSeconds(atLeast("--sustain-seconds", sustainSeconds, 0)),
                allReadShare > 0 ? full.toBuilder().allReadShare(allReadShare).build() : null,
                editShare > 0 ? full.toBuilder().editShare(editShare).build() : null,
                profileDir,
                trackRootSendersRun,
                atLeast("--sparse-receivers", sparseReceivers, 0) == 0
                        ? null
                        : full.toBuilder().receivers(sparseReceivers).build(),
                atLeast("--sparse-records", sparseRecords, 1),
                channels.options());
    }

    private static double share(String flag, double value) {
        if (value < 0 || value > 1) {
            throw new IllegalArgumentException(flag + " must be within 0..1, was " + value);
        }
        return value;
    }

    private static long atLeast(String flag, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(flag + " must be >= " + min + ", was " + value);
        }
        return value;
    }
}
