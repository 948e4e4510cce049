package dev.unread.cli;

import dev.unread.api.ApiConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code unread local}: its flags; {@link LocalStack} runs what they ask for. */
@Command(
        name = LocalCommand.NAME,
        description = {
            "Kafka, Flink (web UI), the job, the API and generated traffic, in one process.",
            "",
            "Runs Apache Kafka's broker (with the job's topics), a Flink MiniCluster with RocksDB,"
                    + " checkpoints and its web UI, the job, the HTTP API and a generator of chat"
                    + " traffic, all in this process and on 127.0.0.1 only. Counts go to the Redis"
                    + " and MySQL the settings name; where nothing answers at those addresses on"
                    + " this machine, it starts a Redis and a MariaDB of its own there. Prints a"
                    + " line with the addresses once the job runs, then a progress line every 5"
                    + " seconds; Ctrl-C stops it all. Topics, Flink state and the data of its own"
                    + " Redis and MariaDB live in temp directories that are deleted on exit.",
            "",
            "The API also reads UNREAD_API_TOKEN and UNREAD_API_TIMEOUT_MS."
        },
        descriptionHeading = "%n",
        optionListHeading = "%nFlags:%n",
        abbreviateSynopsis = true,
        sortOptions = false,
        modelTransformer = CommandFlags.class)
final class LocalCommand implements Callable<Integer> {

    static final String NAME = "local";

    @Spec private CommandSpec spec;

    @Option(
            names = "--kafka-port",
            paramLabel = "PORT",
            defaultValue = "9092",
            description = "Kafka broker port (default ${DEFAULT-VALUE}; 0: any free port)")
    int kafkaPort;

    @Option(
            names = "--flink-ui-port",
            paramLabel = "PORT",
            defaultValue = "8081",
            description = "Flink web UI and REST port (default ${DEFAULT-VALUE}; 0: any free port)")
    int flinkUiPort;

    @Option(
            names = "--api-port",
            paramLabel = "PORT",
            defaultValue = ApiConfig.DEFAULT_PORT,
            description = "HTTP API port (default ${DEFAULT-VALUE}; 0: any free port)")
    int apiPort;

    @Option(
            names = "--generate",
            paramLabel = "RATE",
            defaultValue = "200",
            description = "generated events per second (default ${DEFAULT-VALUE}; 0: none)")
    long generateRate;

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description = "stop after that long (default ${DEFAULT-VALUE}: until Ctrl-C)")
    long durationSeconds;

    @Option(
            names = "--seed",
            paramLabel = "N",
            defaultValue = "1",
            description = "the generator's seed (default ${DEFAULT-VALUE}): same seed, same users")
    long seed;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help")
    boolean help;

    /** The job's --kafka-bootstrap is this stack's own broker; refused with the reason. */
    @Option(names = "--kafka-bootstrap", hidden = true)
    void kafkaBootstrap(String value) {
        throw new ParameterException(
                spec.commandLine(),
                "--kafka-bootstrap: local runs its own broker; see --kafka-port");
    }

    @Override
    public Integer call() throws Exception {
        Unread.Session session = Unread.session(spec);
        return LocalStack.run(
                LocalStack.Options.of(this, CommandFlags.given(spec), session.env()), session);
    }

    CommandSpec spec() {
        return spec;
    }
}
