package dev.unread.testing;

import dev.unread.local.RedisProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Redis that speaks only TLS and knows only an ACL user, per test class: Debian's {@code
 * redis-server} on a free port of 127.0.0.1 with {@code --tls-port} and no plain port, its
 * certificate for 127.0.0.1 signed by a CA the test makes with openssl, the {@code default} user
 * off and the user {@link #USER} with a password made per run.
 *
 * <pre>{@code
 * @RegisterExtension static final TlsRedisServer TLS = new TlsRedisServer();
 *
 * settings.put("redis-url", TLS.url());              // rediss://unread:...@127.0.0.1:port/0
 * settings.put("redis-ca-file", TLS.caFile().toString());
 * }</pre>
 */
public final class TlsRedisServer implements BeforeAllCallback, AfterAllCallback {

    public static final String USER = "unread";

    private final String password = UUID.randomUUID().toString();
    private Path dir;
    private RedisProcess redis;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = RedisProcess.tempDir("unread-redis-tls-");
        try {
            Path ca = dir.resolve("ca.pem");
            Path cert = dir.resolve("server.pem");
            Path key = dir.resolve("server.key");
            openssl(
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=unread test CA",
                    "-keyout",
                    dir.resolve("ca.key").toString(),
                    "-out",
                    ca.toString());
            openssl(
                    "req",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-subj",
                    "/CN=127.0.0.1",
                    "-keyout",
                    key.toString(),
                    "-out",
                    dir.resolve("server.csr").toString());
            Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
            openssl(
                    "x509",
                    "-req",
                    "-days",
                    "2",
                    "-in",
                    dir.resolve("server.csr").toString(),
                    "-CA",
                    ca.toString(),
                    "-CAkey",
                    dir.resolve("ca.key").toString(),
                    "-CAcreateserial",
                    "-extfile",
                    dir.resolve("san.ext").toString(),
                    "-out",
                    cert.toString());
            int port = RedisProcess.freePorts(1)[0];
            redis =
                    RedisProcess.start(
                            port,
                            dir.resolve("data"),
                            List.of(
                                    "--port",
                                    "0",
                                    "--tls-port",
                                    String.valueOf(port),
                                    "--tls-cert-file",
                                    cert.toString(),
                                    "--tls-key-file",
                                    key.toString(),
                                    "--tls-ca-cert-file",
                                    ca.toString(),
                                    "--tls-auth-clients",
                                    "no",
                                    "--user",
                                    "default",
                                    "off",
                                    "--user",
                                    USER,
                                    "on",
                                    ">" + password,
                                    "~*",
                                    "&*",
                                    "+@all"));
        } catch (Exception | AssertionError e) {
            afterAll(context);
            throw e;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (redis != null) {
            redis.close();
            redis = null;
        }
        RedisProcess.delete(dir);
        dir = null;
    }

    /** {@code rediss://unread:PASSWORD@127.0.0.1:PORT/0}. */
    public String url() {
        return url(password);
    }

    /** The URL with another password, for a wrong one. */
    public String url(String password) {
        return "rediss://" + USER + ":" + password + "@127.0.0.1:" + redis.port + "/0";
    }

    public String password() {
        return password;
    }

    /** The PEM file of the CA that signed the server's certificate. */
    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    private void openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
        if (process.waitFor() != 0) {
            throw new AssertionError("openssl " + args[0] + " failed: " + Files.readString(log));
        }
    }
}
