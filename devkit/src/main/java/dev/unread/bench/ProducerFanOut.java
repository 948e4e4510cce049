package dev.unread.bench;

import dev.unread.events.ChatEvent;
import dev.unread.events.ChatEventJson;
import dev.unread.events.ConversationEvent;
import dev.unread.generator.TrafficRecord;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What a chat server does with a group message before conversations could be published once: it
 * keeps each group's membership itself and publishes one {@code chat-messages} record per member
 * but the sender, with the conversation's id and seq. Applied to generated traffic it gives the
 * records of that design for the same messages, the baseline of the group benchmark.
 */
final class ProducerFanOut {

    /** Members per conversation, as the membership events so far leave them. */
    private final Map<Long, Set<Long>> members = new HashMap<>();

    /** Per conversation, its newest message: {seq, sender, threadSeq}, what an edit of it needs. */
    private final Map<Long, long[]> newest = new HashMap<>();

    private long deliveries;
    private long replies;
    private long replyDeliveries;
    private long edits;
    private long editDeliveries;

    /**
     * Hands {@code out} what the producer publishes for {@code record}: nothing for a membership
     * event (the server keeps it), a record per member but the sender for a group message and for
     * its edit, and any other record (a deletion included) as it is.
     */
    void apply(TrafficRecord record, Consumer<TrafficRecord> out) {
        ConversationEvent event = record.conversation();
        if (event == null) {
            out.accept(record);
            return;
        }
        // A switch expression, so that a new kind does not compile until it is placed here.
        Consumer<ConversationEvent> step =
                switch (event.kind) {
                    case MEMBER_JOINED ->
                            e ->
                                    members.computeIfAbsent(
                                                    e.conversationId, c -> new LinkedHashSet<>())
                                            .add(e.userId);
                    case MEMBER_LEFT ->
                            e -> members.getOrDefault(e.conversationId, Set.of()).remove(e.userId);
                    // Deletions stay on chat-conversations, for any conversation.
                    case MESSAGE_DELETED -> e -> out.accept(record);
                    case MESSAGE -> e -> message(e, out);
                    case MESSAGE_EDITED -> e -> edit(e, out);
                    // The job's own kinds: no producer publishes them.
                    case PARTICIPANT, RECEIVED_REPLY -> e -> {};
                    // A producer that fans out itself counts a channel as any group.
                    case CHANNEL -> e -> {};
                };
        step.accept(event);
    }

    /** A group message as records per member but the sender. */
    private void message(ConversationEvent event, Consumer<TrafficRecord> out) {
        if (event.threadSeq > 0) {
            replies++;
        }
        newest.put(event.conversationId, new long[] {event.seq, event.senderId, event.threadSeq});
        for (long member : members.getOrDefault(event.conversationId, Set.of())) {
            if (member != event.senderId) {
                ChatEvent delivery =
                        ChatEvent.message(
                                event.senderId,
                                member,
                                event.conversationId,
                                event.seq,
                                event.sentAt);
                delivery.threadSeq = event.threadSeq;
                delivery.rootSenderId = event.rootSenderId;
                delivery.mentioned = event.mentions(member);
                delivery.mentionsAll = event.mentionsAll;
                deliveries++;
                if (event.threadSeq > 0) {
                    replyDeliveries++;
                }
                out.accept(delivery(delivery));
            }
        }
    }

    /**
     * A group edit as records per member but the sender, like its message. The generator edits a
     * message with the record after it, so the edit is of its conversation's newest message.
     */
    private void edit(ConversationEvent edit, Consumer<TrafficRecord> out) {
        long[] message = newest.get(edit.conversationId);
        if (message == null || message[0] != edit.seq) {
            throw new IllegalStateException(
                    "an edit of c"
                            + edit.conversationId
                            + "#"
                            + edit.seq
                            + " after another message");
        }
        edits++;
        for (long member : members.getOrDefault(edit.conversationId, Set.of())) {
            if (member != message[1]) {
                editDeliveries++;
                out.accept(
                        delivery(
                                ChatEvent.edited(
                                        member,
                                        edit.conversationId,
                                        edit.seq,
                                        message[2],
                                        edit.sentAt,
                                        edit.mentions(member),
                                        edit.mentionsAll)));
            }
        }
    }

    private static TrafficRecord delivery(ChatEvent event) {
        return new TrafficRecord(
                TrafficRecord.Topic.MESSAGES,
                ChatEventJson.key(event),
                ChatEventJson.value(event),
                event,
                null,
                null);
    }

    /** The group edits so far. */
    long edits() {
        return edits;
    }

    /** Records made of group edits so far: one per member but the message's sender. */
    long editDeliveries() {
        return editDeliveries;
    }

    /** The replies among the group messages so far. */
    long replies() {
        return replies;
    }

    /** Records made of replies so far: the job copies each for its sender. */
    long replyDeliveries() {
        return replyDeliveries;
    }

    /** Records made of group messages so far: one per member but the sender. */
    long deliveries() {
        return deliveries;
    }

    /** Members of {@code conversation} now. */
    int members(long conversation) {
        return members.getOrDefault(conversation, Set.of()).size();
    }
}
