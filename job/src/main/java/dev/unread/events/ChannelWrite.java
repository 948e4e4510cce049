package dev.unread.events;

import java.util.Arrays;
import java.util.Objects;

/**
 * One write of the channel stage to Redis (docs/contract.md, "Channels in Redis"), for the channel
 * sink, which groups a flush's writes by channel: the members' tracks first, then each channel's
 * index in one {@code MULTI} with its version, then the notices.
 *
 * <ul>
 *   <li>{@link Kind#BLOCK}: {@code seq} is the index of a 64-byte block of {@code
 *       chat:channel:{C}:seqs}, {@code bytes} its whole content, written with {@code SETRANGE} at
 *       {@code seq * 64} (absolute: a lost write is repaired by the next of its block).
 *   <li>{@link Kind#SEQ_ADDED}, {@link Kind#SEQ_REMOVED}: {@code seq} joins or leaves a sorted set
 *       (member and score {@code seq}): with {@code threadSeq} 0 and {@code all} the channel's
 *       {@code :all}; with {@code threadSeq} T the thread's {@code :t:{T}}, or {@code :t:{T}:all}
 *       when {@code all}.
 *   <li>{@link Kind#TRACK}: the member {@code userId}'s track, field {@code {C}} ({@code threadSeq}
 *       0) or {@code {C}:{T}} of {@code chat:channel-tracks:{userId}}; {@code json} its JSON, null
 *       to remove the field.
 *   <li>{@link Kind#NOTICE}: a {@code CHANNEL_CHANGED} of C for {@code change}, {@code seq}, {@code
 *       threadSeq}, {@code senderId} and {@code all} (its {@code mentionsAll}); the sink gives it
 *       the version its index write set.
 * </ul>
 */
public class ChannelWrite {

    /** What is written. New kinds go last: the ordinal crosses the network. */
    public enum Kind {
        BLOCK,
        SEQ_ADDED,
        SEQ_REMOVED,
        TRACK,
        NOTICE
    }

    /** A {@code CHANNEL_CHANGED}'s {@code change}. */
    public enum Change {
        MESSAGE,
        DELETED,
        EDITED
    }

    /** Bytes per block of the bitmap: 512 seqs. */
    public static final int BLOCK_BYTES = 64;

    public Kind kind;
    public long conversationId;
    public long userId;
    public long seq;
    public long threadSeq;
    public boolean all;
    public byte[] bytes;
    public String json;
    public long senderId;
    public Change change;

    public ChannelWrite() {}

    private ChannelWrite(Kind kind, long conversationId) {
        this.kind = kind;
        this.conversationId = conversationId;
    }

    public static ChannelWrite block(long conversationId, long block, byte[] bytes) {
        ChannelWrite write = new ChannelWrite(Kind.BLOCK, conversationId);
        write.seq = block;
        write.bytes = bytes;
        return write;
    }

    /** {@code seq} into ({@code added}) or out of a sorted set; see the class comment. */
    public static ChannelWrite seq(
            long conversationId, boolean added, long threadSeq, boolean all, long seq) {
        ChannelWrite write =
                new ChannelWrite(added ? Kind.SEQ_ADDED : Kind.SEQ_REMOVED, conversationId);
        write.threadSeq = threadSeq;
        write.all = all;
        write.seq = seq;
        return write;
    }

    /**
     * A member's track of C ({@code threadSeq} 0) or of its thread; null {@code json} removes it.
     */
    public static ChannelWrite track(
            long conversationId, long userId, long threadSeq, String json) {
        ChannelWrite write = new ChannelWrite(Kind.TRACK, conversationId);
        write.userId = userId;
        write.threadSeq = threadSeq;
        write.json = json;
        return write;
    }

    public static ChannelWrite notice(
            long conversationId,
            Change change,
            long seq,
            long threadSeq,
            long senderId,
            boolean mentionsAll) {
        ChannelWrite write = new ChannelWrite(Kind.NOTICE, conversationId);
        write.change = change;
        write.seq = seq;
        write.threadSeq = threadSeq;
        write.senderId = senderId;
        write.all = mentionsAll;
        return write;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ChannelWrite)) {
            return false;
        }
        ChannelWrite that = (ChannelWrite) o;
        return kind == that.kind
                && conversationId == that.conversationId
                && userId == that.userId
                && seq == that.seq
                && threadSeq == that.threadSeq
                && all == that.all
                && Arrays.equals(bytes, that.bytes)
                && Objects.equals(json, that.json)
                && senderId == that.senderId
                && change == that.change;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                kind,
                conversationId,
                userId,
                seq,
                threadSeq,
                all,
                Arrays.hashCode(bytes),
                json,
                senderId,
                change);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case BLOCK -> "Block(c" + conversationId + " #" + seq + ")";
            case SEQ_ADDED, SEQ_REMOVED ->
                    (kind == Kind.SEQ_ADDED ? "Added(c" : "Removed(c")
                            + conversationId
                            + (threadSeq > 0 ? " t" + threadSeq : "")
                            + (all ? " all" : "")
                            + " "
                            + seq
                            + ")";
            case TRACK ->
                    "Track(u"
                            + userId
                            + " c"
                            + conversationId
                            + (threadSeq > 0 ? ":" + threadSeq : "")
                            + " "
                            + json
                            + ")";
            case NOTICE -> "Notice(c" + conversationId + " " + change + " " + seq + ")";
        };
    }
}
