package dev.unread.api;

import static dev.unread.api.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code GET /health} is open to anyone (issue 45 item 11): a flood of probes checks the
 * dependencies about once a second, not once per probe, and only the service token learns why a
 * check failed; anyone else sees UP or DOWN.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthProbesITCase {

    private static final String TOKEN = "service-token-0123456789";

    private final AtomicInteger checks = new AtomicInteger();
    private volatile String problem = "disk of 10.0.0.3 full";

    private TestStores stores;
    private StateQueryApi api;
    private Http http;

    @BeforeAll
    void startApi() throws Exception {
        stores = new TestStores();
        HealthCheck counted =
                HealthCheck.named(
                        "flink",
                        () -> {
                            checks.incrementAndGet();
                            return problem;
                        });
        api =
                StateQueryApi.start(
                        stores.config(KafkaBroker.createTopic()).token(TOKEN).build(), counted);
        http = new Http(api);
    }

    @AfterAll
    void stopApi() throws Exception {
        if (api != null) {
            api.close();
        }
        stores.close();
    }

    @Test
    void onlyTheServiceTokenLearnsWhyACheckFailed() throws Exception {
        problem = "disk of 10.0.0.3 full";
        for (String[] anonymous : new String[][] {{}, {"Authorization", "Bearer wrong"}}) {
            HttpResponse<String> down = http.get("/health", anonymous);
            assertThat(down.statusCode()).isEqualTo(503);
            JsonNode body = json(down);
            assertThat(body.get("checks").get("flink").asText()).isEqualTo("DOWN");
            assertThat(body.get("checks").get("redis").asText()).isEqualTo("UP");
            assertThat(body.get("error").asText()).isEqualTo("unavailable: flink");
            assertThat(down.body()).doesNotContain("10.0.0.3");
        }
        HttpResponse<String> told = http.get("/health", "Authorization", "Bearer " + TOKEN);
        assertThat(told.statusCode()).isEqualTo(503);
        assertThat(json(told).get("checks").get("flink").asText())
                .isEqualTo("DOWN: disk of 10.0.0.3 full");

        problem = null;
        Poll.until(() -> http.get("/health").statusCode() == 200);
    }

    @Test
    void aFloodOfProbesChecksTheDependenciesAboutOnceASecond() {
        http.get("/health");
        int before = checks.get();
        long started = System.nanoTime();
        int probes = 100;
        for (int i = 0; i < probes; i++) {
            assertThat(http.get("/health").statusCode()).isIn(200, 503);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        int ran = checks.get() - before;
        System.out.printf(
                "%d probes of /health in %.2f s ran the checks %d times%n", probes, seconds, ran);
        assertThat(ran).isLessThanOrEqualTo((int) Math.ceil(seconds) + 1);
    }
}
