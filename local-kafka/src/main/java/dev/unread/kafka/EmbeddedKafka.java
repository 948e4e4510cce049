package dev.unread.kafka;

import dev.unread.contract.DeadLetters;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Apache Kafka's own broker in this JVM: one combined broker and KRaft controller, listening on
 * 127.0.0.1 only. {@code bin/unread local} and the tests use it.
 *
 * <p>It runs {@link KafkaRaftServer}, the server {@code kafka-server-start.sh} runs, with a
 * generated configuration, instead of the test kit's {@code KafkaClusterTestKit}: the kit binds its
 * listeners to the wildcard address on random ports, and the local stack must neither be reachable
 * from the network nor move off port 9092.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Partitions of each of the job's topics: enough to spread keys over a few subtasks. */
    public static final int PARTITIONS = 4;

    /**
     * The largest record batch the broker and the input topics accept: producers may publish
     * records of a few MiB, the ones the job refuses as oversized. The dead-letter topic accepts
     * more, {@link DeadLetters#MAX_LETTER_BYTES}, so that such a record's letter, its bytes whole
     * plus headers, fits.
     */
    public static final int MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

    private static final String HOST = "127.0.0.1";
    private static final int START_ATTEMPTS = 5;
    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

    /**
     * A second listener that speaks SASL_SSL with SCRAM-SHA-512, as managed Kafka services do: TLS
     * from the certificate in {@code keystore} (PKCS12, one password for the store and its key) and
     * SCRAM {@code users} (name to password), whose credentials are written when the storage is
     * formatted, so they exist before the first client connects.
     *
     * <p>With this listener the broker authorizes as a secured cluster does: a user may do only
     * what an ACL grants it, and with no ACL on a topic or group nobody may use it. The plaintext
     * and controller listeners authenticate nobody, so their clients are {@link #SUPER_USER}, which
     * may do anything: the broker's own traffic, and setup and read-back on 127.0.0.1.
     */
    public record SaslSslListener(
            Path keystore, String keystorePassword, Map<String, String> users) {

        public static final String MECHANISM = "SCRAM-SHA-512";

        /** The principal of every client of the listeners without authentication. */
        public static final String SUPER_USER = "User:ANONYMOUS";

        public SaslSslListener {
            users = Map.copyOf(users);
        }

        @Override
        public String toString() {
            // A record's own toString would show the passwords.
            return "SaslSslListener{keystore=" + keystore + ", users=" + users.keySet() + "}";
        }
    }

    private final KafkaConfig config;
    private final Path dataDir;
    private final int port;

    /** 0: no SASL_SSL listener. */
    private final int saslSslPort;

    /** Replaced by {@link #restart()}: a Kafka server object starts only once. */
    private KafkaRaftServer server;

    private EmbeddedKafka(
            KafkaRaftServer server, KafkaConfig config, Path dataDir, int port, int saslSslPort) {
        this.server = server;
        this.config = config;
        this.dataDir = dataDir;
        this.port = port;
        this.saslSslPort = saslSslPort;
    }

    /**
     * Formats a fresh data directory under the temp dir and starts the broker on {@code port}, or
     * on a free port when {@code port} is 0. Returns once the broker accepts clients.
     */
    public static EmbeddedKafka start(int port) throws Exception {
        return start(port, null);
    }

    /**
     * {@link #start(int)} with a SASL_SSL listener on a free port besides the plaintext one ({@link
     * #saslSslBootstrapServers()}) and ACLs enforced there; {@code saslSsl} null: none. The
     * plaintext listener stays, unrestricted, for the broker's own traffic and for tests that set
     * up topics and ACLs and read topics back.
     */
    public static EmbeddedKafka start(int port, SaslSslListener saslSsl) throws Exception {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Kafka port must be 0..65535, was " + port);
        }
        if (port != 0) {
            // Fail with a plain message rather than Kafka's bind error deep inside its start-up.
            ensureFree(port);
        }
        Path dataDir = TempDirs.create("unread-kafka-");
        Exception lastFailure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            // The controller's port must be known before start-up (the quorum lists it), so it
            // is picked free and then bound by Kafka; another process can take it in between,
            // which a retry on fresh ports resolves.
            int[] free = freePorts(3);
            int brokerPort = port != 0 ? port : free[0];
            int controllerPort = free[1];
            int saslSslPort = saslSsl == null ? 0 : free[2];
            Path nodeDir = dataDir.resolve("attempt-" + attempt);
            KafkaConfig config = config(nodeDir, brokerPort, controllerPort, saslSsl, saslSslPort);
            format(config, nodeDir, saslSsl);
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            try {
                server.startup();
                return new EmbeddedKafka(server, config, dataDir, brokerPort, saslSslPort);
            } catch (Exception e) {
                lastFailure = e;
                server.shutdown();
                server.awaitShutdown();
                if (!isBindFailure(e)) {
                    break;
                }
            }
        }
        delete(dataDir);
        throw new IllegalStateException("Kafka broker did not start", lastFailure);
    }

    /** {@code 127.0.0.1:port}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:port} of the SASL_SSL listener. */
    public String saslSslBootstrapServers() {
        if (saslSslPort == 0) {
            throw new IllegalStateException("this broker was started without a SASL_SSL listener");
        }
        return HOST + ":" + saslSslPort;
    }

    /**
     * Creates the job's four topics with {@link #PARTITIONS} partitions each; the dead-letter topic
     * accepts letters up to {@link DeadLetters#MAX_LETTER_BYTES}. Topics that exist are left alone.
     */
    public void createTopics(
            String messagesTopic,
            String readsTopic,
            String conversationsTopic,
            String deadLetterTopic) {
        createTopic(messagesTopic, PARTITIONS, Map.of());
        createTopic(readsTopic, PARTITIONS, Map.of());
        createTopic(conversationsTopic, PARTITIONS, Map.of());
        createTopic(
                deadLetterTopic,
                PARTITIONS,
                Map.of("max.message.bytes", String.valueOf(DeadLetters.MAX_LETTER_BYTES)));
    }

    /**
     * Creates {@code topic} unless it exists, and waits until every partition has a leader, so that
     * a producer's first send does not race the topic's creation.
     */
    public void createTopic(String topic, int partitions, Map<String, String> configs) {
        try (Admin admin = admin()) {
            try {
                admin.createTopics(
                                List.of(
                                        new NewTopic(topic, partitions, (short) 1)
                                                .configs(configs)))
                        .all()
                        .get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + topic, e.getCause());
                }
            }
            awaitLeaders(admin, topic);
            awaitServed(admin, Set.of(topic));
        } catch (ExecutionException e) {
            throw new IllegalStateException("topic " + topic + " is not served", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
    }

    /** An admin client of this broker; the caller closes it. */
    public Admin admin() {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    /**
     * Shuts the broker down as a broker process stops, and starts it again on the same ports from
     * the same data directory, so topics, records and committed offsets survive: what a restart of
     * a real broker does to its clients. Returns once every partition is served again.
     */
    public void restart() {
        server.shutdown();
        server.awaitShutdown();
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        awaitPartitionsServed();
    }

    /** Waits until the broker leads every partition again, as {@link #awaitServed} says. */
    private void awaitPartitionsServed() {
        try (Admin admin = admin()) {
            awaitServed(admin, admin.listTopics().names().get());
        } catch (ExecutionException e) {
            throw new IllegalStateException("Kafka broker did not serve after restart", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting Kafka", e);
        }
    }

    /**
     * Returns once the broker serves every partition of {@code topics} as their leader. A leader in
     * the metadata comes before the partition is handed its leader epoch, after a restart and after
     * a topic's creation alike, and an idempotent producer whose first batch to a partition is
     * refused then (NOT_LEADER_OR_FOLLOWER) while its second is taken can be stuck with
     * OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout. Listing offsets is answered only by
     * a partition's leader, and the admin client retries it until it is.
     */
    private static void awaitServed(Admin admin, Set<String> topics)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        for (TopicDescription topic : admin.describeTopics(topics).allTopicNames().get().values()) {
            for (TopicPartitionInfo partition : topic.partitions()) {
                partitions.put(
                        new TopicPartition(topic.name(), partition.partition()),
                        OffsetSpec.latest());
            }
        }
        admin.listOffsets(partitions).all().get();
    }

    /** Stops the broker and deletes its data. */
    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        delete(dataDir);
    }

    private void awaitLeaders(Admin admin, String topic) throws InterruptedException {
        long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
        while (true) {
            try {
                TopicDescription description =
                        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                if (description.partitions().stream()
                        .map(TopicPartitionInfo::leader)
                        .allMatch(leader -> leader != null && !leader.isEmpty())) {
                    return;
                }
            } catch (ExecutionException e) {
                // Not yet in the broker's metadata; try again until the deadline.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "topic " + topic + " has no leaders after " + TOPIC_TIMEOUT);
            }
            Thread.sleep(50);
        }
    }

    private static KafkaConfig config(
            Path nodeDir,
            int brokerPort,
            int controllerPort,
            SaslSslListener saslSsl,
            int saslSslPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
        String listeners =
                listener("PLAINTEXT", brokerPort) + "," + listener("CONTROLLER", controllerPort);
        String advertised = listener("PLAINTEXT", brokerPort);
        String protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
        if (saslSsl != null) {
            listeners += "," + listener("SASL_SSL", saslSslPort);
            advertised += "," + listener("SASL_SSL", saslSslPort);
            protocols += ",SASL_SSL:SASL_SSL";
            String prefix = "listener.name.sasl_ssl.";
            p.put(prefix + "sasl.enabled.mechanisms", SaslSslListener.MECHANISM);
            p.put(
                    prefix
                            + SaslSslListener.MECHANISM.toLowerCase(Locale.ROOT)
                            + ".sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            p.put(prefix + "ssl.keystore.type", "PKCS12");
            p.put(prefix + "ssl.keystore.location", saslSsl.keystore().toString());
            p.put(prefix + "ssl.keystore.password", saslSsl.keystorePassword());
            p.put(prefix + "ssl.key.password", saslSsl.keystorePassword());
            // KRaft's authorizer, with ACLs in the metadata log: a SCRAM user gets what an ACL
            // grants and nothing else, as on a managed Kafka.
            p.put(
                    "authorizer.class.name",
                    "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("allow.everyone.if.no.acl.found", "false");
            p.put("super.users", SaslSslListener.SUPER_USER);
        }
        p.put("listeners", listeners);
        p.put("advertised.listeners", advertised);
        p.put("listener.security.protocol.map", protocols);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", nodeDir.toString());
        // One broker: every internal topic has a single replica.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("num.partitions", String.valueOf(PARTITIONS));
        // Topics come from createTopics: a misspelt topic name fails instead of appearing empty.
        p.put("auto.create.topics.enable", "false");
        p.put("message.max.bytes", String.valueOf(MAX_MESSAGE_BYTES));
        p.put("replica.fetch.max.bytes", String.valueOf(MAX_MESSAGE_BYTES));
        p.put("group.initial.rebalance.delay.ms", "0");
        // A laptop or CI runner, not a production host: few threads, small buffers.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        return KafkaConfig.fromProps(p, false);
    }

    private static String listener(String name, int port) {
        return name + "://" + HOST + ":" + port;
    }

    /** What {@code kafka-storage.sh format} does, with the newest production metadata version. */
    private static void format(KafkaConfig config, Path nodeDir, SaslSslListener saslSsl)
            throws Exception {
        Files.createDirectories(nodeDir);
        List<String> scram =
                saslSsl == null
                        ? List.of()
                        : saslSsl.users().entrySet().stream()
                                .map(
                                        user ->
                                                SaslSslListener.MECHANISM
                                                        + "=[name="
                                                        + user.getKey()
                                                        + ",password="
                                                        + user.getValue()
                                                        + "]")
                                .toList();
        new Formatter()
                .setScramArguments(scram)
                .setNodeId(config.nodeId())
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(nodeDir.toString()))
                .setMetadataLogDirectory(nodeDir.toString())
                .setControllerListenerName("CONTROLLER")
                .setReleaseVersion(MetadataVersion.latestProduction())
                .setHasDynamicQuorum(false)
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .run();
    }

    private static void delete(Path dir) {
        try {
            TempDirs.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private static void ensureFree(int port) throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
        } catch (BindException e) {
            throw new IllegalArgumentException(
                    "port " + port + " on " + HOST + " is in use; is another Kafka running?", e);
        }
    }

    /**
     * {@code n} distinct ports of {@link #HOST} free now: each socket stays bound until all are
     * picked, so the system cannot hand the same port out twice (one picked and closed at a time,
     * the broker and controller listeners once got the same port, which Kafka refuses).
     */
    static int[] freePorts(int n) throws IOException {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getByName(HOST));
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                if (socket != null) {
                    socket.close();
                }
            }
        }
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException
                    || String.valueOf(t.getMessage()).contains("failed to bind")) {
                return true;
            }
        }
        return false;
    }
}
