package dev.unread.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 made by the JDK's own {@code keytool}: the server's
 * keystore and a truststore holding only that certificate, both PKCS12 under one random password. A
 * client that trusts it verifies the server's name as it would in production.
 */
public record TestCertificate(
        Path keystore, Path truststore, Path certificatePem, String password) {

    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    /** Makes the three files in {@code dir}. */
    public static TestCertificate create(Path dir) throws IOException, InterruptedException {
        String password = "store-" + UUID.randomUUID();
        Path keystore = dir.resolve("server.p12");
        Path pem = dir.resolve("server.pem");
        Path truststore = dir.resolve("truststore.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=ip:127.0.0.1,dns:localhost",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                password,
                "-keypass",
                password);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "server",
                "-keystore",
                keystore.toString(),
                "-storepass",
                password,
                "-file",
                pem.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "server",
                "-file",
                pem.toString(),
                "-storetype",
                "PKCS12",
                "-keystore",
                truststore.toString(),
                "-storepass",
                password);
        return new TestCertificate(keystore, truststore, pem, password);
    }

    @Override
    public String toString() {
        // A record's own toString would show the password.
        return "TestCertificate{" + keystore + ", " + truststore + "}";
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("keytool " + args[0] + " did not finish");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + args[0] + " failed: " + output);
        }
    }
}
