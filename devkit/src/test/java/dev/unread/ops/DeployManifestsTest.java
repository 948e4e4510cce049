package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.flinkguard.ForeignPageGuard;
import dev.unread.flinkguard.ForeignPageGuard.Allowed;
import java.io.Reader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests of deploy/ held to the code, since nothing here runs Kubernetes: the
 * FlinkDeployment's job arguments are settings of the job that it accepts, its image and jar are
 * the Dockerfile's, it upgrades through savepoints into object storage with HA, its parallelism is
 * docs/capacity.md's, and every secret comes from a Kubernetes secret; the API's Deployment and
 * Service listen, probe and are configured as the API expects.
 */
class DeployManifestsTest {

    private static final Path ROOT = FlinkConf.findDir().getParent();

    private static Map<String, Object> flink;
    private static Map<String, Object> flinkPolicy;
    private static Map<String, Object> apiDeployment;
    private static Map<String, Object> apiService;
    private static Map<String, Object> apiPolicy;
    private static Map<String, Object> compose;
    private static String dockerfile;

    @BeforeAll
    static void readFiles() throws Exception {
        for (Map<String, Object> document : load("deploy/flink-deployment.yaml")) {
            switch ((String) document.get("kind")) {
                case "FlinkDeployment" -> flink = document;
                case "NetworkPolicy" -> flinkPolicy = document;
                default -> throw new AssertionError("unexpected " + document.get("kind"));
            }
        }
        for (Map<String, Object> document : load("deploy/state-query-api.yaml")) {
            switch ((String) document.get("kind")) {
                case "Deployment" -> apiDeployment = document;
                case "Service" -> apiService = document;
                case "NetworkPolicy" -> apiPolicy = document;
                default -> throw new AssertionError("unexpected " + document.get("kind"));
            }
        }
        compose = load("docker-compose.yml").get(0);
        dockerfile = Files.readString(ROOT.resolve("docker/Dockerfile"));
    }

    @Test
    void theFlinkDeploymentIsOneForTheOperatorsApi() {
        assertThat(flink.get("apiVersion")).isEqualTo("flink.apache.org/v1beta1");
        assertThat(flink.get("kind")).isEqualTo("FlinkDeployment");
        String flinkVersion = pom("flink.version");
        assertThat(path(flink, "spec", "flinkVersion"))
                .isEqualTo("v" + flinkVersion.replaceAll("^(\\d+)\\.(\\d+).*", "$1_$2"));
    }

