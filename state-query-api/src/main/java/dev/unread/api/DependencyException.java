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

    DependencyException(String dependency, Throwable cause) {
        super(dependency + " unavailable", cause);
        this.dependency = dependency;
    }
}
