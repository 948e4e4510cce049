package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/** ALL_READ events added to a stream of {@code chat-messages} and {@code chat-reads} events. */
public final class AllReadStreams {

    private AllReadStreams() {}

    /**
     * The events with a few ALL_READs of the users they address, each at the time of one of their
     * events (so {@code sentAt == readAt} is common: that message is read) or between two, at
     * random places of the list: before messages sent earlier, after messages sent later, and
     * beside the threads, deletions, marks and preferences of the same users. Some users get two,
     * the older one covering less.
     */
    public static List<ChatEvent> withAllReads(Random random, List<ChatEvent> events) {
        return withAllReads(random, events, List.of());
    }

    /**
     * The same for the users and times of {@code events} and of the {@code chat-conversations}
     * records {@code records} (members and senders, the messages' {@code sentAt}).
     */
    public static List<ChatEvent> withAllReads(
            Random random, List<ChatEvent> events, List<ConversationEvent> records) {
        TreeSet<Long> users = new TreeSet<>();
        List<Long> times = new ArrayList<>();
        for (ChatEvent e : events) {
            users.add(e.userId);
            if (e.time > 0) {
                times.add(e.time);
            }
        }
        for (ConversationEvent r : records) {
            if (r.userId > 0) {
                users.add(r.userId);
            }
            if (r.isMessage()) {
                users.add(r.senderId);
                times.add(r.sentAt);
            }
        }
        List<ChatEvent> result = new ArrayList<>(events);
        if (times.isEmpty()) {
            return result;
        }
        for (long user : users) {
            int reads = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(2);
            for (int i = 0; i < reads; i++) {
                long at = times.get(random.nextInt(times.size()));
                if (random.nextInt(3) == 0) {
                    // readAt is positive: a time of 1 gets no earlier neighbour.
                    at = Math.max(1, at + (random.nextBoolean() ? 1 : -1));
                }
                result.add(random.nextInt(result.size() + 1), ChatEvent.allRead(user, at));
            }
        }
        return result;
    }
}
