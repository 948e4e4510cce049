package dev.unread.api;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/** Publishes read events to the reads topic, keyed by user, as chat servers would. */
final class KafkaReads implements AutoCloseable {

    private final KafkaProducer<String, String> producer;
    private final Admin admin;
    private final String topic;
    private final int timeoutMs;
    private final int healthTimeoutMs;

    KafkaReads(ApiConfig config, int healthTimeoutMs) {
        // SASL, TLS and timeouts first, so that the settings below win over the file's.
        Properties p = new Properties();
        p.putAll(config.kafkaProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "unread-api");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // Bound every wait by the timeout: metadata (broker down) and the acknowledgement.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, config.timeoutMs);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, config.timeoutMs);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, config.timeoutMs + 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        this.producer = new KafkaProducer<>(p);

        Properties a = new Properties();
        a.putAll(config.kafkaProperties);
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap);
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, "unread-api-health");
        a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, healthTimeoutMs);
        a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, healthTimeoutMs);
        this.admin = Admin.create(a);
        this.topic = config.readsTopic;
        this.timeoutMs = config.timeoutMs;
        this.healthTimeoutMs = healthTimeoutMs;
    }

    /**
     * Returns once the broker has acknowledged {@code json} on all in-sync replicas, so that a 202
     * means the event is durable. On a 503 the event may still arrive later; read events are
     * idempotent (cursors only move forward), so a client may simply retry.
     */
    void publish(long userId, String json) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            producer.send(new ProducerRecord<>(topic, Long.toString(userId), json))
                    .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new DependencyException(DependencyException.KAFKA, e.getCause());
        } catch (TimeoutException | KafkaException e) {
            throw new DependencyException(DependencyException.KAFKA, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DependencyException(DependencyException.KAFKA, e);
        }
    }

    /** Asks the cluster for its id: answers only when a broker is reachable. */
    void ping() {
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(healthTimeoutMs))
                    .clusterId()
                    .get(healthTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new DependencyException(DependencyException.KAFKA, e.getCause());
        } catch (TimeoutException | KafkaException e) {
            throw new DependencyException(DependencyException.KAFKA, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DependencyException(DependencyException.KAFKA, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofMillis(timeoutMs));
        admin.close(Duration.ofMillis(timeoutMs));
    }
}
