package dev.unread.events;

import dev.unread.contract.InputField;
import java.util.Arrays;
import java.util.Objects;

/**
 * A validated {@code chat-conversations} record, keyed by {@link #conversationId}: a membership
 * change, a message published once for the whole conversation, or a message's deletion; or a
 * participant of a conversation as a {@code chat-messages} record names it (see {@link
 * #participant}).
 *
 * <ul>
 *   <li>{@code kind}: what happened.
 *   <li>{@code conversationId}: the conversation.
 *   <li>{@code seq}: the conversation's sequence, shared by messages and membership changes.
 *   <li>{@code seq}: MESSAGE_DELETED: the deleted message's seq; PARTICIPANT: 0.
 *   <li>{@code userId}: MEMBER_JOINED and MEMBER_LEFT: who joined or left; PARTICIPANT: the
 *       participant; RECEIVED_REPLY: the receiver; 0 otherwise.
 *   <li>{@code senderId}, {@code sentAt} (epoch milliseconds): MESSAGE and RECEIVED_REPLY; 0
 *       otherwise.
 *   <li>{@code mentions}: MESSAGE: the mentioned user ids, ascending, each once; RECEIVED_REPLY:
 *       the receiver when the reply mentions them; empty when none and for the other kinds.
 *   <li>{@code threadSeq}: MESSAGE: the root's seq of a reply, 0 for a conversation message;
 *       RECEIVED_REPLY: the root's seq.
 *   <li>{@code rootSenderId}: MESSAGE and RECEIVED_REPLY of a reply: its root's sender when the
 *       producer named it, 0 when not.
 *   <li>{@code mentionsAll}: MESSAGE, RECEIVED_REPLY, MESSAGE_EDITED: the message mentions the
 *       whole channel (@all, @channel, @here).
 * </ul>
 *
 * <p>MESSAGE_EDITED: {@code seq} is the edited message's, {@code sentAt} holds the {@code
 * editedAt}, {@code mentions} whom the message names after the edit.
 *
 * <p>Never kept in state; crosses the network once, from parsing to the conversation's fan-out,
 * with Flink's POJO serializer (an enum, longs and a primitive array: no Kryo).
 */
public class ConversationEvent {

    /**
     * The kinds of {@code chat-conversations} record, and two that no topic carries: PARTICIPANT,
     * the job's own notice that a {@code chat-messages} record named a user in the conversation,
     * and RECEIVED_REPLY, a {@code chat-messages} reply on its way to its receiver through the
     * conversation's stage (see {@link #receivedReply}). New kinds go last: the ordinal crosses the
     * network.
     */
    public enum Kind {
        MEMBER_JOINED,
        MEMBER_LEFT,
        MESSAGE,
        MESSAGE_DELETED,
        PARTICIPANT,
        RECEIVED_REPLY,
        MESSAGE_EDITED,
        /**
         * The conversation is a channel (docs/contract.md, "Channels"): before its other records.
         */
        CHANNEL
    }

    private static final long[] NONE = new long[0];

    public Kind kind;
    public long conversationId;
    public long seq;
    public long userId;
    public long senderId;
    public long sentAt;
    public long[] mentions = NONE;
    public long threadSeq;
    public long rootSenderId;
    public boolean mentionsAll;

    public ConversationEvent() {}

    public static ConversationEvent joined(long conversationId, long userId, long seq) {
        return membership(Kind.MEMBER_JOINED, conversationId, userId, seq);
    }

    public static ConversationEvent left(long conversationId, long userId, long seq) {
        return membership(Kind.MEMBER_LEFT, conversationId, userId, seq);
    }

    private static ConversationEvent membership(
            Kind kind, long conversationId, long userId, long seq) {
        ConversationEvent e = new ConversationEvent();
        e.kind = kind;
        e.conversationId = conversationId;
        e.userId = userId;
        e.seq = seq;
        return e;
    }

    /** {@code conversationId} is a channel. */
    public static ConversationEvent channel(long conversationId) {
        ConversationEvent e = new ConversationEvent();
        e.kind = Kind.CHANNEL;
        e.conversationId = conversationId;
        return e;
    }

    /** Message {@code seq} of the conversation is deleted. */
    public static ConversationEvent deleted(long conversationId, long seq) {
        ConversationEvent e = new ConversationEvent();
        e.kind = Kind.MESSAGE_DELETED;
        e.conversationId = conversationId;
        e.seq = seq;
        return e;
    }

    /** A {@code chat-messages} record of the conversation named {@code userId}. */
    public static ConversationEvent participant(long conversationId, long userId) {
        ConversationEvent e = new ConversationEvent();
        e.kind = Kind.PARTICIPANT;
        e.conversationId = conversationId;
        e.userId = userId;
        return e;
    }

    /**
     * A {@code chat-messages} reply to its receiver, routed through the conversation's stage so
     * that it carries whether it is deleted: its thread cursor, not the conversation cursor,
     * governs it, so the receiver's own memory of deletions cannot tell.
     */
    public static ConversationEvent receivedReply(ChatEvent reply) {
        ConversationEvent e = new ConversationEvent();
        e.kind = Kind.RECEIVED_REPLY;
        e.conversationId = reply.conversationId;
        e.seq = reply.seq;
        e.threadSeq = reply.threadSeq;
        e.rootSenderId = reply.rootSenderId;
        e.userId = reply.userId;
        e.senderId = reply.senderId;
        e.sentAt = reply.time;
        e.mentions = reply.mentioned ? new long[] {reply.userId} : NONE;
        e.mentionsAll = reply.mentionsAll;
        return e;
    }

