package dev.unread.events;

import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A validated input event, keyed by {@link #userId}: the receiver of a message, the user who read,
 * or the member who joined or left a group conversation. Messages, reads and membership changes
 * share one type so that all of them meet in one keyed function; a group message reaches it as one
 * MESSAGE per member (see dev.unread.groups.GroupFanOut).
 *
 * <ul>
 *   <li>{@code kind}: what happened.
 *   <li>{@code userId}: {@code receiverId} of a message, {@code userId} of a read; for
 *       MESSAGE_DELETED a participant of the conversation (see dev.unread.groups.GroupFanOut).
 *   <li>{@code senderId}: MESSAGE only; 0 otherwise. A MESSAGE with {@code senderId == userId} is
 *       the job's copy of a message for its sender's own state (see dev.unread.counter.Threads),
 *       which counts toward nothing.
 *   <li>{@code conversationId}: MESSAGE (0 when the message has none), and every other kind but
 *       INBOX_OPENED and ALL_READ.
 *   <li>{@code seq}: MESSAGE: the message's seq in its conversation (0 when none);
 *       CONVERSATION_READ: {@code readSeq}; MEMBER_JOINED, MEMBER_LEFT: the change's seq;
 *       CONVERSATION_PREFERENCE: the {@code countPreference}, {@link #ALL}, {@link #MENTIONS} or
 *       {@link #NONE} (ordered from loudest to quietest, as the contract breaks ties);
 *       MESSAGE_DELETED: the deleted message's seq; THREAD_READ: {@code readSeq}; THREAD_FOLLOWED:
 *       1 for {@code following} true, 0 for false.
 *   <li>{@code time}: epoch milliseconds; {@code sentAt} of a message, {@code readAt} of a read,
 *       {@code setAt} of a preference or a follow, {@code markedAt} of a mark, {@code erasedAt} of
 *       an erasure, the expiry's processing time of CHANNEL_EXPIRED; 0 for membership changes and
 *       deletions.
 *   <li>{@code mentioned}: MESSAGE only: the message mentions its receiver.
 *   <li>{@code deleted}: MESSAGE only: the conversation's stage knew the message deleted when it
 *       delivered it (see dev.unread.groups.GroupFanOut); it counts toward the sender badge and
 *       makes followers as any message does, and toward no unread, mention or thread count.
 *   <li>{@code threadSeq}: MESSAGE: the root's seq of a reply, 0 for a conversation message;
 *       THREAD_READ, THREAD_FOLLOWED: the thread's root seq; MESSAGE_EDITED: the root's seq when
 *       the edited message is a reply; 0 otherwise.
 *   <li>{@code mentionsAll}: MESSAGE and MESSAGE_EDITED: the message (as sent, or as edited)
 *       mentions the whole channel (@all, @channel, @here); CONVERSATION_PREFERENCE: the value of
 *       {@code ignoreChannelMentions}, which the event carries when its {@code mentioned} is set.
 *   <li>{@code rootSenderId}: MESSAGE of a reply: the sender of its root when the producer named it
 *       (whoever it is makes the thread followed by default), 0 when not; 0 otherwise.
 * </ul>
 *
 * <p>MESSAGE_EDITED: {@code seq} is the edited message's seq, {@code time} the {@code editedAt},
 * {@code mentioned} whether the edit names the receiver; {@code deleted} as for MESSAGE. A
 * CONVERSATION_PREFERENCE without a {@code countPreference} has {@link #NO_COUNT_PREFERENCE} in
 * {@code seq}.
 *
 * <p>Crosses the network with {@link ChatEventSerializer}.
 */
@TypeInfo(ChatEventSerializer.TypeInfoFactoryImpl.class)
public class ChatEvent {

    /**
     * The kinds of input the contract defines, per user, each with the catalog's kind of record it
     * comes from (a group's record for those the fan-out delivers). New kinds go last: the ordinal
     * crosses the network (ChatEventSerializer).
     */
    public enum Kind {
        MESSAGE(InputKind.MESSAGE),
        INBOX_OPENED(InputKind.INBOX_OPENED),
        CONVERSATION_READ(InputKind.CONVERSATION_READ),
        MEMBER_JOINED(InputKind.MEMBER_JOINED),
        MEMBER_LEFT(InputKind.MEMBER_LEFT),
        CONVERSATION_PREFERENCE(InputKind.CONVERSATION_PREFERENCE),
        CONVERSATION_MARKED_UNREAD(InputKind.CONVERSATION_MARKED_UNREAD),
        MESSAGE_DELETED(InputKind.MESSAGE_DELETED),
        THREAD_READ(InputKind.THREAD_READ),
        THREAD_FOLLOWED(InputKind.THREAD_FOLLOWED),
        MESSAGE_EDITED(InputKind.MESSAGE_EDITED),
        ALL_READ(InputKind.ALL_READ),
        USER_ERASED(InputKind.USER_ERASED),
        /** A membership event of a channel, to its member: the member's channel list learns C. */
        CHANNEL_JOINED(InputKind.MEMBER_JOINED),
        CHANNEL_LEFT(InputKind.MEMBER_LEFT),
        /**
         * A channel's message that names its receiver by id while a member at its seq: it counts
         * toward the sender badge alone (the channel stage counts the rest).
         */
        CHANNEL_MENTION(InputKind.GROUP_MESSAGE),
        /**
         * The user's idle expiry, which the user's state makes for each channel of its list: the
         * member counts as having read all the channel's stage has seen. No record carries it.
         */
        CHANNEL_EXPIRED(null);

        private final InputKind input;

        Kind(InputKind input) {
            this.input = input;
        }

        /** The record this kind of event is parsed from or delivered for; null for none. */
        public InputKind input() {
            return input;
        }
    }

    /** Count preferences, in {@code seq}: a greater value is quieter. */
    public static final long ALL = InputField.CountPreference.ALL.ordinal();

    public static final long MENTIONS = InputField.CountPreference.MENTIONS.ordinal();
    public static final long NONE = InputField.CountPreference.NONE.ordinal();

    /** In a CONVERSATION_PREFERENCE's {@code seq}: the event carries no {@code countPreference}. */
    public static final long NO_COUNT_PREFERENCE = -1;

    public Kind kind;
    public long userId;
    public long senderId;
    public long conversationId;
    public long seq;
    public long time;
    public boolean mentioned;
    public boolean deleted;
    public long threadSeq;
    public long rootSenderId;
    public boolean mentionsAll;

    public ChatEvent() {}

    private ChatEvent(
            Kind kind, long userId, long senderId, long conversationId, long seq, long time) {
        this.kind = kind;
        this.userId = userId;
        this.senderId = senderId;
        this.conversationId = conversationId;
        this.seq = seq;
        this.time = time;
    }

    /** A message without a conversation: it counts toward the sender badge only. */
    public static ChatEvent message(long senderId, long receiverId, long sentAt) {
        return new ChatEvent(Kind.MESSAGE, receiverId, senderId, 0, 0, sentAt);
    }

    public static ChatEvent message(
            long senderId, long receiverId, long conversationId, long seq, long sentAt) {
        return new ChatEvent(Kind.MESSAGE, receiverId, senderId, conversationId, seq, sentAt);
    }

    /** A message in a conversation that mentions its receiver. */
    public static ChatEvent mention(
            long senderId, long receiverId, long conversationId, long seq, long sentAt) {
        ChatEvent e = message(senderId, receiverId, conversationId, seq, sentAt);
        e.mentioned = true;
        return e;
    }

    /** {@code preference} is {@link #ALL}, {@link #MENTIONS} or {@link #NONE}. */
    public static ChatEvent preference(
            long userId, long conversationId, long preference, long setAt) {
        return new ChatEvent(
                Kind.CONVERSATION_PREFERENCE, userId, 0, conversationId, preference, setAt);
    }

    public static ChatEvent markedUnread(long userId, long conversationId, long markedAt) {
        return new ChatEvent(
                Kind.CONVERSATION_MARKED_UNREAD, userId, 0, conversationId, 0, markedAt);
    }

    public static ChatEvent inboxOpened(long userId, long readAt) {
        return new ChatEvent(Kind.INBOX_OPENED, userId, 0, 0, 0, readAt);
    }

    /** ALL_READ: everything sent to the user up to {@code readAt} is read, see Conversations. */
    public static ChatEvent allRead(long userId, long readAt) {
        return new ChatEvent(Kind.ALL_READ, userId, 0, 0, 0, readAt);
    }

    public static ChatEvent conversationRead(
            long userId, long conversationId, long readSeq, long readAt) {
        return new ChatEvent(Kind.CONVERSATION_READ, userId, 0, conversationId, readSeq, readAt);
    }

    /** U joined ({@code joined}) or left conversation C at {@code seq}. */
    public static ChatEvent membership(boolean joined, long userId, long conversationId, long seq) {
        return new ChatEvent(
                joined ? Kind.MEMBER_JOINED : Kind.MEMBER_LEFT, userId, 0, conversationId, seq, 0);
    }

    /** U joined ({@code joined}) or left channel C at {@code seq}. */
    public static ChatEvent channelMembership(
            boolean joined, long userId, long channelId, long seq) {
        return new ChatEvent(
                joined ? Kind.CHANNEL_JOINED : Kind.CHANNEL_LEFT, userId, 0, channelId, seq, 0);
    }

    /** Channel C's message {@code seq} names {@code receiverId}, a member at its seq. */
    public static ChatEvent channelMention(
            long senderId, long receiverId, long channelId, long seq, long sentAt) {
        ChatEvent e =
                new ChatEvent(Kind.CHANNEL_MENTION, receiverId, senderId, channelId, seq, sentAt);
        e.mentioned = true;
        return e;
    }

    /** The user's idle expiry reached channel C, at {@code expiredAt} (processing time). */
    public static ChatEvent channelExpired(long userId, long channelId, long expiredAt) {
        return new ChatEvent(Kind.CHANNEL_EXPIRED, userId, 0, channelId, 0, expiredAt);
    }

    /** Message {@code seq} of the conversation is deleted, told to one of its participants. */
    public static ChatEvent deleted(long userId, long conversationId, long seq) {
        return new ChatEvent(Kind.MESSAGE_DELETED, userId, 0, conversationId, seq, 0);
    }

    /**
     * U's CONVERSATION_PREFERENCE that carries {@code ignoreChannelMentions} and, unless {@code
     * preference} is {@link #NO_COUNT_PREFERENCE}, a {@code countPreference} too.
     */
    public static ChatEvent ignoreChannelMentions(
            long userId, long conversationId, long preference, boolean ignore, long setAt) {
        ChatEvent e = preference(userId, conversationId, preference, setAt);
        e.mentioned = true;
        e.mentionsAll = ignore;
        return e;
    }

    /** An edit of message {@code seq} (a reply of {@code threadSeq}, or 0), to its receiver. */
    public static ChatEvent edited(
            long receiverId,
            long conversationId,
            long seq,
            long threadSeq,
            long editedAt,
            boolean mentioned,
            boolean mentionsAll) {
        ChatEvent e =
                new ChatEvent(Kind.MESSAGE_EDITED, receiverId, 0, conversationId, seq, editedAt);
        e.threadSeq = threadSeq;
        e.mentioned = mentioned;
        e.mentionsAll = mentionsAll;
        return e;
    }

    /**
     * Keeps each optional field of the record that {@code given} names ({@link
     * RecordFields#optional}) in its slot, after the kind's factory filled the required ones.
     */
    ChatEvent keep(long given, RecordFields fields) {
        for (long rest = given; rest != 0; rest &= rest - 1) {
            int i = Long.numberOfTrailingZeros(rest);
            keep(TopicFields.FIELDS[i], fields.values[i]);
        }
        return this;
    }

    /**
     * The slot of each optional input field, the one place that says which holds which; {@code
     * value} as {@link RecordFields#values} has it. A new optional field is kept here, in a slot it
     * shares (with an accessor that names it) or a new one, which {@link ChatEventSerializer} then
     * carries.
     */
    private void keep(InputField field, long value) {
        switch (field) {
            case CONVERSATION_ID -> conversationId = value;
            case SEQ -> seq = value;
            case MENTIONED -> mentioned = value == 1;
            case MENTIONS_ALL -> mentionsAll = value == 1;
            case THREAD_SEQ -> threadSeq = value;
            case ROOT_SENDER_ID -> rootSenderId = value;
            case COUNT_PREFERENCE -> seq = value;
            case IGNORE_CHANNEL_MENTIONS -> {
                mentioned = true;
                mentionsAll = value == 1;
            }
            // messageId is checked, never kept; the others no kind of ChatEvent's carries
            // optionally.
            default -> {}
        }
    }

    /** Whether this CONVERSATION_PREFERENCE carries a {@code countPreference}. */
    public boolean carriesCountPreference() {
        return seq != NO_COUNT_PREFERENCE;
    }

    /**
     * CONVERSATION_PREFERENCE: the {@code countPreference}, {@link #ALL}, {@link #MENTIONS} or
     * {@link #NONE}, when it {@link #carriesCountPreference()}.
     */
    public long countPreference() {
        return seq;
    }

    /** Whether this CONVERSATION_PREFERENCE carries {@code ignoreChannelMentions}. */
    public boolean carriesIgnoreChannelMentions() {
        return mentioned;
    }

    /**
     * CONVERSATION_PREFERENCE: the value of {@code ignoreChannelMentions}, when it {@link
     * #carriesIgnoreChannelMentions()}.
     */
    public boolean ignoresChannelMentions() {
        return mentionsAll;
    }

    /** CONVERSATION_READ, THREAD_READ: the {@code readSeq}. */
    public long readSeq() {
        return seq;
    }

    /** THREAD_FOLLOWED: the value of {@code following}. */
    public boolean following() {
        return seq == 1;
    }

    /** A reply in thread {@code threadSeq} of the conversation. */
    public static ChatEvent reply(
            long senderId,
            long receiverId,
            long conversationId,
            long seq,
            long threadSeq,
            long sentAt,
            boolean mentioned) {
        ChatEvent e = message(senderId, receiverId, conversationId, seq, sentAt);
        e.threadSeq = threadSeq;
        e.mentioned = mentioned;
        return e;
    }

    /** U is erased at {@code erasedAt} (see dev.unread.counter.Erasure). */
    public static ChatEvent userErased(long userId, long erasedAt) {
        return new ChatEvent(Kind.USER_ERASED, userId, 0, 0, 0, erasedAt);
    }

    public static ChatEvent threadRead(
            long userId, long conversationId, long threadSeq, long readSeq, long readAt) {
        ChatEvent e = new ChatEvent(Kind.THREAD_READ, userId, 0, conversationId, readSeq, readAt);
        e.threadSeq = threadSeq;
        return e;
    }

    public static ChatEvent threadFollowed(
            long userId, long conversationId, long threadSeq, boolean following, long setAt) {
        ChatEvent e =
                new ChatEvent(
                        Kind.THREAD_FOLLOWED, userId, 0, conversationId, following ? 1 : 0, setAt);
        e.threadSeq = threadSeq;
        return e;
    }

    /** A reply ({@code threadSeq > 0}) rather than a conversation message. */
    public boolean isReply() {
        return threadSeq > 0;
    }

    public boolean hasConversation() {
        return conversationId > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ChatEvent)) {
            return false;
        }
        ChatEvent that = (ChatEvent) o;
        return kind == that.kind
                && userId == that.userId
                && senderId == that.senderId
                && conversationId == that.conversationId
                && seq == that.seq
                && time == that.time
                && mentioned == that.mentioned
                && deleted == that.deleted
                && threadSeq == that.threadSeq
                && rootSenderId == that.rootSenderId
                && mentionsAll == that.mentionsAll;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                kind,
                userId,
                senderId,
                conversationId,
                seq,
                time,
                mentioned,
                deleted,
                threadSeq,
                rootSenderId,
                mentionsAll);
    }

    @Override
    public String toString() {
        return ChatEventText.of(this);
    }
}
