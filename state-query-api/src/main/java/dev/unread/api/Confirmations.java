package dev.unread.api;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Per channel, the subscriptions sent and not yet confirmed, oldest first: Redis confirms the
 * subscriptions of one connection in the order they were sent, so a confirmation of a channel
 * belongs to the oldest one waiting on it. Not thread-safe: its owner calls it with its lock held.
 */
final class Confirmations {

    private final Map<String, ArrayDeque<CompletableFuture<Void>>> waiting = new HashMap<>();

    /**
     * A subscription of {@code channel} was sent; {@code confirmed} completes when Redis says so.
     */
    void expect(String channel, CompletableFuture<Void> confirmed) {
        waiting.computeIfAbsent(channel, c -> new ArrayDeque<>()).add(confirmed);
    }

    /** Redis confirmed a subscription of {@code channel}: completes the oldest one waiting. */
    void confirm(String channel) {
        ArrayDeque<CompletableFuture<Void>> queue = waiting.get(channel);
        if (queue == null) {
            return;
        }
        CompletableFuture<Void> oldest = queue.poll();
        if (queue.isEmpty()) {
            waiting.remove(channel);
        }
        if (oldest != null) {
            oldest.complete(null);
        }
    }

    /** No confirmation of {@code channel} will come: fails every subscription waiting on it. */
    void fail(String channel, Throwable failure) {
        ArrayDeque<CompletableFuture<Void>> queue = waiting.remove(channel);
        if (queue != null) {
            queue.forEach(f -> f.completeExceptionally(failure));
        }
    }

    /** The connection ended: fails every subscription waiting on any channel. */
    void failAll(Throwable failure) {
        waiting.values().forEach(queue -> queue.forEach(f -> f.completeExceptionally(failure)));
        waiting.clear();
    }
}
