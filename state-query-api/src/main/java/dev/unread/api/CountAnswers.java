package dev.unread.api;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.contract.TrackJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What the API answers from the counts the job keeps in Redis (docs/contract.md, "Redis"), and how
 * one user's keys become such an answer: queued on a pipeline, parsed once it synced.
 */
final class CountAnswers {

    private CountAnswers() {}

    /** One user's entry in an answer. */
    sealed interface UserAnswer permits UserUnread, Unreadable {}

    /**
     * What {@code GET /api/users/{userId}/unread} answers: the user's id, then each {@link
     * CountSection} by its name, in the catalog's order.
     */
    record UserUnread(long userId, Map<String, Object> sections) implements UserAnswer {

        @JsonValue
        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("userId", userId);
            json.putAll(sections);
            return json;
        }
    }

    /** A user whose counts in Redis cannot be read. */
    record Unreadable(long userId, String error) implements UserAnswer {
        static final String MESSAGE = "unreadable counts in Redis";
    }

    /** A user's counts and the version of the latest change they hold. */
    record Snapshot(long version, UserUnread counts) {

        /**
         * The first message of a live stream: as UNREAD_CHANGED carries marks (id → true or false),
         * so a client applies both alike.
         */
        String message(ObjectMapper json) {
            ObjectNode node =
                    json.createObjectNode()
                            .put("type", MessageTypes.SNAPSHOT)
                            .put("userId", counts.userId())
                            .put("version", version);
            for (CountSection section : CountSection.ALL) {
                node.set(
                        section.name(),
                        json.valueToTree(
                                section.inSnapshot(counts.sections().get(section.name()))));
            }
            return node.toString();
        }
    }

    /**
     * What {@code GET /api/conversations/{cid}/readers?seq=S} answers: how many participants have
     * read up to S or further, and up to {@link RedisUnread#MAX_READERS} of them, lowest cursor
     * first.
     */
    record ConversationReaders(long conversationId, long seq, long readCount, List<Long> readers) {}

    /**
     * One user's keys queued on a pipeline: each {@link CountSection}'s and the user's channel
     * tracks; then, on a second pipeline, the counting of the user's channels ({@link
     * ChannelCounts}).
     */
    static final class UserReads {
        final long userId;
        private final List<Supplier<Object>> sections = new ArrayList<>(CountSection.ALL.size());
        private final Response<Map<String, String>> trackHash;
        private TrackJson.Tracks tracks;
        private JedisDataException unreadableTracks;
        private ChannelCounts channels;

        UserReads(AbstractPipeline pipeline, String keyPrefix, long userId) {
            this.userId = userId;
            for (CountSection section : CountSection.ALL) {
                sections.add(section.read(pipeline, keyPrefix, userId));
            }
            trackHash = pipeline.hgetAll(RedisNames.channelTracksKey(keyPrefix, userId));
        }

        /**
         * Once the first pipeline synced: whether the user has channel tracks to count. A track
         * that is not the job's is left out and its field handed to {@code skipped}.
         */
        boolean hasChannels(TrackJson trackJson, Consumer<String> skipped) {
            try {
                tracks = trackJson.readAll(trackHash.get(), skipped);
            } catch (JedisDataException e) {
                unreadableTracks = e;
                return false;
            }
            return !tracks.channels().isEmpty();
        }

        /**
         * Queues the counting of the user's channels on the second pipeline.
         *
         * @return how many counting commands it queued
         */
        int countChannels(AbstractPipeline pipeline, String keyPrefix) {
            channels = new ChannelCounts(tracks, pipeline, keyPrefix);
            return channels.commands();
        }

        /**
         * The answer, once the pipelines synced; a channel or thread whose index keys are not the
         * job's is left out and its channel handed to {@code unreadable}.
         *
         * @throws JedisDataException when a key of the user is of another type
         * @throws NumberFormatException when a field or value is not the job's
         */
        UserUnread answer(LongConsumer unreadable) {
            Map<String, Object> answered = new LinkedHashMap<>();
            for (int i = 0; i < sections.size(); i++) {
                answered.put(CountSection.ALL.get(i).name(), sections.get(i).get());
            }
            if (unreadableTracks != null) {
                throw unreadableTracks;
            }
            if (channels != null) {
                ChannelSections.add(
                        answered,
                        channels.tracks(),
                        channels.channels(unreadable),
                        channels.threads(unreadable));
            }
            return new UserUnread(userId, answered);
        }
    }
}
