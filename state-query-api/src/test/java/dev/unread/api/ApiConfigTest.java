package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiConfigTest {

    private static final String TOKEN = "tok3n-of-16-chars";

    @Test
    void defaultsPointAtThisMachineWithoutAuthentication() {
        ApiConfig c = ApiConfig.fromEnv(Map.of());

        assertThat(c.host).isEqualTo("127.0.0.1");
        assertThat(c.port).isEqualTo(8080);
        assertThat(c.token).isNull();
        assertThat(c.timeoutMs).isEqualTo(5000);
        assertThat(c.redisUrl).isEqualTo("redis://127.0.0.1:6379/0");
        assertThat(c.redisKeyPrefix).isEmpty();
        assertThat(c.jdbcUrl).isEqualTo("jdbc:mysql://127.0.0.1:3306/test");
        assertThat(c.jdbcUser).isEqualTo("root");
        assertThat(c.jdbcPassword).isEmpty();
        assertThat(c.kafkaBootstrap).isEqualTo("127.0.0.1:9092");
        assertThat(c.readsTopic).isEqualTo("chat-reads");
    }

    @Test
    void everySettingComesFromItsEnvironmentVariable() {
        ApiConfig c =
                ApiConfig.fromEnv(
                        Map.ofEntries(
                                Map.entry("UNREAD_API_HOST", "0.0.0.0"),
                                Map.entry("UNREAD_API_PORT", "9000"),
                                Map.entry("UNREAD_API_TOKEN", TOKEN),
                                Map.entry("UNREAD_API_TIMEOUT_MS", "1500"),
                                Map.entry("UNREAD_REDIS_URL", "redis://:pw@redis:6380/2"),
                                Map.entry("UNREAD_REDIS_KEY_PREFIX", "p:"),
                                Map.entry("UNREAD_JDBC_URL", "jdbc:mysql://mysql:3306/unread"),
                                Map.entry("UNREAD_JDBC_USER", "unread"),
                                Map.entry("UNREAD_JDBC_PASSWORD", "dbpw"),
                                Map.entry("UNREAD_KAFKA_BOOTSTRAP", "kafka:9092"),
                                Map.entry("UNREAD_READS_TOPIC", "reads")));

        assertThat(c.host).isEqualTo("0.0.0.0");
        assertThat(c.port).isEqualTo(9000);
        assertThat(c.token).isEqualTo(TOKEN);
        assertThat(c.timeoutMs).isEqualTo(1500);
        assertThat(c.redisUrl).isEqualTo("redis://:pw@redis:6380/2");
        assertThat(c.redisKeyPrefix).isEqualTo("p:");
        assertThat(c.jdbcUrl).isEqualTo("jdbc:mysql://mysql:3306/unread");
        assertThat(c.jdbcUser).isEqualTo("unread");
        assertThat(c.jdbcPassword).isEqualTo("dbpw");
        assertThat(c.kafkaBootstrap).isEqualTo("kafka:9092");
        assertThat(c.readsTopic).isEqualTo("reads");
    }

    @Test
    void fromEnvReadsTheDeclaredVariablesAndNoOther() {
        // A map that notes every variable asked for: help lists the declared ones, so a setting
        // read but not declared would be missing from it.
        Set<Object> asked = new HashSet<>();
        Map<String, String> env =
                new HashMap<>() {
                    @Override
                    public String get(Object key) {
                        asked.add(key);
                        return super.get(key);
                    }

                    @Override
                    public String getOrDefault(Object key, String defaultValue) {
                        asked.add(key);
                        return super.getOrDefault(key, defaultValue);
                    }
                };

        ApiConfig.fromEnv(env);

        Set<String> declared = new HashSet<>(ApiConfig.SECRETS);
        ApiConfig.SETTINGS.forEach(setting -> declared.add(setting.env()));
        assertThat(asked).isEqualTo(declared);
    }

    @Test
    void withoutATokenTheApiListensOnLoopbackOnlyUnlessToldTheNetworkIsTrusted() {
        assertThatThrownBy(() -> ApiConfig.builder().host("0.0.0.0").build())
                .hasMessageContaining("UNREAD_API_OPEN_WITHOUT_AUTH=true");
        assertThatThrownBy(() -> ApiConfig.builder().host("10.1.2.3").build())
                .hasMessageContaining("UNREAD_API_TOKEN");
        assertThatThrownBy(() -> ApiConfig.builder().host("api.internal").build())
                .hasMessageContaining("UNREAD_API_TOKEN");
        for (String loopback : List.of("127.0.0.1", "127.9.9.9", "localhost", "::1", "[::1]")) {
            assertThat(ApiConfig.builder().host(loopback).build().host).isEqualTo(loopback);
        }
        assertThat(ApiConfig.builder().host("0.0.0.0").token(TOKEN).build().host)
                .isEqualTo("0.0.0.0");
        assertThat(
                        ApiConfig.fromEnv(
                                        Map.of(
                                                "UNREAD_API_HOST",
                                                "0.0.0.0",
                                                "UNREAD_API_OPEN_WITHOUT_AUTH",
                                                "true"))
                                .openWithoutAuth)
                .isTrue();
    }

    @Test
    void anEmptyTokenTurnsAuthenticationOff() {
        assertThat(ApiConfig.fromEnv(Map.of("UNREAD_API_TOKEN", "")).token).isNull();
        assertThat(ApiConfig.builder().token("").build().token).isNull();
    }

    @Test
    void toBuilderKeepsEverySettingAndChangesOnlyWhatIsSet() {
        ApiConfig a = ApiConfig.builder().port(1234).token(TOKEN).redisKeyPrefix("x:").build();

        ApiConfig b = a.toBuilder().port(0).build();

        assertThat(b.port).isZero();
        assertThat(b.token).isEqualTo(TOKEN);
        assertThat(b.redisKeyPrefix).isEqualTo("x:");
        assertThat(b.toString()).isEqualTo(a.toString().replace("1234", "0"));
    }

    @Test
    void badSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ApiConfig.fromEnv(Map.of("UNREAD_API_PORT", "http")))
                .hasMessageContaining("UNREAD_API_PORT");
        assertThatThrownBy(() -> ApiConfig.builder().port(70000).build())
                .hasMessageContaining("port");
        assertThatThrownBy(() -> ApiConfig.builder().timeoutMs(10).build())
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> ApiConfig.builder().redisUrl("127.0.0.1:6379").build())
                .hasMessageContaining("redis://");
        assertThatThrownBy(() -> ApiConfig.builder().jdbcUrl("jdbc:postgresql://x/y").build())
                .hasMessageContaining("jdbc:mysql:");
        assertThatThrownBy(() -> ApiConfig.builder().token("two words").build())
                .hasMessageContaining("token");
        assertThatThrownBy(() -> ApiConfig.builder().token("caf\u00e9").build())
                .hasMessageContaining("token");
        assertThatThrownBy(() -> ApiConfig.builder().token("fifteen-chars-x").build())
                .hasMessage("UNREAD_API_TOKEN must be at least 16 characters");
        assertThatThrownBy(() -> ApiConfig.builder().readsTopic(" ").build())
                .hasMessageContaining("reads topic");
    }

    @Test
    void kafkaClientSettingsComeFromTheFileTheEnvironmentNames(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file, "security.protocol=SASL_SSL\nsasl.jaas.config=x password=\"kpw\";\n");

        ApiConfig c = ApiConfig.fromEnv(Map.of("UNREAD_KAFKA_PROPERTIES", file.toString()));

        assertThat(c.kafkaProperties).containsEntry("security.protocol", "SASL_SSL").hasSize(2);
        assertThat(c.toBuilder().build().kafkaProperties).isEqualTo(c.kafkaProperties);
        assertThat(c.toString())
                .doesNotContain("kpw")
                .contains("kafkaProperties={sasl.jaas.config=***, security.protocol=SASL_SSL}");
        assertThat(ApiConfig.fromEnv(Map.of()).kafkaProperties).isEmpty();
    }

    @Test
    void toStringShowsNoSecrets() {
        String text =
                ApiConfig.builder()
                        .redisUrl("redis://:redispw@redis:6379/0")
                        .jdbcUrl("jdbc:mysql://db/x?user=u&password=urlpw&ssl=true")
                        .jdbcPassword("dbpw")
                        .token(TOKEN)
                        .build()
                        .toString();

        assertThat(text)
                .doesNotContain("redispw")
                .doesNotContain("dbpw")
                .doesNotContain(TOKEN)
                .doesNotContain("urlpw")
                .contains("password=***&ssl=true")
                .contains("redis://:***@redis:6379/0")
                .contains("auth=bearer token");
    }

    @Test
    void jwtKeysComeFromTheEnvironmentAndShowOnlyTheirKind() {
        String secret = "0123456789abcdef0123456789abcdef";
        ApiConfig c =
                ApiConfig.fromEnv(
                        Map.of("UNREAD_API_JWT_SECRET", secret, "UNREAD_API_TOKEN", TOKEN));

        assertThat(c.jwtSecret).isEqualTo(secret);
        assertThat(c.toString())
                .doesNotContain(secret)
                .doesNotContain(TOKEN)
                .contains("auth=bearer token + JWT HS256");
        String pem = Jwts.pem(Jwts.rsaKeys());
        ApiConfig rsa = ApiConfig.fromEnv(Map.of("UNREAD_API_JWT_PUBLIC_KEY", pem));
        assertThat(rsa.jwtPublicKey).isEqualTo(pem);
        assertThat(rsa.toString()).contains("auth=JWT RS256");
        assertThat(rsa.toBuilder().build().jwtPublicKey).isEqualTo(pem);
    }

    @Test
    void badJwtKeysAreRefusedWithoutShowingThem() {
        assertThatThrownBy(() -> ApiConfig.builder().jwtSecret("short-s3cret").build())
                .hasMessageContaining("UNREAD_API_JWT_SECRET")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> ApiConfig.builder().jwtPublicKey("not a key").build())
                .hasMessageContaining("PEM");
        assertThatThrownBy(
                        () ->
                                ApiConfig.builder()
                                        .jwtSecret("0123456789abcdef0123456789abcdef")
                                        .jwtPublicKey(Jwts.pem(Jwts.rsaKeys()))
                                        .build())
                .hasMessageContaining("both");
    }

    @Test
    void trustedProxiesAreAddressesOrCidrBlocksAndNeverNames() {
        ApiConfig c =
                ApiConfig.fromEnv(
                        Map.of("UNREAD_API_TRUSTED_PROXIES", " 10.0.0.0/8, fd00::/8 ,192.0.2.1"));
        assertThat(c.trustedProxies).containsExactly("10.0.0.0/8", "fd00::/8", "192.0.2.1");
        for (String bad : new String[] {"proxy.example", "10.0.0.0/33", "10.0.0.0/x", "::1/129"}) {
            assertThatThrownBy(() -> ApiConfig.fromEnv(Map.of("UNREAD_API_TRUSTED_PROXIES", bad)))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad);
        }
    }
}
