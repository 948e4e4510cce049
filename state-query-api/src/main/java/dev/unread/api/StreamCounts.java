package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.MessageTypes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What one stream's client holds of its user's counts, and when they must be read again
 * (docs/contract.md, "Live push"): the API is the one producer of a stream's counts, since the
 * job's UNREAD_CHANGED leaves the channels out. A notice newer than what the counts held is a
 * reason to read them again with the recipe; what changed since the last message goes out as one
 * UNREAD_CHANGED under the API's version. A user with no channel is the exception: the job's
 * UNREAD_CHANGED then carries every change of the user's counts, so it is merged into what the
 * client holds, without a read, until a track change says the user may have a channel.
 *
 * <p>Notices come from the subscriber threads, reads from the counting pool: everything here is
 * guarded by this object's monitor. Notices that arrive while a read is under way, or before the
 * snapshot, make one read more after it, never one read each: close notices coalesce.
 */
final class StreamCounts {

    final long userId;

    /** The job's newest version the counts held or a notice announced. */
    private long jobVersion;

    /** Per channel, the newest index version the counts held or a notice announced. */
    private final Map<Long, Long> channelVersions = new HashMap<>();

    /** Each section as the client holds it, in the snapshot's form (marks as id → true). */
    private final Map<String, Object> held = new LinkedHashMap<>();

    private boolean started;

    /** A track change came before the snapshot. */
    private boolean trackNoticed;

    /**
     * The user had no channel when the counts were first read, and no track changed since: the
     * job's changes are all the changes of the counts.
     */
    private boolean channelFree;

    /** A notice asked for a read that has not begun. */
    private boolean due;

    /** A read is queued or under way: a new notice only sets {@link #due}. */
    private boolean reading;

    StreamCounts(long userId) {
        this.userId = userId;
    }

    /**
     * A job UNREAD_CHANGED of {@code version}, {@code message}. Of a user with no channel, while no
     * read is queued or under way, its changes are merged into what the client holds, and the
     * message of what changed goes out under the API's next version from {@code versions}; the
     * caller then holds the stream's one read slot until {@link #again}, so that no read's message
     * overtakes it. Otherwise, or when the message is not the job's, it asks for a read.
     */
    synchronized Job jobChanged(
            long version, JsonNode message, LongSupplier versions, ObjectMapper json) {
        if (version <= jobVersion) {
            return Job.NOTHING;
        }
        jobVersion = version;
        if (!channelFree || !started || reading) {
            return ask() ? Job.READ : Job.NOTHING;
        }
        Map<String, Object> merged = new LinkedHashMap<>();
        try {
            for (CountSection section : CountSection.ALL) {
                JsonNode change = message.get(section.name());
                Object before = held.get(section.name());
                merged.put(
                        section.name(), change == null ? before : section.merged(before, change));
            }
        } catch (IllegalArgumentException notTheJobs) {
            return ask() ? Job.READ : Job.NOTHING;
        }
        long next = versions.getAsLong();
        String changes = changes(merged, next, json);
        if (changes == null) {
            return Job.NOTHING;
        }
        reading = true;
        return new Job(false, new StreamClient.Message(true, next, changes));
    }

    /**
     * What a job UNREAD_CHANGED asks of the caller: queue a read, or deliver {@code message} and
     * then ask {@link #again}.
     */
    record Job(boolean read, StreamClient.Message message) {
        static final Job NOTHING = new Job(false, null);
        static final Job READ = new Job(true, null);
    }

    /**
     * A CHANNEL_CHANGED of {@code channelId} at index version {@code version}: not above the
     * version the counts held, it is in them.
     *
     * @return whether the caller must queue a read
     */
    synchronized boolean channelChanged(long channelId, long version) {
        Long known = channelVersions.get(channelId);
        if (known != null && version <= known) {
            return false;
        }
        channelVersions.put(channelId, version);
        return ask();
    }

    /**
     * The user's track changed, or a channel was subscribed after the counts were read.
     *
     * @return whether the caller must queue a read
     */
    synchronized boolean trackChanged() {
        trackNoticed |= !started;
        channelFree = false;
        return ask();
    }

