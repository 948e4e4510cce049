package dev.unread.testing;

import dev.unread.events.UnreadCount;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Redis as the sinks leave it: the last value written per key or field, 0 = deleted. */
public final class RedisModel {
    public final Map<String, String> senders = new TreeMap<>();
    public final Map<String, Map<String, String>> conversations = new TreeMap<>();
    public final Map<String, Map<String, String>> mentions = new TreeMap<>();
    public final Map<String, Set<String>> marked = new TreeMap<>();
    public final Map<String, Map<String, String>> totals = new TreeMap<>();
    public final Map<String, Map<String, String>> threads = new TreeMap<>();
    public final Map<String, Map<String, String>> threadMentions = new TreeMap<>();
    public final Map<String, Map<String, String>> channelMentions = new TreeMap<>();
    public final Map<String, Map<String, String>> threadChannelMentions = new TreeMap<>();

    public void apply(UnreadCount c) {
        if (c.erased) {
            // Every key of the user, by its exact name: a longer id is another user.
            for (Map<String, ?> keys :
                    List.of(
                            senders,
                            conversations,
                            mentions,
                            marked,
                            totals,
                            threads,
                            threadMentions,
                            channelMentions,
                            threadChannelMentions)) {
                keys.keySet().removeIf(key -> key.endsWith(":" + c.userId));
            }
            return;
        }
        switch (c.kind) {
            case MENTIONS:
                hashField(
                        mentions,
                        Oracle.MENTIONS_KEY + c.userId,
                        Long.toString(c.conversationId),
                        c.count);
                return;
            case CHANNEL_MENTIONS:
                hashField(
                        channelMentions,
                        Oracle.CHANNEL_MENTIONS_KEY + c.userId,
                        Long.toString(c.conversationId),
                        c.count);
                return;
            case MARKED:
                String key = Oracle.MARKED_UNREAD_KEY + c.userId;
                Set<String> set = marked.computeIfAbsent(key, k -> new TreeSet<>());
                if (c.count == 0) {
                    set.remove(Long.toString(c.conversationId));
                } else {
                    set.add(Long.toString(c.conversationId));
                }
                if (set.isEmpty()) {
                    marked.remove(key);
                }
                return;
            case TOTAL_MESSAGES:
                hashField(totals, Oracle.TOTALS_KEY + c.userId, "messages", c.count);
                return;
            case TOTAL_MENTIONS:
                hashField(totals, Oracle.TOTALS_KEY + c.userId, "mentions", c.count);
                return;
            case TOTAL_CONVERSATIONS:
                hashField(totals, Oracle.TOTALS_KEY + c.userId, "conversations", c.count);
                return;
            case TOTAL_THREADS:
                hashField(totals, Oracle.TOTALS_KEY + c.userId, "threads", c.count);
                return;
            case THREAD:
                hashField(
                        threads,
                        Oracle.THREADS_KEY + c.userId,
                        c.conversationId + ":" + c.threadSeq,
                        c.count);
                return;
            case THREAD_MENTIONS:
                hashField(
                        threadMentions,
                        Oracle.THREAD_MENTIONS_KEY + c.userId,
                        c.conversationId + ":" + c.threadSeq,
                        c.count);
                return;
            case THREAD_CHANNEL_MENTIONS:
                hashField(
                        threadChannelMentions,
                        Oracle.THREAD_CHANNEL_MENTIONS_KEY + c.userId,
                        c.conversationId + ":" + c.threadSeq,
                        c.count);
                return;
            default:
                break;
        }
        if (c.isSenderBadge()) {
            String key = Oracle.SENDERS_KEY + c.userId;
            if (c.count == 0) {
                senders.remove(key);
            } else {
                senders.put(key, Long.toString(c.count));
            }
            return;
        }
        hashField(
                conversations,
                Oracle.CONVERSATIONS_KEY + c.userId,
                Long.toString(c.conversationId),
                c.count);
    }

    private static void hashField(
            Map<String, Map<String, String>> keys, String key, String field, long count) {
        Map<String, String> hash = keys.computeIfAbsent(key, k -> new TreeMap<>());
        if (count == 0) {
            hash.remove(field);
        } else {
            hash.put(field, Long.toString(count));
        }
        if (hash.isEmpty()) {
            keys.remove(key);
        }
    }
}