    @Test
    void theJobArgumentsAreSettingsOfTheJobAndItAcceptsThem() {
        List<String> args = strings(path(flink, "spec", "job", "args"));
        Set<String> settings = UnreadConfig.defaults().keySet();
        for (int i = 0; i < args.size(); i += 2) {
            assertThat(args.get(i)).startsWith("--");
            assertThat(settings).contains(args.get(i).substring(2));
        }
        // Parsed as the job's main() parses them; refuses what the job would refuse.
        UnreadConfig config = UnreadConfig.fromArgs(args.toArray(String[]::new), Map.of());
        assertThat(config.messagesTopic).isEqualTo(UnreadConfig.defaults().get("messages-topic"));
        assertThat(path(flink, "spec", "job", "entryClass")).isEqualTo(UnreadJob.class.getName());

        Configuration conf =
                Configuration.fromMap(stringMap(path(flink, "spec", "flinkConfiguration")));
        assertThat(config.maxParallelism).isEqualTo(conf.get(PipelineOptions.MAX_PARALLELISM));
        assertThat(Duration.ofMillis(config.checkpointIntervalMs))
                .isEqualTo(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL));
    }

    @Test
    void parallelismAndMaxParallelismAreTheCapacityPlans() throws Exception {
        String capacity = Files.readString(ROOT.resolve("docs/capacity.md"));
        int parallelism = planned(capacity, "job parallelism");
        int maxParallelism = planned(capacity, "max parallelism");

        assertThat(path(flink, "spec", "job", "parallelism")).isEqualTo(parallelism);
        UnreadConfig config =
                UnreadConfig.fromArgs(
                        strings(path(flink, "spec", "job", "args")).toArray(String[]::new),
                        Map.of());
        assertThat(config.maxParallelism).isEqualTo(maxParallelism);
        int slots =
                Integer.parseInt(
                        (String)
                                map(path(flink, "spec", "flinkConfiguration"))
                                        .get("taskmanager.numberOfTaskSlots"));
        assertThat(parallelism % slots).as("whole TaskManagers").isZero();
    }

    @Test
    void itUpgradesThroughSavepointsWithIncrementalRocksDbCheckpointsInObjectStorageAndHa() {
        assertThat(path(flink, "spec", "job", "upgradeMode")).isEqualTo("savepoint");
        assertThat(path(flink, "spec", "job", "allowNonRestoredState")).isEqualTo(false);
        Configuration conf =
                Configuration.fromMap(stringMap(path(flink, "spec", "flinkConfiguration")));
        assertThat(conf.getString("state.backend.type", "")).isEqualTo("rocksdb");
        assertThat(conf.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
        String checkpoints = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        String savepoints = conf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY);
        assertThat(URI.create(checkpoints).getScheme()).isEqualTo("s3");
        assertThat(URI.create(savepoints).getScheme()).isEqualTo("s3");
        assertThat(checkpoints).isNotEqualTo(savepoints);
        assertThat(conf.getString("high-availability.type", "")).isEqualTo("kubernetes");
        assertThat(URI.create(conf.getString("high-availability.storageDir", "")).getScheme())
                .isEqualTo("s3");
        // The filesystem for s3:// is the image's own plugin, of the image's Flink version.
        assertThat(env(flinkContainer()).get("ENABLE_BUILT_IN_PLUGINS"))
                .isEqualTo("flink-s3-fs-presto-" + pom("flink.version") + ".jar");
        // This configuration replaces the image's config.yaml, which set Flink's Java 17 options.
        assertThat(conf.getString("env.java.opts.all", "").split("\\s+"))
                .containsExactly(pom("flink.jvm.options").split("\\s+"));
    }

    @Test
    void theImagesAreTheOnesTheDockerfileBuildsAndComposeRuns() {
        assertThat(path(flink, "spec", "image")).isEqualTo(composeImage("jobmanager"));
        assertThat(dockerfile).contains("AS flink");
        String jar = URI.create((String) path(flink, "spec", "job", "jarURI")).getPath();
        assertThat((String) path(flink, "spec", "job", "jarURI")).startsWith("local://");
        assertThat(dockerfile).contains("COPY --from=build /out/unread-job.jar " + jar);
        assertThat(apiContainer().get("image")).isEqualTo(composeImage("state-query-api"));
        assertThat(dockerfile).contains("AS api");
    }

    @Test
    void everySecretComesFromAKubernetesSecret() {
        for (Map<String, Object> container : List.of(flinkContainer(), apiContainer())) {
            for (Object item : (List<?>) container.get("env")) {
                Map<String, Object> variable = map(item);
                String name = (String) variable.get("name");
                if (name.contains("PASSWORD")
                        || name.contains("TOKEN")
                        || name.contains("SECRET")
                        || name.equals("UNREAD_REDIS_URL")) {
                    assertThat(variable).as(name).doesNotContainKey("value");
                    assertThat(path(variable, "valueFrom", "secretKeyRef", "name"))
                            .as(name)
                            .isEqualTo("unread-secrets");
                }
            }
        }
        // No setting given as an argument holds a password.
        for (String arg : strings(path(flink, "spec", "job", "args"))) {
            assertThat(arg).doesNotContainIgnoringCase("password");
            if (arg.contains("://")) {
                assertThat(URI.create(arg.replaceFirst("^jdbc:", "")).getUserInfo()).isNull();
            }
        }
        assertThat(env(flinkContainer())).containsKey(UnreadConfig.JDBC_PASSWORD_ENV);
    }

    @Test
    void everyUnreadVariableIsASettingOfTheProgramItConfigures() throws Exception {
        Set<String> job = new LinkedHashSet<>();
        UnreadConfig.defaults().keySet().forEach(name -> job.add(UnreadConfig.envName(name)));
        job.add(UnreadConfig.JDBC_PASSWORD_ENV);
        Set<String> api = new LinkedHashSet<>();
        ApiConfig.SETTINGS.forEach(setting -> api.add(setting.env()));
        api.addAll(ApiConfig.SECRETS);
        for (Field field : ApiConfig.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_ENV")) {
                api.add((String) field.get(null));
            }
        }
        env(flinkContainer()).keySet().stream()
                .filter(name -> name.startsWith("UNREAD_"))
                .forEach(name -> assertThat(job).as("the job").contains(name));
        env(apiContainer()).keySet().stream()
                .filter(name -> name.startsWith("UNREAD_"))
                .forEach(name -> assertThat(api).as("the API").contains(name));
    }

    /** Bound as ApiConfig reads it, probed on /health, reached through the Service's port. */
    @Test
    void theApiListensWhereItsProbesAndServiceLook() {
        Map<String, Object> container = apiContainer();
        Map<String, String> env = env(container);
        assertThat(env).containsEntry(ApiConfig.HOST_ENV, "0.0.0.0");
        assertThat(env).containsKey(ApiConfig.TOKEN_ENV);
        Map<String, Object> port = map(((List<?>) container.get("ports")).get(0));
        assertThat(port.get("containerPort"))
                .isEqualTo(Integer.parseInt(env.get(ApiConfig.PORT_ENV)));
        assertThat(path(container, "readinessProbe", "httpGet", "path")).isEqualTo("/health");
        assertThat(path(container, "readinessProbe", "httpGet", "port"))
                .isEqualTo(port.get("name"));
        assertThat(path(container, "livenessProbe", "tcpSocket", "port"))
                .isEqualTo(port.get("name"));

        Map<String, Object> servicePort = map(((List<?>) path(apiService, "spec", "ports")).get(0));
        assertThat(servicePort.get("targetPort")).isEqualTo(port.get("name"));
        assertThat(path(apiService, "spec", "selector"))
                .isEqualTo(path(apiDeployment, "spec", "template", "metadata", "labels"));
        assertThat(path(apiService, "spec", "type")).isEqualTo("ClusterIP");
    }

    /** docs/operations.md's account of the FlinkDeployment gives its figures. */
    @Test
    void operationsMdStatesTheManifestsParallelism() throws Exception {
        String operations = Files.readString(ROOT.resolve("docs/operations.md"));
        Matcher stated =
                Pattern.compile(
                                "Parallelism ([\\d,]+) on TaskManagers of (\\d+) slots and max"
                                        + "\\s+parallelism ([\\d,]+)")
                        .matcher(operations);
        assertThat(stated.find()).as("docs/operations.md, On Kubernetes").isTrue();
        Map<String, Object> conf = map(path(flink, "spec", "flinkConfiguration"));
        assertThat(number(stated.group(1))).isEqualTo(path(flink, "spec", "job", "parallelism"));
        assertThat(stated.group(2)).isEqualTo(conf.get("taskmanager.numberOfTaskSlots"));
        assertThat(number(stated.group(3)))
                .isEqualTo(Integer.parseInt((String) conf.get("pipeline.max-parallelism")));
    }

    /**
     * The web UI of the operator's JobManager, reached through {@code kubectl port-forward} on
     * 127.0.0.1:8081, takes no jar and allows no other origin, as every cluster the project starts.
     */
    @Test
    void theWebUiTakesNoJarAndAllowsNoOtherOrigin() {
        assertThat(stringMap(path(flink, "spec", "flinkConfiguration")))
                .containsAllEntriesOf(FlinkConf.webUi(FlinkConf.uiOrigin("127.0.0.1", 8081)));
    }

    /**
     * The operator's JobManager runs the image that carries the web UI's guard in lib/; on the
     * manifest's configuration plus what the operator adds (the cluster's name and namespace, the
     * pod's address as {@code rest.address} under HA) the guard lets in the operator's client,
     * which reaches the REST service {@code NAME-rest.NAMESPACE}, and the UI through {@code kubectl
     * port-forward}, and refuses another site's page and a rebound host name.
     */
    @Test
    void theGuardOfTheOperatorsJobManagerLetsInTheOperatorAndThePortForwardOnly() throws Exception {
        ComposeFileTest.assertFlinkImageCarriesTheGuard(dockerfile);

        String name = (String) path(flink, "metadata", "name");
        String namespace = (String) map(flink.get("metadata")).getOrDefault("namespace", "default");
        Map<String, String> deployed =
                new HashMap<>(stringMap(path(flink, "spec", "flinkConfiguration")));
        deployed.put(ForeignPageGuard.KUBERNETES_CLUSTER_ID.key(), name);
        deployed.put(ForeignPageGuard.KUBERNETES_NAMESPACE.key(), namespace);
        deployed.put(RestOptions.ADDRESS.key(), "10.1.2.3");
        Configuration jobManager = Configuration.fromMap(deployed);
        Allowed allowed = Allowed.of(jobManager);
        int port = jobManager.get(RestOptions.PORT);

        assertThat(allowed.refusal(null, name + "-rest." + namespace + ":" + port)).isNull();
        String forwarded = "127.0.0.1:" + port;
        assertThat(allowed.refusal("http://" + forwarded, forwarded)).isNull();
        assertThat(allowed.refusal(null, "localhost:" + port)).isNull();
        assertThat(allowed.refusal("http://evil.example", forwarded)).isNotNull();
        assertThat(allowed.refusal(null, "rebound.example:" + port)).isNotNull();
    }

    /**
     * Every container runs as a user other than root, with no capability and no way to gain one;
     * the API's on a read-only root with no Kubernetes API token (it never calls that API). The
     * Flink pods keep the operator's service account, whose token the JobManager needs to start its
     * TaskManagers and every pod for Kubernetes HA.
     */
    @Test
    void everyPodRunsAsNonRootWithNoPrivilegeAndOnlyTheTokenItNeeds() {
        Map<String, Object> flinkPod = map(path(flink, "spec", "podTemplate", "spec"));
        Map<String, Object> apiPod = map(path(apiDeployment, "spec", "template", "spec"));
        for (Map<String, Object> pod : List.of(flinkPod, apiPod)) {
            assertThat(path(pod, "securityContext", "runAsNonRoot")).isEqualTo(true);
            assertThat((Integer) path(pod, "securityContext", "runAsUser")).isPositive();
            assertThat(path(pod, "securityContext", "seccompProfile", "type"))
                    .isEqualTo("RuntimeDefault");
        }
        for (Map<String, Object> container : List.of(flinkContainer(), apiContainer())) {
            assertThat(path(container, "securityContext", "allowPrivilegeEscalation"))
                    .isEqualTo(false);
            assertThat(strings(path(container, "securityContext", "capabilities", "drop")))
                    .containsExactly("ALL");
        }
        assertThat(path(apiContainer(), "securityContext", "readOnlyRootFilesystem"))
                .isEqualTo(true);
        assertThat(path(apiPod, "automountServiceAccountToken")).isEqualTo(false);
        assertThat(path(flink, "spec", "serviceAccount")).isEqualTo("flink");
        // The image's users: Flink's own, and the API's USER line.
        assertThat(path(flinkPod, "securityContext", "runAsUser")).isEqualTo(9999);
        assertThat(dockerfile)
                .contains("USER " + path(apiPod, "securityContext", "runAsUser") + "\n");
    }

    /**
     * The API's pods take their port only; the Flink pods take each other, the operator on the REST
     * port and Prometheus on the metrics port, nothing else.
     */
    @Test
    void networkPoliciesLetInOnlyWhatMustComeIn() {
        assertThat(path(apiPolicy, "spec", "podSelector", "matchLabels"))
                .isEqualTo(path(apiDeployment, "spec", "template", "metadata", "labels"));
        assertThat(strings(path(apiPolicy, "spec", "policyTypes"))).containsExactly("Ingress");
        List<?> apiRules = (List<?>) path(apiPolicy, "spec", "ingress");
        assertThat(apiRules).hasSize(1);
        assertThat(map(apiRules.get(0))).doesNotContainKey("from");
        assertThat(ports(map(apiRules.get(0))))
                .containsExactly(map(((List<?>) apiContainer().get("ports")).get(0)).get("name"));

        String cluster = (String) path(flink, "metadata", "name");
        assertThat(path(flinkPolicy, "spec", "podSelector", "matchLabels"))
                .isEqualTo(Map.of("app", cluster));
        assertThat(strings(path(flinkPolicy, "spec", "policyTypes"))).containsExactly("Ingress");
        Configuration conf =
                Configuration.fromMap(stringMap(path(flink, "spec", "flinkConfiguration")));
        List<List<Object>> rulePorts = new ArrayList<>();
        for (Object rule : (List<?>) path(flinkPolicy, "spec", "ingress")) {
            rulePorts.add(ports(map(rule)));
        }
        assertThat(rulePorts)
                .containsExactlyInAnyOrder(
                        List.of(),
                        List.of(conf.get(RestOptions.PORT)),
                        List.of(
                                Integer.parseInt(
                                        conf.getString("metrics.reporter.prom.port", ""))));
        Map<String, Object> own = map(((List<?>) path(flinkPolicy, "spec", "ingress")).get(0));
        assertThat(own).doesNotContainKey("ports");
        assertThat(path(map(((List<?>) own.get("from")).get(0)), "podSelector", "matchLabels"))
                .isEqualTo(Map.of("app", cluster));
    }

    /** The ports a NetworkPolicy rule lets in; none listed: every port. */
    private static List<Object> ports(Map<String, Object> rule) {
        List<Object> ports = new ArrayList<>();
        for (Object port : (List<?>) rule.getOrDefault("ports", List.of())) {
            assertThat(map(port).get("protocol")).isEqualTo("TCP");
            ports.add(map(port).get("port"));
        }
        return ports;
    }

    private static int number(String figure) {
        return Integer.parseInt(figure.replace(",", ""));
    }

    /** The figure in bold on the table row of docs/capacity.md that starts with {@code what}. */
    private static int planned(String capacity, String what) {
        Matcher row =
                Pattern.compile("(?m)^\\| " + Pattern.quote(what) + " \\| \\*\\*([\\d,]+)\\*\\*")
                        .matcher(capacity);
        assertThat(row.find()).as("docs/capacity.md row " + what).isTrue();
        return Integer.parseInt(row.group(1).replace(",", ""));
    }

    private static Map<String, Object> flinkContainer() {
        return map(((List<?>) path(flink, "spec", "podTemplate", "spec", "containers")).get(0));
    }

    private static Map<String, Object> apiContainer() {
        return map(
                ((List<?>) path(apiDeployment, "spec", "template", "spec", "containers")).get(0));
    }

    private static String composeImage(String service) {
        return (String) path(compose, "services", service, "image");
    }

    /** A container's variables given as values or from secrets (then "secret:NAME/KEY"). */
    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new HashMap<>();
        for (Object item : (List<?>) container.get("env")) {
            Map<String, Object> variable = map(item);
            Object value = variable.get("value");
            env.put(
                    (String) variable.get("name"),
                    value != null
                            ? String.valueOf(value)
                            : "secret:"
                                    + path(variable, "valueFrom", "secretKeyRef", "name")
                                    + "/"
                                    + path(variable, "valueFrom", "secretKeyRef", "key"));
        }
        return env;
    }

    private static Object path(Map<String, Object> yaml, String... keys) {
        Object node = yaml;
        for (String key : keys) {
            assertThat(map(node)).as(String.join(".", keys)).containsKey(key);
            node = map(node).get(key);
        }
        return node;
    }

    private static List<Map<String, Object>> load(String file) throws Exception {
        List<Map<String, Object>> documents = new ArrayList<>();
        try (Reader in = Files.newBufferedReader(ROOT.resolve(file))) {
            for (Object document : new Yaml().loadAll(in)) {
                documents.add(map(document));
            }
        }
        return documents;
    }

    private static String pom(String property) {
        try {
            Element root =
                    DocumentBuilderFactory.newInstance()
                            .newDocumentBuilder()
                            .parse(ROOT.resolve("pom.xml").toFile())
                            .getDocumentElement();
            Element properties = (Element) root.getElementsByTagName("properties").item(0);
            return properties.getElementsByTagName(property).item(0).getTextContent().trim();
        } catch (Exception e) {
            throw new AssertionError("reading pom.xml", e);
        }
    }

    private static Map<String, String> stringMap(Object yaml) {
        Map<String, String> strings = new HashMap<>();
        map(yaml).forEach((key, value) -> strings.put(key, String.valueOf(value)));
        return strings;
    }

    private static List<String> strings(Object yaml) {
        assertThat(yaml).isInstanceOf(List.class);
        List<String> strings = new ArrayList<>();
        ((List<?>) yaml).forEach(item -> strings.add(String.valueOf(item)));
        return strings;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object yaml) {
        assertThat(yaml).isInstanceOf(Map.class);
        return (Map<String, Object>) yaml;
    }
}
