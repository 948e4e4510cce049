package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * What a channel's records and its members' facts do to the channel stage's state, for the current
 * key's channel, and what they write and which cursors they raise. {@link ChannelStage} drives it
 * from the job's streams; the bootstrap (savepoint-tools) drives it from MySQL history, so that the
 * state it writes into a savepoint is the state the stage itself would hold after that history.
 */
public final class ChannelCounting {

    private final long maxChannelSeq;
    private final ChannelSummary summary;
    private final ChannelMessages messages;
    private final MemberFacts facts;

    /**
     * Binds the stage's states in {@code context}. {@code incarnation}: see ChannelStage (a track
     * is written on its first touch by each incarnation); {@code maxChannelSeq} and {@code
     * maxBareThreads}: as the stage's.
     */
    public ChannelCounting(
            RuntimeContext context, long incarnation, long maxChannelSeq, int maxBareThreads) {
        this.maxChannelSeq = maxChannelSeq;
        summary = new ChannelSummary(context.getState(ChannelStateSchema.SUMMARY));
        SeqIndex index = new SeqIndex(context.getMapState(ChannelStateSchema.BLOCKS));
        MessageTimes times = new MessageTimes(context.getMapState(ChannelStateSchema.SENT_AT));
        FloorIndex floors =
                new FloorIndex(
                        context.getMapState(ChannelStateSchema.FLOOR_TIMES),
                        context.getMapState(ChannelStateSchema.FLOOR_BUCKETS),
                        context.getState(ChannelStateSchema.FLOOR_GROUPS));
        var messageState = context.getMapState(ChannelStateSchema.MESSAGES);
        Members members =
                new Members(
                        context.getMapState(ChannelStateSchema.MEMBERS),
                        index,
                        summary,
                        incarnation);
        ChannelThreads threads =
                new ChannelThreads(
                        context.getMapState(ChannelStateSchema.THREADS),
                        messageState,
                        members,
                        incarnation,
                        maxBareThreads,
                        maxChannelSeq);
        facts =
                new MemberFacts(
                        members, times, floors, summary, messageState, threads, maxChannelSeq);
        messages =
                new ChannelMessages(messageState, index, times, summary, members, facts, threads);
    }

    /**
     * One of the channel's records, as the fan-out hands it on; false for a message past {@code
     * maxChannelSeq}, which counts for nobody and changes nothing.
     */
    public boolean record(
            ConversationEvent e,
            Consumer<ChannelWrite> writes,
            Consumer<ConversationCursor> cursors)
            throws Exception {
        Out to = new Out(e.conversationId, writes, cursors);
        summary.load();
        switch (e.kind) {
            case MESSAGE -> {
                if (e.seq > maxChannelSeq) {
                    return false;
                }
                messages.message(e, to);
            }
            case MESSAGE_DELETED -> {
                if (e.seq <= maxChannelSeq) {
                    messages.deleted(e, to);
                }
            }
            case MESSAGE_EDITED -> messages.edited(e, to);
            case MEMBER_JOINED -> facts.membership(e.userId, e.seq, to);
            case MEMBER_LEFT -> facts.membership(e.userId, -e.seq, to);
            // The declaration changes nothing here; the job's own kinds never name a channel.
            case CHANNEL, PARTICIPANT, RECEIVED_REPLY -> {}
        }
        return true;
    }

    /** One of a member's facts about the channel, as the member's counter forwards it. */
    public void fact(
            ChatEvent e, Consumer<ChannelWrite> writes, Consumer<ConversationCursor> cursors)
            throws Exception {
        summary.load();
        facts.fact(e, new Out(e.conversationId, writes, cursors));
    }
}
