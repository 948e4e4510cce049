package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** {@code MESSAGE_DELETED} records for the messages of a run's {@code chat-messages} events. */
public final class DeletionStreams {

    private DeletionStreams() {}

    /**
     * The records with deletions of messages {@code events} send in conversations (on
     * chat-messages), each put anywhere among them, so that it may come before or after its
     * message: about one in twenty conversation messages, and more of the few thread roots (one in
     * two) and replies (one in six), so that a run deletes some of each. The group records bring
     * deletions of group messages of their own.
     */
    public static List<ConversationEvent> among(
            List<ConversationEvent> records, List<ChatEvent> events, Random random) {
        Set<String> roots = new HashSet<>();
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.MESSAGE && e.isReply()) {
                roots.add(e.conversationId + ":" + e.threadSeq);
            }
        }
        List<ConversationEvent> all = new ArrayList<>(records);
        Set<String> seen = new HashSet<>();
        for (ChatEvent e : events) {
            String message = e.conversationId + ":" + e.seq;
            if (e.kind != ChatEvent.Kind.MESSAGE || !e.hasConversation() || !seen.add(message)) {
                continue;
            }
            int oneIn = roots.contains(message) ? 2 : e.isReply() ? 6 : 20;
            if (random.nextInt(oneIn) == 0) {
                all.add(
                        random.nextInt(all.size() + 1),
                        ConversationEvent.deleted(e.conversationId, e.seq));
            }
        }
        return all;
    }
}
