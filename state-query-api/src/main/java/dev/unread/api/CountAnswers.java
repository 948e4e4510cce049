package dev.unread.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.Count;
import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
     * What {@code GET /api/users/{userId}/unread} answers: distinct senders since the inbox was
     * last opened, unread messages, mentions and of these the channel-wide ones per conversation id
     * (absent: 0), the app-icon totals, the ids of the conversations marked unread, ascending, and
     * the unread replies, mentions and channel-wide mentions of each followed thread, keyed {@code
     * {conversationId}:{threadSeq}} (absent: 0).
     */
    record UserUnread(
            long userId,
            long unreadSenders,
            Map<Long, Long> conversations,
            Map<Long, Long> mentions,
            Map<Long, Long> channelMentions,
            Totals totals,
            List<Long> markedUnread,
            Map<String, Long> threads,
            Map<String, Long> threadMentions,
            Map<String, Long> threadChannelMentions)
            implements UserAnswer {}

    /** The app-icon totals of {@code unread:totals:{userId}}, 0 for an absent field. */
    record Totals(long messages, long mentions, long conversations, long threads) {}

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
                            .put("version", version)
                            .put(Count.SENDERS.section(), counts.unreadSenders());
            ObjectNode conversations = node.putObject(Count.CONVERSATION.section());
            counts.conversations().forEach((c, n) -> conversations.put(c.toString(), n));
            ObjectNode mentions = node.putObject(Count.MENTIONS.section());
            counts.mentions().forEach((c, n) -> mentions.put(c.toString(), n));
            ObjectNode channelMentions = node.putObject(Count.CHANNEL_MENTIONS.section());
            counts.channelMentions().forEach((c, n) -> channelMentions.put(c.toString(), n));
            node.putObject(Count.TOTAL_MESSAGES.section())
                    .put(Count.TOTAL_MESSAGES.totalField(), counts.totals().messages())
                    .put(Count.TOTAL_MENTIONS.totalField(), counts.totals().mentions())
                    .put(Count.TOTAL_CONVERSATIONS.totalField(), counts.totals().conversations())
                    .put(Count.TOTAL_THREADS.totalField(), counts.totals().threads());
            ObjectNode marked = node.putObject(Count.MARKED.section());
            counts.markedUnread().forEach(c -> marked.put(c.toString(), true));
            ObjectNode threads = node.putObject(Count.THREAD.section());
            counts.threads().forEach(threads::put);
            ObjectNode threadMentions = node.putObject(Count.THREAD_MENTIONS.section());
            counts.threadMentions().forEach(threadMentions::put);
            ObjectNode threadChannelMentions =
                    node.putObject(Count.THREAD_CHANNEL_MENTIONS.section());
            counts.threadChannelMentions().forEach(threadChannelMentions::put);
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
     * One user's keys queued on a pipeline: the badge, the conversation, mention and channel-wide
     * mention counts, the totals, the marked conversations and the followed threads' counts.
     */
    static final class UserReads {
        final long userId;
        final Response<String> senders;
        final Response<Map<String, String>> conversations;
        final Response<Map<String, String>> mentions;
        final Response<Map<String, String>> channelMentions;
        final Response<Map<String, String>> totals;
        final Response<Set<String>> marked;
        final Response<Map<String, String>> threads;
        final Response<Map<String, String>> threadMentions;
        final Response<Map<String, String>> threadChannelMentions;

        UserReads(AbstractPipeline pipeline, String keyPrefix, long userId) {
            this.userId = userId;
            senders = pipeline.get(Count.SENDERS.key(keyPrefix, userId));
            conversations = pipeline.hgetAll(Count.CONVERSATION.key(keyPrefix, userId));
            mentions = pipeline.hgetAll(Count.MENTIONS.key(keyPrefix, userId));
            channelMentions = pipeline.hgetAll(Count.CHANNEL_MENTIONS.key(keyPrefix, userId));
            totals = pipeline.hgetAll(Count.TOTAL_MESSAGES.key(keyPrefix, userId));
            marked = pipeline.smembers(Count.MARKED.key(keyPrefix, userId));
            threads = pipeline.hgetAll(Count.THREAD.key(keyPrefix, userId));
            threadMentions = pipeline.hgetAll(Count.THREAD_MENTIONS.key(keyPrefix, userId));
            threadChannelMentions =
                    pipeline.hgetAll(Count.THREAD_CHANNEL_MENTIONS.key(keyPrefix, userId));
        }

        /**
         * The answer, once the pipeline synced.
         *
         * @throws JedisDataException when a key is of another type
         * @throws NumberFormatException when a value is no count
         */
        UserUnread answer() {
            String badge = senders.get();
            Map<String, String> total = totals.get();
            List<Long> markedIds = new ArrayList<>();
            marked.get().forEach(id -> markedIds.add(Long.parseLong(id)));
            markedIds.sort(null);
            return new UserUnread(
                    userId,
                    badge == null ? 0 : Long.parseLong(badge),
                    counts(conversations.get()),
                    counts(mentions.get()),
                    counts(channelMentions.get()),
                    new Totals(
                            count(total.get(Count.TOTAL_MESSAGES.totalField())),
                            count(total.get(Count.TOTAL_MENTIONS.totalField())),
                            count(total.get(Count.TOTAL_CONVERSATIONS.totalField())),
                            count(total.get(Count.TOTAL_THREADS.totalField()))),
                    markedIds,
                    threadCounts(threads.get()),
                    threadCounts(threadMentions.get()),
                    threadCounts(threadChannelMentions.get()));
        }
    }

    /**
     * A thread hash's fields {@code {conversationId}:{threadSeq}} in numeric order of both ids, as
     * the conversations are; a field of another shape is not the job's.
     *
     * @throws NumberFormatException for a field or value that is not the job's
     */
    private static Map<String, Long> threadCounts(Map<String, String> hash) {
        TreeMap<long[], Long> sorted =
                new TreeMap<>(
                        (a, b) ->
                                a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        hash.forEach(
                (field, n) -> {
                    int colon = field.indexOf(':');
                    if (colon < 0) {
                        throw new NumberFormatException("not a thread field");
                    }
                    long[] ids = {
                        Long.parseLong(field.substring(0, colon)),
                        Long.parseLong(field.substring(colon + 1))
                    };
                    sorted.put(ids, Long.parseLong(n));
                });
        Map<String, Long> counts = new LinkedHashMap<>();
        sorted.forEach((ids, n) -> counts.put(RedisNames.threadField(ids[0], ids[1]), n));
        return counts;
    }

    private static Map<Long, Long> counts(Map<String, String> hash) {
        Map<Long, Long> counts = new TreeMap<>();
        hash.forEach((c, n) -> counts.put(Long.parseLong(c), Long.parseLong(n)));
        return counts;
    }

    private static long count(String value) {
        return value == null ? 0 : Long.parseLong(value);
    }
}
