package dev.unread.groups;

import dev.unread.channels.ChannelStage;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.state.Memberships;
import dev.unread.state.StateSchema;
import java.util.Map;
import java.util.function.LongConsumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Per conversation (the key): the membership of every user with a membership event in it, and each
 * {@code MESSAGE} fanned out to the members at its seq as one per-user MESSAGE, so that a group
 * message counts in the same per-user state ({@code UnreadCounter}) as a {@code chat-messages}
 * record to each member would. Membership changes are forwarded to the member's own key too, for
 * the rule that hides a leaver's counts.
 *
 * <p>member(U,C,s) is decided by U's membership event with the largest seq below s (JOINED: a
 * member; LEFT or none: not; JOINED and LEFT at one seq: LEFT). State keeps, per user, the distinct
 * membership events seen, so a message that arrives after a later change (a duplicate, a replay, or
 * simply a message published after that change but with a lower seq) is still decided by the change
 * that governs it. So state grows with members and their membership changes, never with messages. A
 * message or deletion past every membership event (the common case) is governed by each user's
 * newest event, so it walks only the current members ({@link StateSchema#CURRENT_MEMBERS}), not
 * everyone who ever left; one below a membership event walks every history.
 *
 * <p>The one precondition of the contract: a membership event arrives before the messages with a
 * higher seq that it governs (one partition per conversation keeps that order). A membership event
 * that arrives late governs only the messages that arrive after it, replays included: the messages
 * fanned out before it are neither delivered to a late joiner nor taken back from a late leaver (no
 * message is kept to do either). A late MEMBER_LEFT still hides the leaver's counts at once, as any
 * newest LEFT does.
 *
 * <p>A {@code MESSAGE_EDITED} goes to the members the message reached but its sender, each with
 * whether the edit names them ({@code Edits} in the counter decides which edit is newest). An edit
 * names neither the sender nor the thread, so every message keeps both here ({@link
 * StateSchema#CONVERSATION_MESSAGES}): one entry of two longs per group message, for the life of
 * the conversation's state, the one part of this state that grows with messages.
 *
 * <p>Every reply also goes to its sender's own key, where it counts toward nothing but tells the
 * sender's thread state that the sender wrote it (see {@code Threads}): one record more per reply,
 * whatever the group's size. A root's sender learns it follows from the replies that name it
 * ({@code rootSenderId}); with {@code trackRootSenders} every message goes to its sender, so that
 * the sender of a root follows its thread when the replies do not name them (version 3's way).
 *
 * <p>A duplicate or replayed message fans out again to the same members: the per-user state is a
 * set of seqs, so a repeated delivery changes nothing. A message to N members is N records, emitted
 * while walking the member map, never collected into a list first.
 *
 * <p>A {@code MESSAGE_DELETED} goes to whoever may have received the message, for {@code Deletions}
 * to take it out of their counts: the members at its seq, and the participants {@code
 * chat-messages} records named in the conversation (senders and receivers, as PARTICIPANT notices),
 * whom {@link DeletionsToCome} knows and catches up when first seen. A message that comes after its
 * deletion is delivered stamped deleted ({@link ChatEvent#deleted}): it still counts toward the
 * sender badge and makes followers, and toward nothing else. The stamp is what makes every order
 * exact: a member whose MEMBER_JOINED comes after the deletion was not told it, and a reply, which
 * its thread cursor governs, may come after the user's conversation cursor passed its seq and cut
 * the user's own memory of the deletion. So {@code chat-messages} replies come through here too
 * (RECEIVED_REPLY), one record to one receiver. A deletion that arrives after a message was
 * delivered reaches its users behind that delivery: one conversation's records to one user keep
 * their order between this stage and the counter, as every Flink channel keeps its order. A
 * deletion never changes who is a member.
 *
 * <p>A channel (a {@code CHANNEL} before any other record of the conversation) is counted once per
 * message by the channel stage, not here: its records go unchanged to {@link #CHANNEL_RECORDS}, a
 * membership event also to the member's key (which learns the channel), and a message to each user
 * it names by id who is a member at its seq, for the sender badge alone. O(1) per record and per
 * user named, whatever the channel's size. A {@code CHANNEL} after other records changes nothing
 * and counts in {@link #LATE_CHANNEL_DECLARATIONS}.
 */
public class GroupFanOut extends KeyedProcessFunction<Long, ConversationEvent, ChatEvent> {

    /** Every record of a channel, for the channel stage. */
    public static final OutputTag<ConversationEvent> CHANNEL_RECORDS =
            new OutputTag<>("channel-records", TypeInformation.of(ConversationEvent.class));

    /** The metric of CHANNEL records that came after other records of their conversation. */
    public static final String LATE_CHANNEL_DECLARATIONS = "lateChannelDeclarations";

    private final boolean trackRootSenders;
    private final long maxChannelSeq;

    private transient MapState<Long, long[]> members;
    private transient MapState<Long, Boolean> current;
    private transient ValueState<Long> lastMembershipSeq;
    private transient DeletionsToCome toCome;
    private transient MapState<Long, long[]> messages;
    private transient ValueState<Boolean> channel;
    private transient Counter lateChannels;

    /** Users walked to deliver a message or a deletion: the work, for tests that bound it. */
    private long membersVisited;

    /** Emitted for every delivery: the record is serialized at once (the next stage is keyed). */
    private transient ChatEvent delivery;

    /** Sends replies alone to their senders, as a job without {@code --track-root-senders}. */
    public GroupFanOut() {
        this(false, ChannelStage.DEFAULT_MAX_CHANNEL_SEQ);
    }

    /**
     * {@code maxChannelSeq} ({@code --max-channel-seq}): a channel's message past it names nobody
     * for the badge, as it counts for nobody in the channel stage.
     */
    public GroupFanOut(boolean trackRootSenders, long maxChannelSeq) {
        this.trackRootSenders = trackRootSenders;
        this.maxChannelSeq = maxChannelSeq;
    }

    @Override
    public void open(OpenContext openContext) {
        members = getRuntimeContext().getMapState(StateSchema.MEMBERS);
        current = getRuntimeContext().getMapState(StateSchema.CURRENT_MEMBERS);
        lastMembershipSeq = getRuntimeContext().getState(StateSchema.LAST_MEMBERSHIP_SEQ);
        toCome = new DeletionsToCome(getRuntimeContext());
        messages = getRuntimeContext().getMapState(StateSchema.CONVERSATION_MESSAGES);
        channel = getRuntimeContext().getState(StateSchema.CHANNEL);
        lateChannels = getRuntimeContext().getMetricGroup().counter(LATE_CHANNEL_DECLARATIONS);
        delivery = new ChatEvent();
    }

    /** What one kind of record does here. */
    @FunctionalInterface
    private interface Step {
        void apply(ConversationEvent event, Collector<ChatEvent> out) throws Exception;
    }

    @Override
    public void processElement(ConversationEvent event, Context ctx, Collector<ChatEvent> out)
            throws Exception {
        if (event.kind == ConversationEvent.Kind.CHANNEL) {
            declare(event, ctx);
            return;
        }
        // chat-messages' notices and replies never name a channel (a precondition): they pass
        // without the look.
        if (event.kind != ConversationEvent.Kind.PARTICIPANT
                && event.kind != ConversationEvent.Kind.RECEIVED_REPLY
                && channel.value() != null) {
            ctx.output(CHANNEL_RECORDS, event);
            channelRecord(event, out);
            return;
        }
        // A switch expression, so that a new kind does not compile until it has its step here.
        Step step =
                switch (event.kind) {
                    case MESSAGE -> this::fanOut;
                    case MESSAGE_DELETED -> (e, o) -> delete(e.conversationId, e.seq, o);
                    case RECEIVED_REPLY -> this::deliverReply;
                    case MESSAGE_EDITED -> this::edit;
                    case PARTICIPANT ->
                            (e, o) ->
                                    toCome.participant(
                                            e.userId,
                                            seq -> emitDeleted(e.userId, e.conversationId, seq, o));
                    case MEMBER_JOINED, MEMBER_LEFT -> (e, o) -> membership(e, o, false);
                    case CHANNEL -> throw new IllegalStateException("declared above");
                };
        step.apply(event, out);
    }

    /** A CHANNEL: the conversation is one if nothing of it came before. */
    private void declare(ConversationEvent event, Context ctx) throws Exception {
        if (channel.value() != null) {
            ctx.output(CHANNEL_RECORDS, event);
            return;
        }
        if (lastMembershipSeq.value() != null || !messages.isEmpty() || !toCome.isEmpty()) {
            lateChannels.inc();
            return;
        }
        channel.update(true);
        ctx.output(CHANNEL_RECORDS, event);
    }

    /**
     * A channel's record, beside its copy to the channel stage: a membership goes to the member
     * too, and a message to each user it names by id who is a member at its seq.
     */
    private void channelRecord(ConversationEvent event, Collector<ChatEvent> out) throws Exception {
        switch (event.kind) {
            case MEMBER_JOINED, MEMBER_LEFT -> membership(event, out, true);
            case MESSAGE -> {
                if (event.seq > maxChannelSeq) {
                    return;
                }
                for (long named : event.mentions) {
                    long[] events = members.get(named);
                    if (named != event.senderId
                            && events != null
                            && Memberships.isMember(events, event.seq)) {
                        out.collect(
                                ChatEvent.channelMention(
                                        event.senderId,
                                        named,
                                        event.conversationId,
                                        event.seq,
                                        event.sentAt));
                    }
                }
            }
            case MESSAGE_DELETED, MESSAGE_EDITED, PARTICIPANT, RECEIVED_REPLY, CHANNEL -> {}
        }
    }

    /**
     * MEMBER_JOINED or MEMBER_LEFT: kept, and passed on to the user's state, as a channel's when
     * {@code ofChannel}.
     */
    private void membership(ConversationEvent event, Collector<ChatEvent> out, boolean ofChannel)
            throws Exception {
        boolean joined = event.kind == ConversationEvent.Kind.MEMBER_JOINED;
        long last = lastMembershipSeq();
        long[] events = members.get(event.userId);
        long[] updated = Memberships.with(events == null ? new long[0] : events, joined, event.seq);
        if (updated != events) {
            members.put(event.userId, updated);
            if (updated[updated.length - 1] > 0) {
                current.put(event.userId, true);
            } else {
                current.remove(event.userId);
            }
        }
        if (event.seq > last) {
            lastMembershipSeq.update(event.seq);
        }
        out.collect(
                ofChannel
                        ? ChatEvent.channelMembership(
                                joined, event.userId, event.conversationId, event.seq)
                        : ChatEvent.membership(
                                joined, event.userId, event.conversationId, event.seq));
    }

    private void fanOut(ConversationEvent message, Collector<ChatEvent> out) throws Exception {
        messages.put(message.seq, new long[] {message.senderId, message.threadSeq});
        startDelivery(message);
        if (message.threadSeq > 0 || trackRootSenders) {
            delivery.userId = message.senderId;
            delivery.mentioned = false;
            out.collect(delivery);
        }
        forEachMemberAt(
                message.seq,
                user -> {
                    // The sender had its own copy above, if any.
                    if (user != message.senderId) {
                        delivery.userId = user;
                        delivery.mentioned = message.mentions(user);
                        out.collect(delivery);
                    }
                });
    }

    /**
     * A MESSAGE_EDITED, to the members its message reached but its sender, each with whether the
     * edit names them. The precondition (the edit comes after its message, on this partition) makes
     * the message's record here the test of "seen": an edit of a seq without one changes nothing.
     */
    private void edit(ConversationEvent edit, Collector<ChatEvent> out) throws Exception {
        long[] message = messages.get(edit.seq);
        if (message == null) {
            return;
        }
        long senderId = message[0];
        delivery.kind = ChatEvent.Kind.MESSAGE_EDITED;
        delivery.deleted = toCome.isDeleted(edit.conversationId, edit.seq);
        delivery.senderId = 0;
        delivery.conversationId = edit.conversationId;
        delivery.seq = edit.seq;
        delivery.time = edit.sentAt;
        delivery.threadSeq = message[1];
        delivery.mentionsAll = edit.mentionsAll;
        forEachMemberAt(
                edit.seq,
                user -> {
                    if (user != senderId) {
                        delivery.userId = user;
                        delivery.mentioned = edit.mentions(user);
                        out.collect(delivery);
                    }
                });
    }

    /**
     * member(U,C,seq) for every U: past every membership event the current members, else each
     * history decides; each member to {@code visit}, counted as walked.
     */
    private void forEachMemberAt(long seq, LongConsumer visit) throws Exception {
        if (seq > lastMembershipSeq()) {
            for (long user : current.keys()) {
                membersVisited++;
                visit.accept(user);
            }
            return;
        }
        for (Map.Entry<Long, long[]> member : members.entries()) {
            membersVisited++;
            if (Memberships.isMember(member.getValue(), seq)) {
                visit.accept(member.getKey());
            }
        }
    }

    /**
     * The largest membership seq; for state of an earlier build, first builds it and the current
     * members from the histories (once per conversation).
     */
    private long lastMembershipSeq() throws Exception {
        Long last = lastMembershipSeq.value();
        if (last != null) {
            return last;
        }
        long largest = 0;
        for (Map.Entry<Long, long[]> member : members.entries()) {
            long[] events = member.getValue();
            if (events.length > 0) {
                long newest = events[events.length - 1];
                largest = Math.max(largest, Math.abs(newest));
                if (newest > 0) {
                    current.put(member.getKey(), true);
                }
            }
        }
        lastMembershipSeq.update(largest);
        return largest;
    }

    long membersVisited() {
        return membersVisited;
    }

    /** A {@code chat-messages} reply, on to its receiver with the stamp. */
    private void deliverReply(ConversationEvent reply, Collector<ChatEvent> out) throws Exception {
        startDelivery(reply);
        delivery.userId = reply.userId;
        delivery.mentioned = reply.mentions(reply.userId);
        out.collect(delivery);
    }

    /** The delivery of a message or reply, stamped, but for whom it goes to. */
    private void startDelivery(ConversationEvent message) throws Exception {
        delivery.kind = ChatEvent.Kind.MESSAGE;
        delivery.deleted = toCome.isDeleted(message.conversationId, message.seq);
        delivery.senderId = message.senderId;
        delivery.conversationId = message.conversationId;
        delivery.seq = message.seq;
        delivery.time = message.sentAt;
        delivery.threadSeq = message.threadSeq;
        delivery.rootSenderId = message.rootSenderId;
        delivery.mentionsAll = message.mentionsAll;
    }

    /**
     * Tells the members at the seq and every participant, once: a duplicate finds the seq kept, and
     * everyone it would reach was told. A user both member and participant may hear it twice, which
     * their set of deleted seqs makes harmless.
     */
    private void delete(long conversationId, long seq, Collector<ChatEvent> out) throws Exception {
        if (!toCome.delete(
                conversationId, seq, user -> emitDeleted(user, conversationId, seq, out))) {
            return;
        }
        forEachMemberAt(seq, user -> emitDeleted(user, conversationId, seq, out));
    }

    private void emitDeleted(long user, long conversationId, long seq, Collector<ChatEvent> out) {
        delivery.kind = ChatEvent.Kind.MESSAGE_DELETED;
        delivery.userId = user;
        delivery.senderId = 0;
        delivery.conversationId = conversationId;
        delivery.seq = seq;
        delivery.time = 0;
        delivery.mentioned = false;
        delivery.deleted = false;
        delivery.threadSeq = 0;
        delivery.rootSenderId = 0;
        delivery.mentionsAll = false;
        out.collect(delivery);
    }
}
