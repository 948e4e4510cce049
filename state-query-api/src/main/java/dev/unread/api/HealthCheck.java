package dev.unread.api;

/**
 * One more check for {@code GET /health}, besides Redis, MySQL and Kafka: the local stack adds "the
 * Flink job is RUNNING" this way.
 */
@FunctionalInterface
public interface HealthCheck {

    /**
     * Null when healthy, otherwise a short reason shown in {@code /health} (so no secrets). An
     * exception counts as unhealthy with a generic reason; it is logged, not shown.
     */
    String problem() throws Exception;

    /** The key of this check in {@code /health}'s {@code checks} object. */
    default String name() {
        return "extra";
    }

    static HealthCheck named(String name, HealthCheck check) {
        return new HealthCheck() {
            @Override
            public String problem() throws Exception {
                return check.problem();
            }

            @Override
            public String name() {
                return name;
            }
        };
    }
}
