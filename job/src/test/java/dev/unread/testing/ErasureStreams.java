package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * USER_ERASED events for traffic published to Kafka, where the job reads each topic, and after a
 * restore replays each partition, at its own pace: of the three topics only the user's own {@code
 * chat-reads} partition keeps its order with the erasure. So each erasure here comes at or after
 * the time of everything the other topics say of its user (messages to and from the user, edits,
 * replies naming the user as root sender, every record of a group the user is named in), and only
 * the user's reads, follows, preferences, marks and ALL_READs come later, after it on that
 * partition. Everything older arrives before and after it (late messages among them), and so do the
 * deletions of the user's messages, which carry no time: before the erasure with their message
 * after it, and the other way round.
 */
public final class ErasureStreams {

    private ErasureStreams() {}

    /**
     * The events with up to {@code users} of their users erased once each, at a random place: those
     * users with reads after the last of their other events first, so that most erasures are
     * followed by a fresh start. Put the order through {@link EventStreams#withErasuresInPlace}
     * before it is published.
     */
    public static List<ChatEvent> withErasures(
            Random random,
            List<ChatEvent> events,
            List<ConversationEvent> conversations,
            int users) {
        Map<Long, Long> lastElsewhere = lastTimesOutsideReads(events, conversations);
        Map<Long, TreeSet<Long>> readTimes = new TreeMap<>();
        for (ChatEvent e : events) {
            if (!ChatEventJson.isMessage(e) && e.time > 0) {
                readTimes.computeIfAbsent(e.userId, u -> new TreeSet<>()).add(e.time);
            }
        }
        List<Long> freshStarts = new ArrayList<>();
        List<Long> others = new ArrayList<>();
        for (long user : lastElsewhere.keySet()) {
            TreeSet<Long> reads = readTimes.get(user);
            boolean later = reads != null && reads.higher(lastElsewhere.get(user)) != null;
            (later ? freshStarts : others).add(user);
        }
        Collections.shuffle(freshStarts, random);
        Collections.shuffle(others, random);
        freshStarts.addAll(others);
        List<ChatEvent> result = new ArrayList<>(events);
        for (long user : freshStarts.subList(0, Math.min(users, freshStarts.size()))) {
            long last = lastElsewhere.get(user);
            // At the last time the other topics have, or at one of the user's later reads (which
            // the erasure then covers).
            List<Long> at = new ArrayList<>();
            if (last > 0) {
                at.add(last);
            }
            if (readTimes.containsKey(user)) {
                at.addAll(readTimes.get(user).tailSet(last, false));
            }
            if (at.isEmpty()) {
                continue;
            }
            result.add(
                    random.nextInt(result.size() + 1),
                    ChatEvent.userErased(user, at.get(random.nextInt(at.size()))));
        }
        return result;
    }

    /**
     * Per user named anywhere outside {@code chat-reads}, the newest time of a record there that
     * concerns the user: a {@code chat-messages} record the user receives, sends or is the root
     * sender of, and any timed record of a group with a record that names the user.
     */
    private static Map<Long, Long> lastTimesOutsideReads(
            List<ChatEvent> events, List<ConversationEvent> conversations) {
        Map<Long, Long> last = new TreeMap<>();
        for (ChatEvent e : events) {
            if (ChatEventJson.isMessage(e)) {
                for (long user : new long[] {e.userId, e.senderId, e.rootSenderId}) {
                    if (user > 0) {
                        last.merge(user, e.time, Math::max);
                    }
                }
            }
        }
        Map<Long, Set<Long>> named = new TreeMap<>();
        Map<Long, Long> newest = new TreeMap<>();
        for (ConversationEvent r : conversations) {
            Set<Long> users = named.computeIfAbsent(r.conversationId, c -> new TreeSet<>());
            for (long user : new long[] {r.userId, r.senderId, r.rootSenderId}) {
                if (user > 0) {
                    users.add(user);
                }
            }
            for (long user : r.mentions) {
                users.add(user);
            }
            if (r.sentAt > 0) {
                newest.merge(r.conversationId, r.sentAt, Math::max);
            }
        }
        named.forEach(
                (conversation, users) -> {
                    long time = newest.getOrDefault(conversation, 0L);
                    for (long user : users) {
                        last.merge(user, time, Math::max);
                    }
                });
        return last;
    }
}
