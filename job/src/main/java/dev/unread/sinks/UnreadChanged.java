package dev.unread.sinks;

import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.UnreadCount;
import java.util.Arrays;

/**
 * One user's counts changed by one flush, as the UNREAD_CHANGED message published on {@code
 * UNREAD_CHANGED:{userId}} (docs/contract.md, "Live push"):
 *
 * <pre>{"type":"UNREAD_CHANGED","userId":10086,"version":1767225600000000,
 *  "unreadSenders":3,"conversations":{"80001":18,"80002":0},"mentions":{"80001":1},
 *  "totals":{"messages":18,"mentions":1,"conversations":1},"markedUnread":{"80002":false}}</pre>
 *
 * <p>Only what changed is there, each as its absolute value: {@code unreadSenders} when the badge
 * changed, {@code conversations} and {@code mentions} with the conversations whose count changed,
 * {@code totals} with the totals that changed, {@code markedUnread} with the conversations whose
 * mark changed (true marked, false no longer).
 */
final class UnreadChanged {

    final long userId;

    /**
     * Each count taken, as four longs (kind, conversation, thread root, count). Kept raw and
     * rendered by {@link #json} alone: a flush takes every changed user's counts but writes the
     * message only for the few with a live stream, and rendering them all was a share of the Redis
     * writer's time in a profile.
     */
    private long[] counts = new long[4 * 4];

    private int size;

    UnreadChanged(long userId) {
        this.userId = userId;
    }

    /**
     * Takes one coalesced count of this user, of UnreadCount's {@code kind}; {@code threadSeq} the
     * root of a thread's count.
     */
    void add(byte kind, long conversationId, long threadSeq, long count) {
        if (size == counts.length) {
            counts = Arrays.copyOf(counts, 2 * size);
        }
        counts[size++] = kind;
        counts[size++] = conversationId;
        counts[size++] = threadSeq;
        counts[size++] = count;
    }

    String json(long version) {
        long unreadSenders = -1;
        StringBuilder conversations = new StringBuilder();
        StringBuilder mentions = new StringBuilder();
        StringBuilder totals = new StringBuilder();
        StringBuilder marked = new StringBuilder();
        StringBuilder threads = new StringBuilder();
        StringBuilder threadMentions = new StringBuilder();
        for (int i = 0; i < size; i += 4) {
            byte kind = (byte) counts[i];
            long conversationId = counts[i + 1];
            long threadSeq = counts[i + 2];
            long count = counts[i + 3];
            switch (kind) {
                case UnreadCount.UNREAD:
                    if (conversationId == UnreadCount.SENDER_BADGE) {
                        unreadSenders = count;
                    } else {
                        field(conversations, Long.toString(conversationId)).append(count);
                    }
                    break;
                case UnreadCount.MENTIONS:
                    field(mentions, Long.toString(conversationId)).append(count);
                    break;
                case UnreadCount.MARKED:
                    field(marked, Long.toString(conversationId)).append(count != 0);
                    break;
                case UnreadCount.TOTAL_MESSAGES:
                    field(totals, RedisNames.TOTAL_MESSAGES).append(count);
                    break;
                case UnreadCount.TOTAL_MENTIONS:
                    field(totals, RedisNames.TOTAL_MENTIONS).append(count);
                    break;
                case UnreadCount.TOTAL_THREADS:
                    field(totals, RedisNames.TOTAL_THREADS).append(count);
                    break;
                case UnreadCount.THREAD_UNREAD:
                    field(threads, RedisNames.threadField(conversationId, threadSeq)).append(count);
                    break;
                case UnreadCount.THREAD_MENTIONS:
                    field(threadMentions, RedisNames.threadField(conversationId, threadSeq))
                            .append(count);
                    break;
                default:
                    field(totals, RedisNames.TOTAL_CONVERSATIONS).append(count);
                    break;
            }
        }
        StringBuilder json =
                new StringBuilder(
                                64
                                        + conversations.length()
                                        + mentions.length()
                                        + totals.length()
                                        + marked.length())
                        .append("{\"type\":\"")
                        .append(MessageTypes.UNREAD_CHANGED)
                        .append("\",\"userId\":")
                        .append(userId)
                        .append(",\"version\":")
                        .append(version);
        if (unreadSenders >= 0) {
            json.append(",\"unreadSenders\":").append(unreadSenders);
        }
        object(json, "conversations", conversations);
        object(json, "mentions", mentions);
        object(json, "totals", totals);
        object(json, "markedUnread", marked);
        object(json, "threads", threads);
        object(json, "threadMentions", threadMentions);
        return json.append('}').toString();
    }

    private static StringBuilder field(StringBuilder object, String name) {
        return object.append(object.length() == 0 ? "" : ",")
                .append('"')
                .append(name)
                .append("\":");
    }

    private static void object(StringBuilder json, String name, StringBuilder fields) {
        if (fields.length() > 0) {
            json.append(",\"").append(name).append("\":{").append(fields).append('}');
        }
    }
}
