package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientPropertiesTest {

    @TempDir Path dir;

    @Test
    void aClientPropertiesFileIsReadWithItsProviderReferencesUnresolved() throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "# as Kafka's own client.properties",
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "config.providers=env",
                        "config.providers.env.class="
                                + "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule \\",
                        "  required username=\"unread\" password=\"${env:KAFKA_PASSWORD}\";"));

        Map<String, String> settings = KafkaClientProperties.load(file.toString());

        assertThat(settings)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required"
                                + " username=\"unread\" password=\"${env:KAFKA_PASSWORD}\";")
                .hasSize(5);
        assertThat(KafkaClientProperties.load("")).isEmpty();
    }

    @Test
    void keysTheJobSetsItselfAreRefusedByNameWithoutTheirValues() throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "bootstrap.servers=secret-host:9092\ngroup.id=g\nlinger.ms=5\n");

        assertThatThrownBy(() -> KafkaClientProperties.load(file.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[bootstrap.servers, group.id]")
                .hasMessageContaining("--kafka-bootstrap")
                .hasMessageNotContaining("secret-host");
        assertThatThrownBy(() -> KafkaClientProperties.load(dir.resolve("none").toString()))
                .hasMessage("no Kafka properties file " + dir.resolve("none"));
    }

    @Test
    void passwordsKeysAndJaasConfigurationsAreMaskedAndTheRestShown() {
        Map<String, String> settings =
                Map.of(
                        "security.protocol", "SASL_SSL",
                        "sasl.jaas.config", "ScramLoginModule required password=\"hunter2\";",
                        "ssl.truststore.password", "hunter3",
                        "ssl.key.password", "hunter4",
                        "ssl.keystore.key", "-----BEGIN PRIVATE KEY-----",
                        "ssl.keystore.location", "/etc/kafka/keystore.p12",
                        "sasl.oauthbearer.client.credentials.client.secret", "hunter5");

        String masked = KafkaClientProperties.masked(settings);

        assertThat(masked)
                .doesNotContain("hunter", "PRIVATE")
                .contains(
                        "security.protocol=SASL_SSL",
                        "sasl.jaas.config=***",
                        "ssl.truststore.password=***",
                        "ssl.keystore.key=***",
                        "ssl.keystore.location=/etc/kafka/keystore.p12");
    }
}
