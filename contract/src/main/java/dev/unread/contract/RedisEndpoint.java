package dev.unread.contract;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Where the job, the API and the tools find Redis (docs/contract.md, "Settings"): one node named by
 * {@link Settings#REDIS_URL}, or a Redis Cluster named by the seed nodes of {@link
 * Settings#REDIS_CLUSTER_NODES}; the URL then still gives the user, the password and TLS. The URL
 * is read by Jedis' own {@link JedisURIHelper}: {@code redis[s]://[[user]:password@]host[:port]
 * [/db]}, user and password percent-encoded. TLS ({@code rediss://}) checks the server's
 * certificate and host name against the JVM's trusted CAs, or only against the PEM file of {@link
 * Settings#REDIS_CA_FILE} when one is given.
 */
public final class RedisEndpoint {

    private static final int DEFAULT_PORT = 6379;
    private static final String SYNTAX =
            "redis://[[user]:password@]host:port/db, or rediss:// for TLS";

    /** Holds the password: never in a message or a log line. */
    private final URI uri;

    /** Empty for one node. */
    private final Set<HostAndPort> clusterNodes;

    /** Null: the JVM's trusted CAs. */
    private final Path caFile;

    private RedisEndpoint(URI uri, Set<HostAndPort> clusterNodes, Path caFile) {
        this.uri = uri;
        this.clusterNodes = clusterNodes;
        this.caFile = caFile;
    }

    /**
     * Checks and keeps the three settings; empty {@code clusterNodes} or {@code caFile} mean none.
     *
     * @throws IllegalArgumentException naming what is wrong, never echoing a password
     */
    public static RedisEndpoint of(String url, String clusterNodes, String caFile) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw invalid(url, "not a URL");
        }
        if (!JedisURIHelper.isRedisScheme(uri) && !JedisURIHelper.isRedisSSLScheme(uri)) {
            throw invalid(url, "the scheme must be redis:// or rediss:// (TLS)");
        }
        if (uri.getHost() == null) {
            throw invalid(url, "no host");
        }
        if (uri.getRawUserInfo() != null && !uri.getRawUserInfo().contains(":")) {
            // Jedis would take it for a password-less user; a bare secret is a password.
            throw invalid(url, "write the password as :password@ or user:password@");
        }
        int database;
        try {
            database = JedisURIHelper.getDBIndex(uri);
        } catch (NumberFormatException e) {
            database = -1;
        }
        if (database < 0) {
            throw invalid(url, "the path must be a database number such as /0");
        }
        Set<HostAndPort> nodes = nodes(clusterNodes);
        if (!nodes.isEmpty() && database != 0) {
            throw invalid(url, "a Redis Cluster has database 0 only");
        }
        Path ca = caFile == null || caFile.isBlank() ? null : Path.of(caFile.trim());
        if (ca != null && !Files.isReadable(ca)) {
            throw new IllegalArgumentException("Redis CA file " + ca + " is not readable");
        }
        return new RedisEndpoint(uri, nodes, ca);
    }

    /** {@code host:port,host:port}, as {@link Settings#REDIS_CLUSTER_NODES} takes them. */
    private static Set<HostAndPort> nodes(String list) {
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        if (list == null) {
            return nodes;
        }
        for (String node : list.split(",")) {
            if (node.isBlank()) {
                continue;
            }
            try {
                nodes.add(HostAndPort.from(node.trim()));
            } catch (RuntimeException e) {
                // Jedis' parser throws whatever its string handling threw.
                throw new IllegalArgumentException(
                        "Redis cluster node must be host:port, was " + node.trim());
            }
        }
        return nodes;
    }

    public boolean isCluster() {
        return !clusterNodes.isEmpty();
    }

    /**
     * What is wrong when this endpoint names one node and that node belongs to a Redis Cluster;
     * null when nothing is. Such a node answers MOVED for every key outside its slots, so every
     * read and write would fail: say which setting is missing instead. {@code infoCluster} reads
     * that node's {@code INFO cluster}, on whichever client the caller holds; an ACL user that may
     * not run {@code INFO} (no {@code @dangerous}) leaves nothing to say, and a MOVED still names
     * the setting at the first key the node does not hold.
     */
    public String clusterMismatch(Supplier<String> infoCluster) {
        if (isCluster()) {
            return null;
        }
        try {
            return infoCluster.get().contains("cluster_enabled:1") ? clusterNodeAsSingle() : null;
        } catch (JedisDataException refused) {
            return null;
        }
    }

    /** The words for a single-node endpoint that turned out to be a node of a Redis Cluster. */
    public String clusterNodeAsSingle() {
        return node() + " is a Redis Cluster node: set " + Settings.REDIS_CLUSTER_NODES.env();
    }

    /** The seed nodes of the cluster, empty for one node. */
    public Set<HostAndPort> clusterNodes() {
        return clusterNodes;
    }

    /** The one node of the URL (with a cluster: not used). */
    public HostAndPort node() {
        return new HostAndPort(uri.getHost(), uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort());
    }

    public boolean tls() {
        return JedisURIHelper.isRedisSSLScheme(uri);
    }

    /** Settings for connections to this Redis, named {@code clientName} in CLIENT LIST. */
    public JedisClientConfig clientConfig(String clientName, int timeoutMs) {
        return clientConfigBuilder(clientName, timeoutMs).build();
    }

    /** {@link #clientConfig}, for a caller that changes a setting before building it. */
    public DefaultJedisClientConfig.Builder clientConfigBuilder(String clientName, int timeoutMs) {
        DefaultJedisClientConfig.Builder config =
                DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(timeoutMs)
                        .socketTimeoutMillis(timeoutMs)
                        .database(JedisURIHelper.getDBIndex(uri))
                        .clientName(clientName)
                        // The server's default protocol (RESP2 unless it says otherwise), as
                        // every command here expects; left to auto-negotiation, Jedis warns on
                        // every connection that it cannot negotiate RESP3 and falls back to this
                        // anyway (RedisCountsTest#openingTheConnectionLogsNoWarningFromJedis).
                        .serverDefaultProtocol();
        String password = JedisURIHelper.getPassword(uri);
        if (password != null) {
            config.user(JedisURIHelper.getUser(uri)).password(password);
        }
        if (tls()) {
            // Jedis checks no host name unless asked to: a certificate alone is not enough.
            SSLParameters checkHostName = new SSLParameters();
            checkHostName.setEndpointIdentificationAlgorithm("HTTPS");
            config.ssl(true).sslParameters(checkHostName);
            if (caFile != null) {
                config.sslSocketFactory(trusting(caFile));
            }
        }
        return config;
    }

    /**
     * A pooled client of this Redis: a {@link RedisClusterClient} on a cluster (it follows MOVED
     * and ASK redirections by itself), else a {@link RedisClient}.
     */
    public UnifiedJedis client(String clientName, int timeoutMs, ConnectionPoolConfig pool) {
        if (isCluster()) {
            return clusterClient(clientName, timeoutMs, pool);
        }
        return RedisClient.builder()
                .hostAndPort(node())
                .clientConfig(clientConfig(clientName, timeoutMs))
                .poolConfig(pool)
                .build();
    }

    /** A pooled client of the cluster; it learns the slot map from the first seed that answers. */
    public RedisClusterClient clusterClient(
            String clientName, int timeoutMs, ConnectionPoolConfig pool) {
        if (!isCluster()) {
            throw new IllegalStateException("no Redis cluster nodes are set");
        }
        return RedisClusterClient.builder()
                .nodes(clusterNodes)
                .clientConfig(clientConfig(clientName, timeoutMs))
                .poolConfig(pool)
                .build();
    }

    /**
     * One connection to the node of the URL, for callers that pipeline on it themselves.
     *
     * @throws IllegalStateException on a cluster, where one connection cannot reach every key
     */
    public Jedis connect(String clientName, int timeoutMs) {
        if (isCluster()) {
            throw new IllegalStateException("one connection cannot reach every key of a cluster");
        }
        return new Jedis(node(), clientConfig(clientName, timeoutMs));
    }

    /** Sockets that trust exactly the CA certificates of the PEM file {@code caFile}. */
    private static SSLSocketFactory trusting(Path caFile) {
        try (InputStream in = Files.newInputStream(caFile)) {
            Collection<? extends Certificate> cas =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (cas.isEmpty()) {
                throw new IllegalArgumentException(
                        "Redis CA file " + caFile + " holds no certificate");
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate ca : cas) {
                trusted.setCertificateEntry("ca-" + i++, ca);
            }
            TrustManagerFactory trust =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, trust.getTrustManagers(), null);
            return tls.getSocketFactory();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("Redis CA file " + caFile + " unusable: " + e, e);
        }
    }

    private static IllegalArgumentException invalid(String url, String why) {
        // Everything before the @ may be a password, with or without a colon.
        String masked = url.replaceAll("//[^/@]*@", "//***@");
        return new IllegalArgumentException(
                "invalid Redis URL " + masked + ": " + why + " (expected " + SYNTAX + ")");
    }

    /** Without the password: {@code rediss://user:***@host:port/db} or {@code ...@cluster[...]}. */
    @Override
    public String toString() {
        String user = JedisURIHelper.getUser(uri);
        String auth = uri.getRawUserInfo() == null ? "" : (user == null ? "" : user) + ":***@";
        return uri.getScheme()
                + "://"
                + auth
                + (isCluster()
                        ? "cluster" + clusterNodes
                        : node() + "/" + JedisURIHelper.getDBIndex(uri));
    }
}
