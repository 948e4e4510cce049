package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.DeadLetters;
import dev.unread.flinkguard.ForeignPageGuard;
import dev.unread.flinkguard.ForeignPageGuard.Allowed;
import java.io.Reader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.io.network.netty.InboundChannelHandlerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml checked against the code, so that the stack users start with Docker runs what
 * the tests test: the topics, ports and settings are the job's own, the images match the pom's
 * versions, and every file it mounts exists.
 */
class ComposeFileTest {

    private static final Path ROOT = FlinkConf.findDir().getParent();

    /** The state-query-api's entry point, as the Dockerfile's api target starts it. */
    private static final String API_MAIN = "dev.unread.api.StateQueryApi";

    /** The script the API image starts the API through. */
    private static final String API_ENTRYPOINT = "docker/api-entrypoint.sh";

    /** The module of the web UI's guard, which the Flink image carries in lib/. */
    private static final String GUARD_MODULE = "flink-guard";

    /** Where that script keeps the token it makes; a path, not a secret. */
    private static final String API_TOKEN_FILE = "API_TOKEN_FILE";

    private static Map<String, Object> services;
    private static String dockerfile;
    private static Map<String, String> pom;
    private static Configuration flinkConf;

    @BeforeAll
    static void readFiles() throws Exception {
        try (Reader in = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            Map<String, Object> compose = new Yaml().load(in);
            services = map(compose.get("services"));
        }
        dockerfile = Files.readString(ROOT.resolve("docker/Dockerfile"));
        pom = pomProperties(ROOT.resolve("pom.xml"));
        flinkConf = FlinkConf.load(FlinkConf.findDir(), Map.of());
    }

    @Test
    void theStackHasTheServicesTheDocsName() {
        assertThat(services.keySet())
                .containsExactlyInAnyOrder(
                        "kafka",
                        "kafka-topics",
                        "redis",
                        "mysql",
                        "jobmanager",
                        "taskmanager",
                        "client",
                        "state-query-api",
                        "prometheus",
                        "grafana");
    }

    @Test
    void theTopicsServiceCreatesExactlyTheJobsTopics() {
        String script = String.join("\n", strings(service("kafka-topics").get("command")));
        Matcher loop = Pattern.compile("for topic in ([^;]+);").matcher(script);

        assertThat(loop.find()).as("a loop over the topics in\n" + script).isTrue();
        Map<String, String> defaults = UnreadConfig.defaults();
        assertThat(loop.group(1).trim().split("\\s+"))
                .containsExactlyInAnyOrder(
                        defaults.get("messages-topic"),
                        defaults.get("reads-topic"),
                        defaults.get("conversations-topic"));
        // The letter of the largest input record is that record plus headers: the dead-letter
        // topic takes what the job's producer may send.
        assertThat(script)
                .containsPattern(
                        "--topic "
                                + defaults.get("dead-letter-topic")
                                + " [^\n]*\\s+--config max.message.bytes="
                                + DeadLetters.MAX_LETTER_BYTES);
    }

    @Test
    void portsArePublishedOnLoopbackOnlyAtTheCodesDefaults() {
        Map<String, String> defaults = UnreadConfig.defaults();
        for (String name : services.keySet()) {
            for (String port : strings(service(name).getOrDefault("ports", List.of()))) {
                assertThat(port).as(name + " publishes " + port).startsWith("127.0.0.1:");
            }
        }

        URI kafka = URI.create("kafka://" + defaults.get("kafka-bootstrap"));
        assertThat(published("kafka")).containsExactly(kafka.getPort());
        assertThat(environment("kafka").get("KAFKA_ADVERTISED_LISTENERS"))
                .contains("EXTERNAL://" + defaults.get("kafka-bootstrap"));
        assertThat(published("redis"))
                .containsExactly(URI.create(defaults.get("redis-url")).getPort());
        assertThat(published("mysql"))
                .containsExactly(URI.create(defaults.get("jdbc-url").substring(5)).getPort());
        assertThat(published("jobmanager"))
                .containsExactlyInAnyOrder(
                        flinkConf.get(RestOptions.PORT),
                        Integer.parseInt(flinkConf.getString("metrics.reporter.prom.port", "")));
        assertThat(published("state-query-api")).containsExactly(8080);
    }

