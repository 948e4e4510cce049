package dev.unread.channels;

import dev.unread.contract.TrackJson;
import dev.unread.events.ChannelWrite;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * What Redis holds of a channel by the stage's state alone, as the {@link ChannelWrite}s that write
 * it into an empty Redis: each block of {@code chat:channel:{C}:seqs}, each member of the sorted
 * sets, and each member's tracks, the values the stage last wrote (a member's track is a function
 * of its record, written whenever it changes; a thread's is the one its record says was written).
 * For the savepoint tools, which read a savepoint's channel state through the stage's own
 * descriptors: {@code savepoint republish} rebuilds Redis with it, {@code savepoint inspect --user}
 * shows a user's tracks.
 */
public final class ChannelStateWrites {

    private final MapState<Long, byte[]> blocks;
    private final MapState<Long, long[]> messages;
    private final MapState<Long, long[]> members;
    private final MapState<Tuple2<Long, Long>, long[]> threads;
    private final TrackJson json = new TrackJson();

    /** Binds the stage's states in {@code context}, keyed by conversation as the stage's are. */
    public ChannelStateWrites(RuntimeContext context) {
        blocks = context.getMapState(ChannelStateSchema.BLOCKS);
        messages = context.getMapState(ChannelStateSchema.MESSAGES);
        members = context.getMapState(ChannelStateSchema.MEMBERS);
        threads = context.getMapState(ChannelStateSchema.THREADS);
    }

    /**
     * The index of the current key's channel: its blocks, then the channel-wide mentions among its
     * roots and each reply in its thread's sets, of the messages not deleted (by their newest
     * edit).
     */
    public void index(long conversationId, Consumer<ChannelWrite> out) throws Exception {
        for (Map.Entry<Long, byte[]> block : blocks.entries()) {
            out.accept(ChannelWrite.block(conversationId, block.getKey(), block.getValue()));
        }
        for (Map.Entry<Long, long[]> message : messages.entries()) {
            MessageRecord m = MessageRecord.decode(message.getValue());
            if (!m.present() || m.deleted()) {
                continue;
            }
            long seq = message.getKey();
            if (!m.root()) {
                out.accept(ChannelWrite.seq(conversationId, true, m.threadSeq, false, seq));
            }
            if (m.all()) {
                out.accept(ChannelWrite.seq(conversationId, true, m.threadSeq, true, seq));
            }
        }
    }

    /** Every member's tracks of the current key's channel. */
    public void tracks(long conversationId, Consumer<ChannelWrite> out) throws Exception {
        for (Map.Entry<Long, long[]> member : members.entries()) {
            tracks(conversationId, member.getKey(), member.getValue(), out);
        }
    }

    /** User {@code userId}'s tracks of the current key's channel; none when it has none. */
    public void tracksOf(long conversationId, long userId, Consumer<ChannelWrite> out)
            throws Exception {
        long[] form = members.get(userId);
        if (form != null) {
            tracks(conversationId, userId, form, out);
        }
    }

    /** As Members#finish and ChannelThreads#close write them: only of a user with memberships. */
    private void tracks(long conversationId, long userId, long[] form, Consumer<ChannelWrite> out)
            throws Exception {
        MemberRecord member = MemberRecord.decode(form);
        if (!member.hasMemberships()) {
            return;
        }
        out.accept(ChannelWrite.track(conversationId, userId, 0, json.write(member.track())));
        for (long entry : member.threads) {
            long root = entry >>> 1;
            ThreadRecord thread = ThreadRecord.decode(threads.get(Tuple2.of(userId, root)));
            if (thread.shown != null) {
                out.accept(
                        ChannelWrite.track(conversationId, userId, root, json.write(thread.shown)));
            }
        }
    }
}