    private boolean ask() {
        due = true;
        if (!started || reading) {
            return false;
        }
        reading = true;
        return true;
    }

    /**
     * The snapshot: read after the channels' versions {@code read} and holding the job's {@code
     * snapshot.version()}. A notice that came before it and may not be in it makes a read: a job
     * change above the snapshot's version, a channel's above the version read, a track change.
     *
     * @return the snapshot's message under {@code version}, and whether a read must be queued
     */
    synchronized Start start(
            CountAnswers.Snapshot snapshot, Map<Long, Long> read, long version, ObjectMapper json) {
        boolean missing =
                due
                        && (jobVersion > snapshot.version()
                                || trackNoticed
                                || channelVersions.entrySet().stream()
                                        .anyMatch(
                                                e ->
                                                        e.getValue()
                                                                > read.getOrDefault(
                                                                        e.getKey(), 0L)));
        jobVersion = Math.max(jobVersion, snapshot.version());
        read.forEach((channel, at) -> channelVersions.merge(channel, at, Math::max));
        hold(snapshot.counts());
        channelFree = read.isEmpty() && !trackNoticed;
        started = true;
        due = missing;
        reading = missing;
        return new Start(
                new CountAnswers.Snapshot(version, snapshot.counts()).message(json), missing);
    }

    record Start(String message, boolean read) {}

    /** The counting task begins a read: notices from now on make another. */
    synchronized void reading() {
        due = false;
    }

    /**
     * The read's result: the message of what changed since the last, under {@code version}, or null
     * when nothing did.
     */
    synchronized String changes(CountAnswers.Snapshot read, long version, ObjectMapper json) {
        jobVersion = Math.max(jobVersion, read.version());
        Map<String, Object> now = new LinkedHashMap<>();
        for (CountSection section : CountSection.ALL) {
            now.put(
                    section.name(),
                    section.inSnapshot(read.counts().sections().get(section.name())));
        }
        return changes(now, version, json);
    }

    /**
     * The message that brings the client from what it holds to {@code now}, which it then holds.
     */
    private String changes(Map<String, Object> now, long version, ObjectMapper json) {
        ObjectNode message =
                json.createObjectNode()
                        .put("type", MessageTypes.UNREAD_CHANGED)
                        .put("userId", userId)
                        .put("version", version);
        boolean changed = false;
        for (CountSection section : CountSection.ALL) {
            Object after = now.get(section.name());
            JsonNode diff = diff(held.get(section.name()), after, json);
            if (diff != null) {
                message.set(section.name(), diff);
                changed = true;
            }
            held.put(section.name(), after);
        }
        return changed ? message.toString() : null;
    }

    /**
     * The read is done: true when a notice came meanwhile and the caller must read again; else
     * reading ends.
     */
    synchronized boolean again() {
        if (due) {
            return true;
        }
        reading = false;
        return false;
    }

    private void hold(CountAnswers.UserUnread counts) {
        for (CountSection section : CountSection.ALL) {
            held.put(section.name(), section.inSnapshot(counts.sections().get(section.name())));
        }
    }

    /**
     * What the client must be told to go from {@code before} to {@code now}: a number when it
     * changed; of an object, the entries that changed, and those that went away as 0 (false for a
     * mark). Null when nothing changed.
     */
    private static JsonNode diff(Object before, Object now, ObjectMapper json) {
        if (!(now instanceof Map<?, ?> after)) {
            return Objects.equals(before, now) ? null : json.valueToTree(now);
        }
        Map<?, ?> old = before instanceof Map<?, ?> map ? map : Map.of();
        ObjectNode changed = json.createObjectNode();
        after.forEach(
                (key, value) -> {
                    if (!Objects.equals(old.get(key), value)) {
                        changed.set(key.toString(), json.valueToTree(value));
                    }
                });
        old.forEach(
                (key, value) -> {
                    if (!after.containsKey(key)) {
                        changed.set(
                                key.toString(),
                                json.valueToTree(value instanceof Boolean ? false : 0L));
                    }
                });
        return changed.isEmpty() ? null : changed;
    }
}