    @Test
    void everyUnreadVariableIsASettingOfTheProgramItConfigures() throws Exception {
        Set<String> job = new LinkedHashSet<>();
        UnreadConfig.defaults().keySet().forEach(name -> job.add(UnreadConfig.envName(name)));
        job.add(UnreadConfig.JDBC_PASSWORD_ENV);
        // Every variable ApiConfig defines: most are built from the shared settings, not literals.
        Set<String> api = new LinkedHashSet<>();
        ApiConfig.SETTINGS.forEach(setting -> api.add(setting.env()));
        for (Field field : ApiConfig.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_ENV")) {
                api.add((String) field.get(null));
            }
        }

        assertThat(api).contains("UNREAD_API_HOST", "UNREAD_API_PORT", "UNREAD_REDIS_URL");
        for (String name : services.keySet()) {
            Set<String> known = name.equals("state-query-api") ? api : job;
            environment(name).keySet().stream()
                    .filter(variable -> variable.startsWith("UNREAD_"))
                    .forEach(variable -> assertThat(known).as(name).contains(variable));
        }
        assertThat(environment("client")).containsKey("UNREAD_KAFKA_BOOTSTRAP");
    }

    @Test
    void theApiListensOnThePortComposePublishes() {
        Map<String, String> env = environment("state-query-api");

        assertThat(env).containsEntry("UNREAD_API_HOST", "0.0.0.0");
        assertThat(published("state-query-api"))
                .containsExactly(Integer.parseInt(env.get("UNREAD_API_PORT")));
    }

    /**
     * The API listens on its container's every interface, where any {@code Host} reaches it: it
     * must need a token there, since without one it would serve any user to a page whose DNS name
     * is rebound to 127.0.0.1. Unset, the entrypoint makes one at the first start, keeps it, and
     * gives the API the same one at every start after; one given in UNREAD_API_TOKEN wins.
     */
    @Test
    void theApiNeedsATokenWhichTheEntrypointMakesWhenNoneIsGiven(@TempDir Path dir)
            throws Exception {
        Map<String, String> env = new HashMap<>();
        environment("state-query-api").forEach((name, value) -> env.put(name, unset(value)));
        assertThat(env.get(ApiConfig.TOKEN_ENV)).isEmpty();
        // Without a token the API refuses to start on every interface, rather than answer open.
        assertThatThrownBy(() -> ApiConfig.fromEnv(env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ApiConfig.TOKEN_ENV);
        String tokenFile = env.get(API_TOKEN_FILE);
        assertThat(mounts("state-query-api").get("api-token"))
                .isEqualTo(Path.of(tokenFile).getParent().toString());
        assertThat(dockerfile).contains("mkdir -p " + Path.of(tokenFile).getParent());

        env.put(API_TOKEN_FILE, dir.resolve("token").toString());
        String made = tokenOfApiStartedWith(env);
        assertThat(made).matches("[A-Za-z0-9_-]{32}");
        ApiConfig started = ApiConfig.fromEnv(withToken(env, made));
        assertThat(started.token).isEqualTo(made);
        assertThat(started.openWithoutAuth).as("the API answers any Host").isFalse();
        assertThat(Files.getPosixFilePermissions(dir.resolve("token")))
                .containsExactlyInAnyOrder(
                        PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(tokenOfApiStartedWith(env)).as("the next start's").isEqualTo(made);

        String given = "given-token-0123456789";
        assertThat(tokenOfApiStartedWith(withToken(env, given))).isEqualTo(given);
    }

    /**
     * Grafana's default admin is admin/admin: here there is no admin, no login form and no basic
     * authentication; anyone reaching the port views the dashboards and edits nothing.
     */
    @Test
    void grafanaHasNoAdminAndNoLoginOnlyViewers() {
        Map<String, String> env = environment("grafana");
        assertThat(env)
                .containsEntry("GF_SECURITY_DISABLE_INITIAL_ADMIN_CREATION", "true")
                .containsEntry("GF_AUTH_DISABLE_LOGIN_FORM", "true")
                .containsEntry("GF_AUTH_BASIC_ENABLED", "false")
                .containsEntry("GF_AUTH_ANONYMOUS_ENABLED", "true")
                .containsEntry("GF_AUTH_ANONYMOUS_ORG_ROLE", "Viewer")
                .doesNotContainKeys("GF_SECURITY_ADMIN_USER", "GF_SECURITY_ADMIN_PASSWORD");
    }

    @Test
    void theJobAndTheApiReachTheOtherServicesByTheirNames() {
        for (String name : List.of("client", "state-query-api")) {
            Map<String, String> env = new HashMap<>(environment(name));
            // What compose substitutes when the user's environment leaves them unset.
            env.replaceAll((variable, value) -> unset(value));
            UnreadConfig config = UnreadConfig.from(Map.of(), env);

            assertThat(config.kafkaBootstrap).as(name).isEqualTo("kafka:19092");
            assertThat(environment("kafka").get("KAFKA_ADVERTISED_LISTENERS"))
                    .contains("INTERNAL://" + config.kafkaBootstrap);
            URI redis = URI.create(config.redisUrl);
            assertThat(redis.getHost() + ":" + redis.getPort()).as(name).isEqualTo("redis:6379");
            URI jdbc = URI.create(config.jdbcUrl.substring(5));
            assertThat(jdbc.getHost() + ":" + jdbc.getPort()).as(name).isEqualTo("mysql:3306");
            assertThat(jdbc.getPath()).isEqualTo("/" + environment("mysql").get("MYSQL_DATABASE"));
            assertThat(config.messagesTopic)
                    .isEqualTo(UnreadConfig.defaults().get("messages-topic"));
        }
    }

    @Test
    void noPasswordIsWrittenInTheFile() {
        Pattern fromEnvironment = Pattern.compile("\\$\\{[A-Z_]+(:-)?}");
        for (String name : services.keySet()) {
            environment(name)
                    .forEach(
                            (variable, value) -> {
                                if (variable.equals("MYSQL_ALLOW_EMPTY_PASSWORD")) {
                                    assertThat(value).isEqualTo("yes");
                                } else if (variable.equals(API_TOKEN_FILE)) {
                                    assertThat(value).startsWith("/");
                                } else if (variable.contains("PASSWORD")
                                        || variable.contains("TOKEN")) {
                                    assertThat(value)
                                            .as(name + " " + variable)
                                            .matches(fromEnvironment);
                                }
                                if (value.contains("://")) {
                                    assertThat(URI.create(value).getUserInfo())
                                            .as(name + " " + variable)
                                            .isNull();
                                }
                            });
        }
        assertThat(environment("client").get(UnreadConfig.JDBC_PASSWORD_ENV))
                .isEqualTo("${" + UnreadConfig.JDBC_PASSWORD_ENV + ":-}");
    }

    @Test
    void everyMountedFileExistsInTheRepository() {
        Set<String> namedVolumes = new LinkedHashSet<>();
        for (String name : services.keySet()) {
            for (String volume : strings(service(name).getOrDefault("volumes", List.of()))) {
                String source = volume.split(":")[0];
                if (source.startsWith("./")) {
                    assertThat(ROOT.resolve(source)).as(name + " mounts " + source).exists();
                } else {
                    namedVolumes.add(source);
                }
            }
        }
        assertThat(namedVolumes).containsExactlyInAnyOrder("flink-data", "api-token");
        assertThat(ROOT.resolve(API_ENTRYPOINT)).isRegularFile();
        assertThat(ROOT.resolve("docker/mysql/init/01-unread-schema.sql")).isRegularFile();
        assertThat(mounts("jobmanager")).containsEntry("./flink-conf", "/opt/unread/flink-conf");
        assertThat(Files.exists(ROOT.resolve("docker/flink-entrypoint.sh"))).isTrue();
    }

    /** Prometheus loads the alerting rules of monitoring/ from where compose mounts them. */
    @Test
    void prometheusLoadsTheAlertingRules() throws Exception {
        Map<String, Object> config;
        try (Reader in =
                Files.newBufferedReader(ROOT.resolve("docker/prometheus/prometheus.yml"))) {
            config = new Yaml().load(in);
        }
        String rulesDir = mounts("prometheus").get("./monitoring/prometheus");
        assertThat(rulesDir).isNotNull();
        List<String> ruleFiles = strings(config.get("rule_files"));
        assertThat(ruleFiles).isNotEmpty();
        for (String file : ruleFiles) {
            assertThat(file).startsWith(rulesDir + "/");
            assertThat(
                            ROOT.resolve("monitoring/prometheus")
                                    .resolve(file.substring(rulesDir.length() + 1)))
                    .isRegularFile();
        }
    }

    /**
     * Grafana provisions the repository's dashboards from where compose mounts them, on a data
     * source that is the stack's Prometheus under the uid every panel names.
     */
    @Test
    void grafanaProvisionsTheDashboardsOnTheStacksPrometheus() throws Exception {
        Map<String, String> mounts = mounts("grafana");
        assertThat(mounts)
                .containsEntry("./monitoring/grafana/provisioning", "/etc/grafana/provisioning");
        Path provisioning = ROOT.resolve("monitoring/grafana/provisioning");
        Map<String, Object> dashboards;
        try (Reader in = Files.newBufferedReader(provisioning.resolve("dashboards/unread.yml"))) {
            dashboards = new Yaml().load(in);
        }
        Map<String, Object> provider = map(((List<?>) dashboards.get("providers")).get(0));
        assertThat(map(provider.get("options")).get("path"))
                .isEqualTo(mounts.get("./monitoring/grafana/dashboards"));

        Map<String, Object> datasources;
        try (Reader in =
                Files.newBufferedReader(provisioning.resolve("datasources/prometheus.yml"))) {
            datasources = new Yaml().load(in);
        }
        Map<String, Object> prometheus = map(((List<?>) datasources.get("datasources")).get(0));
        assertThat(prometheus.get("url"))
                .isEqualTo("http://prometheus:" + published("prometheus").get(0));
        String dashboard =
                Files.readString(ROOT.resolve("monitoring/grafana/dashboards/unread.json"));
        Matcher uid = Pattern.compile("\"uid\"\\s*:\\s*\"([^\"]+)\"").matcher(dashboard);
        Set<String> uids = new LinkedHashSet<>();
        while (uid.find()) {
            uids.add(uid.group(1));
        }
        // The dashboard's own uid and the data source's, nothing else.
        assertThat(uids).containsExactlyInAnyOrder("unread", (String) prometheus.get("uid"));
        assertThat(environment("grafana").get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"))
                .isEqualTo(mounts.get("./monitoring/grafana/dashboards") + "/unread.json");
    }

    @Test
    void everyFlinkProcessRunsOnTheRepositorysConfigurationAndSharesTheVolume() throws Exception {
        String entrypoint = Files.readString(ROOT.resolve("docker/flink-entrypoint.sh"));
        String checkpoints =
                URI.create(flinkConf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).getPath();
        String savepoints =
                URI.create(flinkConf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY)).getPath();

        for (String name : List.of("jobmanager", "taskmanager", "client")) {
            Map<String, String> mounts = mounts(name);
            assertThat(entrypoint).contains(mounts.get("./flink-conf") + "/config.yaml");
            assertThat(checkpoints).startsWith(mounts.get("flink-data") + "/");
            assertThat(savepoints).startsWith(mounts.get("flink-data") + "/");
            assertThat(environment(name)).containsEntry("JOB_MANAGER_RPC_ADDRESS", "jobmanager");
        }
        assertThat(dockerfile).contains("mkdir -p " + checkpoints + " " + savepoints);
    }

    @Test
    void imagesMatchThePomsVersions() {
        assertThat(service("kafka").get("image"))
                .isEqualTo("apache/kafka:" + pom.get("kafka.version"));
        assertThat(service("kafka-topics").get("image")).isEqualTo(service("kafka").get("image"));
        String flinkImage =
                "flink:" + pom.get("flink.version") + "-java" + pom.get("maven.compiler.release");
        assertThat(dockerfile)
                .containsPattern("(?m)^FROM " + Pattern.quote(flinkImage) + " AS flink$");
        assertThat(dockerfile)
                .containsPattern(
                        "(?m)^FROM maven:[^ ]+-temurin-"
                                + pom.get("maven.compiler.release")
                                + " AS build$");
    }

    @Test
    void theClientSubmitsTheJarTheImageHolds() throws Exception {
        String script = String.join("\n", strings(service("client").get("command")));
        Matcher run =
                Pattern.compile("(?s)flink run -d -m jobmanager:(\\d+) (.*?)(/\\S+\\.jar)")
                        .matcher(script);

        assertThat(run.find()).as(script).isTrue();
        assertThat(Integer.parseInt(run.group(1))).isEqualTo(flinkConf.get(RestOptions.PORT));
        assertThat(run.group(2)).contains("-s \"$$FROM_SAVEPOINT\"");
        assertThat(dockerfile).contains("COPY --from=build /out/unread-job.jar " + run.group(3));
        // Once state exists on the volume, the client starts the job only from a savepoint.
        assertThat(script).contains("find " + mounts("client").get("flink-data") + " -mindepth 2");
        assertThat(Files.readString(ROOT.resolve("job/pom.xml")))
                .contains("<mainClass>" + UnreadJob.class.getName() + "</mainClass>");
    }

    /**
     * The image of every Flink service carries the web UI's guard in Flink's lib/, built by Maven
     * in the build stage as the job jar is; that stage has every module the root pom names, which
     * Maven's reactor reads.
     */
    @Test
    void theFlinkImageCarriesTheWebUiGuardInItsLib() throws Exception {
        String build = stage(dockerfile, "build");
        for (String module : pomModules(ROOT.resolve("pom.xml"))) {
            assertThat(build).contains("COPY " + module + " " + module + "\n");
        }
        Matcher install =
                Pattern.compile("mvn -B -q -DskipTests -pl (\\S+) -am install").matcher(build);
        assertThat(install.find()).as(build).isTrue();
        assertThat(install.group(1).split(",")).contains(GUARD_MODULE);
        assertFlinkImageCarriesTheGuard(dockerfile);
        assertThat(
                        ROOT.resolve(
                                GUARD_MODULE
                                        + "/src/main/resources/META-INF/services/"
                                        + InboundChannelHandlerFactory.class.getName()))
                .content()
                .isEqualToIgnoringWhitespace(ForeignPageGuard.class.getName());
    }

    /**
     * The guard of compose's JobManager, on config.yaml and the address the image's entrypoint
     * writes, lets in the UI compose publishes, the client's {@code flink} commands and the health
     * check, and refuses another site's page and a rebound host name.
     */
    @Test
    void theJobManagersGuardLetsInItsPublishedUiItsClientAndItsHealthCheckOnly() {
        Configuration jobManager = flinkConf.clone();
        jobManager.set(
                JobManagerOptions.ADDRESS,
                environment("jobmanager").get("JOB_MANAGER_RPC_ADDRESS"));
        Allowed allowed = Allowed.of(jobManager);

        int port = flinkConf.get(RestOptions.PORT);
        String ui =
                strings(service("jobmanager").get("ports")).stream()
                        .filter(published -> published.endsWith(":" + port))
                        .map(published -> published.substring(0, published.lastIndexOf(':')))
                        .findFirst()
                        .orElseThrow();
        assertThat(allowed.refusal("http://" + ui, ui)).as("the UI at " + ui).isNull();
        Matcher client =
                Pattern.compile("flink \\w+ (?:-\\w )*-m (\\S+)")
                        .matcher(String.join("\n", strings(service("client").get("command"))));
        List<String> clientHosts = new ArrayList<>();
        while (client.find()) {
            clientHosts.add(client.group(1));
        }
        assertThat(clientHosts).isNotEmpty();
        for (String host : clientHosts) {
            assertThat(allowed.refusal(null, host)).as("the client's -m " + host).isNull();
        }
        Matcher health =
                Pattern.compile("http://([^/ ]+)/")
                        .matcher(
                                String.join(
                                        " ",
                                        strings(
                                                map(service("jobmanager").get("healthcheck"))
                                                        .get("test"))));
        assertThat(health.find()).isTrue();
        assertThat(allowed.refusal(null, health.group(1))).as(health.group()).isNull();

        assertThat(allowed.refusal("http://evil.example", ui)).isNotNull();
        assertThat(allowed.refusal(null, "rebound.example:" + port)).isNotNull();
    }

    /**
     * The Dockerfile's flink target copies the guard's jar, made in the build stage from the
     * flink-guard module, into Flink's lib/, where every Flink process of the image loads it.
     */
    static void assertFlinkImageCarriesTheGuard(String dockerfile) throws Exception {
        String artifact = artifactId(ROOT.resolve(GUARD_MODULE + "/pom.xml"));
        Matcher jar =
                Pattern.compile(
                                "cp "
                                        + GUARD_MODULE
                                        + "/target/"
                                        + Pattern.quote(artifact)
                                        + "-\\*\\.jar (/out/\\S+\\.jar)")
                        .matcher(stage(dockerfile, "build"));
        assertThat(jar.find()).as("the build stage copies the guard's jar to /out").isTrue();
        assertThat(stage(dockerfile, "flink"))
                .contains("COPY --from=build " + jar.group(1) + " /opt/flink/lib/");
    }

    /** The text of the Dockerfile's stage {@code FROM ... AS name}, up to the next stage. */
    private static String stage(String dockerfile, String name) {
        Matcher stage =
                Pattern.compile("(?ms)^FROM \\S+ AS " + name + "$(.*?)(?=^FROM |\\z)")
                        .matcher(dockerfile);
        assertThat(stage.find()).as("stage " + name).isTrue();
        return stage.group(1);
    }

    @Test
    void theApiImageStartsTheApisMainClass() {
        assertThat(dockerfile)
                .contains("ENTRYPOINT [\"/opt/unread/api-entrypoint.sh\", \"java\"")
                .contains("\"" + API_MAIN + "\"]")
                .contains("COPY --chmod=755 " + API_ENTRYPOINT + " /opt/unread/api-entrypoint.sh");
        Path source =
                ROOT.resolve(
                        "state-query-api/src/main/java/" + API_MAIN.replace('.', '/') + ".java");
        assumeTrue(Files.exists(source), "the state-query-api module has no " + API_MAIN + " yet");
        assertThat(source).isRegularFile();
    }

    /**
     * The token the API image's entrypoint gives the API in {@code env}: the script run as the
     * image runs it, its command printing the variable instead of starting the API.
     */
    private static String tokenOfApiStartedWith(Map<String, String> env) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("sh", ROOT.resolve(API_ENTRYPOINT).toString()));
        command.addAll(List.of("sh", "-c", "printf %s \"$" + ApiConfig.TOKEN_ENV + "\""));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(output).isZero();
        return output;
    }

    private static Map<String, String> withToken(Map<String, String> env, String token) {
        Map<String, String> with = new HashMap<>(env);
        with.put(ApiConfig.TOKEN_ENV, token);
        return with;
    }

    /** {@code ${NAME:-default}} → default, {@code ${NAME}} → empty, as compose does. */
    private static String unset(String value) {
        Matcher variable = Pattern.compile("\\$\\{[A-Z_]+(:-([^}]*))?}").matcher(value);
        return variable.replaceAll(m -> m.group(2) == null ? "" : m.group(2));
    }

    private static Map<String, Object> service(String name) {
        assertThat(services).containsKey(name);
        return map(services.get(name));
    }

    /** A service's environment, values as text (YAML reads {@code 1} as a number). */
    private static Map<String, String> environment(String name) {
        Map<String, String> env = new HashMap<>();
        map(service(name).getOrDefault("environment", Map.of()))
                .forEach((variable, value) -> env.put(variable, String.valueOf(value)));
        return env;
    }

    private static List<Integer> published(String name) {
        List<Integer> ports = new ArrayList<>();
        for (String port : strings(service(name).getOrDefault("ports", List.of()))) {
            String[] parts = port.split(":");
            assertThat(parts[1]).as("host and container port are the same").isEqualTo(parts[2]);
            ports.add(Integer.parseInt(parts[1]));
        }
        return ports;
    }

    /** Mount source → path in the container. */
    private static Map<String, String> mounts(String name) {
        Map<String, String> mounts = new HashMap<>();
        for (String volume : strings(service(name).getOrDefault("volumes", List.of()))) {
            String[] parts = volume.split(":");
            mounts.put(parts[0], parts[1]);
        }
        return mounts;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object yaml) {
        assertThat(yaml).isInstanceOf(Map.class);
        return (Map<String, Object>) yaml;
    }

    private static List<String> strings(Object yaml) {
        if (yaml instanceof String text) {
            return Arrays.asList(text);
        }
        assertThat(yaml).isInstanceOf(List.class);
        List<String> strings = new ArrayList<>();
        ((List<?>) yaml).forEach(item -> strings.add(String.valueOf(item)));
        return strings;
    }

    private static List<String> pomModules(Path pomFile) throws Exception {
        NodeList modules = pomRoot(pomFile).getElementsByTagName("module");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < modules.getLength(); i++) {
            names.add(modules.item(i).getTextContent().trim());
        }
        return names;
    }

    /** The project's own artifactId, not its parent's. */
    private static String artifactId(Path pomFile) throws Exception {
        NodeList children = pomRoot(pomFile).getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i).getNodeName().equals("artifactId")) {
                return children.item(i).getTextContent().trim();
            }
        }
        throw new AssertionError("no artifactId in " + pomFile);
    }

    private static Element pomRoot(Path pomFile) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(pomFile.toFile())
                .getDocumentElement();
    }

    private static Map<String, String> pomProperties(Path pomFile) throws Exception {
        NodeList properties =
                ((Element) pomRoot(pomFile).getElementsByTagName("properties").item(0))
                        .getChildNodes();
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < properties.getLength(); i++) {
            Node property = properties.item(i);
            if (property.getNodeType() == Node.ELEMENT_NODE) {
                values.put(property.getNodeName(), property.getTextContent().trim());
            }
        }
        return values;
    }
}