    /** An edit of message {@code seq}: whom it mentions after it; {@code mentions} as below. */
    public static ConversationEvent edited(
            long conversationId, long seq, long editedAt, boolean mentionsAll, long... mentions) {
        ConversationEvent e = message(conversationId, seq, 0, editedAt, mentions);
        e.kind = Kind.MESSAGE_EDITED;
        e.mentionsAll = mentionsAll;
        return e;
    }

    /** {@code mentions} in any order, repeats allowed: they are sorted and made distinct. */
    public static ConversationEvent message(
            long conversationId, long seq, long senderId, long sentAt, long... mentions) {
        ConversationEvent e = new ConversationEvent();
        e.kind = Kind.MESSAGE;
        e.conversationId = conversationId;
        e.seq = seq;
        e.senderId = senderId;
        e.sentAt = sentAt;
        e.mentions = ascendingOnce(mentions);
        return e;
    }

    private static long[] ascendingOnce(long[] ids) {
        return ids.length == 0 ? NONE : Arrays.stream(ids).sorted().distinct().toArray();
    }

    /**
     * Keeps each optional field of the record that {@code given} names ({@link
     * RecordFields#optional}) in its slot, after the kind's factory filled the required ones.
     */
    ConversationEvent keep(long given, RecordFields fields) {
        for (long rest = given; rest != 0; rest &= rest - 1) {
            keep(TopicFields.FIELDS[Long.numberOfTrailingZeros(rest)], fields);
        }
        return this;
    }

    /**
     * The slot of each optional input field, the one place that says which holds which. A new
     * optional field is kept here, in a field of its own (Flink's POJO serializer carries it) or
     * one it shares.
     */
    private void keep(InputField field, RecordFields fields) {
        long value = fields.values[field.ordinal()];
        switch (field) {
            case MENTIONS -> mentions = ascendingOnce(fields.ids);
            case MENTIONS_ALL -> mentionsAll = value == 1;
            case THREAD_SEQ -> threadSeq = value;
            case ROOT_SENDER_ID -> rootSenderId = value;
            // messageId is checked, never kept; the others no kind of chat-conversations
            // carries optionally.
            default -> {}
        }
    }

    /** A reply in thread {@code threadSeq}; {@code mentions} as for {@link #message}. */
    public static ConversationEvent reply(
            long conversationId,
            long seq,
            long threadSeq,
            long senderId,
            long sentAt,
            long... mentions) {
        ConversationEvent e = message(conversationId, seq, senderId, sentAt, mentions);
        e.threadSeq = threadSeq;
        return e;
    }

    public boolean isMessage() {
        return kind == Kind.MESSAGE;
    }

    /** MEMBER_JOINED or MEMBER_LEFT. */
    public boolean isMembership() {
        return kind == Kind.MEMBER_JOINED || kind == Kind.MEMBER_LEFT;
    }

    /** Whether {@code userId} is among {@link #mentions}. */
    public boolean mentions(long userId) {
        return mentions.length > 0 && Arrays.binarySearch(mentions, userId) >= 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ConversationEvent)) {
            return false;
        }
        ConversationEvent that = (ConversationEvent) o;
        return kind == that.kind
                && conversationId == that.conversationId
                && seq == that.seq
                && userId == that.userId
                && senderId == that.senderId
                && sentAt == that.sentAt
                && threadSeq == that.threadSeq
                && rootSenderId == that.rootSenderId
                && mentionsAll == that.mentionsAll
                && Arrays.equals(mentions, that.mentions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                        kind,
                        conversationId,
                        seq,
                        userId,
                        senderId,
                        sentAt,
                        threadSeq,
                        rootSenderId,
                        mentionsAll)
                + 31 * Arrays.hashCode(mentions);
    }

    @Override
    public String toString() {
        String mentioned = mentions.length > 0 ? " @" + Arrays.toString(mentions) : "";
        return switch (kind) {
            case MESSAGE ->
                    "MESSAGE(c"
                            + conversationId
                            + "#"
                            + seq
                            + (threadSeq > 0 ? " in " + threadSeq : "")
                            + (rootSenderId > 0 ? " root by " + rootSenderId : "")
                            + " from "
                            + senderId
                            + " @"
                            + sentAt
                            + mentioned
                            + (mentionsAll ? " @all" : "")
                            + ")";
            case MESSAGE_EDITED ->
                    "MESSAGE_EDITED(c"
                            + conversationId
                            + "#"
                            + seq
                            + " @"
                            + sentAt
                            + mentioned
                            + (mentionsAll ? " @all" : "")
                            + ")";
            case RECEIVED_REPLY ->
                    "RECEIVED_REPLY(c"
                            + conversationId
                            + "#"
                            + seq
                            + " in "
                            + threadSeq
                            + (rootSenderId > 0 ? " root by " + rootSenderId : "")
                            + " "
                            + senderId
                            + "->"
                            + userId
                            + (mentions.length > 0 ? " mentioned" : "")
                            + " @"
                            + sentAt
                            + ")";
            case MESSAGE_DELETED -> "MESSAGE_DELETED(c" + conversationId + "#" + seq + ")";
            case CHANNEL -> "CHANNEL(c" + conversationId + ")";
            case MEMBER_JOINED, MEMBER_LEFT, PARTICIPANT ->
                    kind + "(c" + conversationId + " u" + userId + " #" + seq + ")";
        };
    }
}
