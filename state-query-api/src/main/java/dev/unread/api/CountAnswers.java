package dev.unread.api;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.MessageTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
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

    /** One user's keys queued on a pipeline: each {@link CountSection}'s. */
    static final class UserReads {
        final long userId;
        private final List<Supplier<Object>> sections = new ArrayList<>(CountSection.ALL.size());

        UserReads(AbstractPipeline pipeline, String keyPrefix, long userId) {
            this.userId = userId;
            for (CountSection section : CountSection.ALL) {
                sections.add(section.read(pipeline, keyPrefix, userId));
            }
        }

        /**
         * The answer, once the pipeline synced.
         *
         * @throws JedisDataException when a key is of another type
         * @throws NumberFormatException when a field or value is not the job's
         */
        UserUnread answer() {
            Map<String, Object> answered = new LinkedHashMap<>();
            for (int i = 0; i < sections.size(); i++) {
                answered.put(CountSection.ALL.get(i).name(), sections.get(i).get());
            }
            return new UserUnread(userId, answered);
        }
    }
}
