package dev.unread.flinkguard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.flinkguard.ForeignPageGuard.Allowed;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.io.network.netty.InboundChannelHandlerFactory;
import org.junit.jupiter.api.Test;

/**
 * Which requests the guard lets through, for the configurations of the clusters the project starts;
 * {@code FlinkClusterWebUiITCase} and {@code LocalClusterWebUiITCase} send them to real
 * JobManagers.
 */
class ForeignPageGuardTest {

    private static final String UI = "http://127.0.0.1:8081";

    @Test
    void flinkFindsTheGuardThroughItsServiceFile() {
        assertThat(ServiceLoader.load(InboundChannelHandlerFactory.class).stream())
                .extracting(ServiceLoader.Provider::type)
                .containsExactly(ForeignPageGuard.class);
    }

    @Test
    void aPageOfAnotherOriginIsRefusedAndTheUisOwnPagesAndClientsWithoutOriginAreNot() {
        Allowed allowed = Allowed.of(conf(Map.of(RestOptions.ADDRESS.key(), "127.0.0.1")));

        assertThat(allowed.refusal("http://evil.example", "127.0.0.1:8081"))
                .isEqualTo("requests from the pages of http://evil.example are refused");
        // Same host, another port or scheme: another origin, another site's page.
        assertThat(allowed.refusal("http://127.0.0.1:8080", "127.0.0.1:8081")).isNotNull();
        assertThat(allowed.refusal("https://127.0.0.1:8081", "127.0.0.1:8081")).isNotNull();
        assertThat(allowed.refusal("null", "127.0.0.1:8081")).isNotNull();
        assertThat(allowed.refusal(UI, "127.0.0.1:8081")).isNull();
        assertThat(allowed.refusal(null, "127.0.0.1:8081")).isNull();
        assertThat(allowed.refusal(null, null)).isNull();
    }

    @Test
    void aHostThatIsNoneOfTheUisNamesIsRefusedWhateverItsCase() {
        Allowed allowed = Allowed.of(conf(Map.of(RestOptions.ADDRESS.key(), "JobManager")));

        assertThat(allowed.hosts())
                .containsExactlyInAnyOrder("127.0.0.1", "jobmanager", "localhost");
        assertThat(allowed.refusal(null, "rebound.example:8081"))
                .isEqualTo("requests for host rebound.example are refused");
        assertThat(allowed.refusal(null, "127.0.0.1.rebound.example:8081")).isNotNull();
        assertThat(allowed.refusal(null, "localhost.rebound.example")).isNotNull();
        assertThat(allowed.refusal(null, "[::1]:8081")).isNotNull();
        for (String host :
                List.of("jobmanager:8081", "JOBMANAGER", "LocalHost:8081", "127.0.0.1")) {
            assertThat(allowed.refusal(null, host)).as(host).isNull();
        }
    }

    /**
     * Flink's CLI reaches a JobManager at {@code jobmanager.rpc.address} when no REST one is set.
     */
    @Test
    void theRestAddressFallsBackToTheJobManagersAsFlinksClientsDo() {
        Allowed allowed = Allowed.of(conf(Map.of(JobManagerOptions.ADDRESS.key(), "jobmanager")));

        assertThat(allowed.hosts()).contains("jobmanager");
    }

    /**
     * On native Kubernetes the operator reaches the REST service {@code CLUSTER-ID-rest.NAMESPACE};
     * a browser the port-forward's address, the origin's host.
     */
    @Test
    void onKubernetesTheRestServiceIsOneOfTheNames() {
        Allowed allowed =
                Allowed.of(
                        conf(
                                Map.of(
                                        RestOptions.ADDRESS.key(), "10.1.2.3",
                                        ForeignPageGuard.KUBERNETES_CLUSTER_ID.key(), "unread",
                                        ForeignPageGuard.KUBERNETES_NAMESPACE.key(), "chat")));

        assertThat(allowed.hosts())
                .containsExactlyInAnyOrder(
                        "127.0.0.1", "10.1.2.3", "localhost", "unread-rest", "unread-rest.chat");
        assertThat(allowed.refusal(null, "unread-rest.chat:8081")).isNull();
        assertThat(allowed.refusal(null, "unread-rest.chat.evil.example:8081")).isNotNull();
    }

    /** Flink's default origin, {@code *}, is no page's: every page's origin is refused. */
    @Test
    void withFlinksDefaultOriginNoPageIsLetIn() {
        Allowed allowed = Allowed.of(new Configuration());

        assertThat(allowed.hosts()).containsExactly("localhost");
        assertThat(allowed.refusal(UI, "localhost:8081")).isNotNull();
        assertThat(allowed.refusal(null, "localhost:8081")).isNull();
    }

    private static Configuration conf(Map<String, String> entries) {
        Configuration conf = Configuration.fromMap(entries);
        conf.set(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN, UI);
        return conf;
    }
}
