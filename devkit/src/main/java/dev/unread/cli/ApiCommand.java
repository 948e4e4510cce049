package dev.unread.cli;

import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.contract.Setting;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code unread api}: the HTTP API alone, in front of a job that runs elsewhere, configured by the
 * {@code UNREAD_*} environment as {@link ApiConfig#fromEnv} reads it.
 */
@Command(
        name = ApiCommand.NAME,
        description = {
            "The HTTP API alone, configured by the UNREAD_* environment.",
            "",
            "Runs the HTTP API alone: unread counts from Redis, read cursors from MySQL, and read"
                    + " events published to Kafka, for a job that runs elsewhere. Prints the"
                    + " address once it listens; Ctrl-C stops it. It starts even while Redis,"
                    + " MySQL or Kafka are down: requests that need them get 503, and GET /health"
                    + " names them."
        },
        descriptionHeading = "%n",
        optionListHeading = "%nFlags:%n",
        footerHeading = "%nEnvironment (default):%n")
final class ApiCommand implements Callable<Integer> {

    static final String NAME = "api";

    private CommandSpec spec;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            description = "port to listen on (default: UNREAD_API_PORT; 0: any free port)")
    Integer port;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "this help")
    boolean help;

    /** The help's footer lists the environment, as the API's settings declare it. */
    @Spec
    void spec(CommandSpec spec) {
        this.spec = spec;
        spec.usageMessage()
                .footer(
                        environment().replace("%", "%%")
                                + "%nEndpoints, errors and examples: state-query-api/README.md.");
    }

    /** Serves until Ctrl-C (or SIGTERM), then stops the server and its clients. */
    @Override
    public Integer call() throws Exception {
        Unread.Session session = Unread.session(spec);
        ApiConfig config = config(port, session.env());
        CountDownLatch stop = new CountDownLatch(1);
        boolean trapped = Signals.trap(stop::countDown, "INT", "TERM");
        StateQueryApi api = StateQueryApi.start(config);
        // Without the signal handlers, the JVM's shutdown closes the server instead.
        Thread hook = new Thread(api::close, "unread-api-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            session.out()
                    .printf(
                            "unread API listening on http://%s:%d - Ctrl-C stops%n",
                            config.host, api.port());
            session.out().flush();
            stop.await();
            return Unread.OK;
        } finally {
            api.close();
            if (trapped) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is already shutting down; closing twice is harmless.
                }
            }
        }
    }

    /** The environment's settings, with {@code port}, when given, winning over UNREAD_API_PORT. */
    static ApiConfig config(Integer port, Map<String, String> env) {
        try {
            ApiConfig config = ApiConfig.fromEnv(env);
            return port == null ? config : config.toBuilder().port(port).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    /** The variables the API reads ({@link ApiConfig#ALL}) with their defaults, for the footer. */
    static String environment() {
        StringBuilder sb = new StringBuilder();
        for (Setting<?> setting : ApiConfig.ALL) {
            sb.append(
                    String.format(
                            "  %-26s %s%n",
                            setting.env(), setting.shownDefault().replace("`", "")));
        }
        return sb.toString();
    }
}
