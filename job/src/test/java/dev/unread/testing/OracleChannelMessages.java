package dev.unread.testing;

import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link OracleChannels} knows of each channel's own messages: each message within {@code
 * --max-channel-seq} (a message past it counts for nobody), the deletions, and what a message says
 * by its newest edits.
 */
final class OracleChannelMessages {

    private final long maxChannelSeq;

    /** C → seq → its message. */
    private final Map<Long, TreeMap<Long, ConversationEvent>> messages = new TreeMap<>();

    private final Map<Long, Set<Long>> deleted = new HashMap<>();

    /** C → seq → every edit of the message at that seq. */
    private final Map<Long, Map<Long, List<ConversationEvent>>> edits = new HashMap<>();

    OracleChannelMessages(long maxChannelSeq) {
        this.maxChannelSeq = maxChannelSeq;
    }

    /** A message or a deletion of a channel; anything else is not the messages'. */
    void add(ConversationEvent e) {
        if (e.isMessage() && e.seq <= maxChannelSeq) {
            messages.computeIfAbsent(e.conversationId, k -> new TreeMap<>()).putIfAbsent(e.seq, e);
        } else if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED) {
            deleted.computeIfAbsent(e.conversationId, k -> new HashSet<>()).add(e.seq);
        }
    }

    /**
     * An edit, once every message is in: "an edit names neither" its message's sender nor its
     * thread, and one of a seq no message has changes nothing.
     */
    void edit(ConversationEvent e) {
        if (message(e.conversationId, e.seq) != null) {
            edits.computeIfAbsent(e.conversationId, k -> new HashMap<>())
                    .computeIfAbsent(e.seq, k -> new ArrayList<>())
                    .add(e);
        }
    }

    ConversationEvent message(long conversationId, long seq) {
        TreeMap<Long, ConversationEvent> of = messages.get(conversationId);
        return of == null ? null : of.get(seq);
    }

    /** The messages of C, roots and replies, deleted or not, by seq. */
    Collection<ConversationEvent> of(long conversationId) {
        return messages.getOrDefault(conversationId, new TreeMap<>()).values();
    }

    /** Every channel's messages. */
    Collection<TreeMap<Long, ConversationEvent>> all() {
        return messages.values();
    }

    boolean deleted(long conversationId, long seq) {
        return deleted.getOrDefault(conversationId, Set.of()).contains(seq);
    }

    /** The largest seq of C sent at or before {@code at}; 0 if none. */
    long sentBy(long conversationId, long at) {
        long seq = 0;
        for (ConversationEvent m : of(conversationId)) {
            if (m.sentAt <= at) {
                seq = Math.max(seq, m.seq);
            }
        }
        return seq;
    }

    /** The message names U by id: each of its newest edits does, or with none the message. */
    boolean names(long conversationId, long seq, long userId) {
        return says(conversationId, seq, userId, true);
    }

    /** The message mentions everyone: each of its newest edits does, or with none the message. */
    boolean mentionsAll(long conversationId, long seq) {
        return says(conversationId, seq, 0, false);
    }

    /** "Tied edits decide each field on its own". */
    private boolean says(long conversationId, long seq, long userId, boolean byId) {
        List<ConversationEvent> its =
                edits.getOrDefault(conversationId, Map.of()).getOrDefault(seq, List.of());
        if (its.isEmpty()) {
            ConversationEvent m = message(conversationId, seq);
            return byId ? m.mentions(userId) : m.mentionsAll;
        }
        long newest = its.stream().mapToLong(e -> e.sentAt).max().getAsLong();
        return its.stream()
                .filter(e -> e.sentAt == newest)
                .allMatch(e -> byId ? e.mentions(userId) : e.mentionsAll);
    }
}
