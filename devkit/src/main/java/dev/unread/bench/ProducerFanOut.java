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

    private long deliveries;
    private long replies;
    private long replyDeliveries;

    /**
     * Hands {@code out} what the producer publishes for {@code record}: nothing for a membership
     * event (the server keeps it), a record per member but the sender for a group message, and any
     * other record (a deletion included) as it is.
     */
    void apply(TrafficRecord record, Consumer<TrafficRecord> out) {
        ConversationEvent event = record.conversation();
        if (event == null) {
            out.accept(record);
            return;
        }
        switch (event.kind) {
            case MEMBER_JOINED ->
                    members.computeIfAbsent(event.conversationId, c -> new LinkedHashSet<>())
                            .add(event.userId);
            case MEMBER_LEFT ->
                    members.getOrDefault(event.conversationId, Set.of()).remove(event.userId);
            // Deletions stay on chat-conversations, for any conversation.
            case MESSAGE_DELETED -> out.accept(record);
            case MESSAGE -> {
                if (event.threadSeq > 0) {
                    replies++;
                }
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
                        deliveries++;
                        if (event.threadSeq > 0) {
                            replyDeliveries++;
                        }
                        out.accept(
                                new TrafficRecord(
                                        TrafficRecord.Topic.MESSAGES,
                                        ChatEventJson.key(delivery),
                                        ChatEventJson.value(delivery),
                                        delivery,
                                        null,
                                        null));
                    }
                }
            }
        }
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
