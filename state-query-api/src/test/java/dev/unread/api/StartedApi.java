package dev.unread.api;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An API started once for a test class on its own {@link TestStores} and a fresh reads topic of the
 * class's {@link KafkaBroker}, closed after the class: {@code @RegisterExtension static final
 * StartedApi API = StartedApi.with(c -> c.token(TOKEN));} beside
 * {@code @ExtendWith(KafkaBroker.class)}, which JUnit starts first.
 */
final class StartedApi implements BeforeAllCallback, AfterAllCallback {

    private final UnaryOperator<ApiConfig.Builder> settings;
    private TestStores stores;
    private String topic;
    private StateQueryApi api;
    private Http http;

    private StartedApi(UnaryOperator<ApiConfig.Builder> settings) {
        this.settings = settings;
    }

    /** An API with the stores' settings and then {@code settings}'s. */
    static StartedApi with(UnaryOperator<ApiConfig.Builder> settings) {
        return new StartedApi(settings);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        stores = new TestStores();
        topic = KafkaBroker.createTopic();
        api = StateQueryApi.start(settings.apply(stores.config(topic)).build());
        http = new Http(api);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (api != null) {
                api.close();
            }
        } finally {
            stores.close();
        }
    }

    TestStores stores() {
        return stores;
    }

    /** The reads topic the API publishes users' actions to. */
    String topic() {
        return topic;
    }

    StateQueryApi api() {
        return api;
    }

    Http http() {
        return http;
    }
}
