package dev.unread.api;

/**
 * A call to Redis, MySQL or Kafka failed or did not answer in time: the request gets 503 and the
 * dependency's error counter goes up. The cause is logged, never sent to the client.
 */
final class DependencyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    static final String REDIS = "redis";
    static final String MYSQL = "mysql";
    static final String KAFKA = "kafka";

    final String dependency;

    /** True when the dependency answers but is set up otherwise than the settings say. */
    final boolean misconfigured;

    DependencyException(String dependency, Throwable cause) {
        super(dependency + " unavailable", cause);
        this.dependency = dependency;
        this.misconfigured = false;
    }

    private DependencyException(String dependency, String problem, Throwable cause) {
        super(problem, cause);
        this.dependency = dependency;
        this.misconfigured = true;
    }

    /**
     * {@code dependency} answers but not as the settings expect; {@code problem} says which setting
     * to change, in words for the operator, and is what the caller gets.
     */
    static DependencyException misconfigured(String dependency, String problem, Throwable cause) {
        return new DependencyException(dependency, problem, cause);
    }
}
