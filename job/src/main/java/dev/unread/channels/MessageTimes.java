package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.seqs.SentAtFrontier;
import org.apache.flink.api.common.state.MapState;

/**
 * The {@code sentAt} of the channel's messages, roots and replies, by blocks of seqs, for floor(U)
 * = the largest seq sent at or before a time. Each block keeps a dev.unread.seqs.SentAtFrontier,
 * which answers that question exactly for its seqs; the search walks the blocks down from the
 * largest seq and stops at the first with an answer, which is therefore the largest of all, in any
 * order of {@code sentAt}s. A mark all read or an erasure is recent, so it usually stops in the
 * first block.
 */
final class MessageTimes {

    private static final int BLOCK_SEQS = ChannelWrite.BLOCK_BYTES * 8;

    private final MapState<Long, byte[]> blocks;

    MessageTimes(MapState<Long, byte[]> blocks) {
        this.blocks = blocks;
    }

    /**
     * Keeps message {@code seq}'s {@code sentAt}, before {@code summary} takes the message. A
     * message past the largest seq seen (the usual one) is appended after that seq's pair, the last
     * of its block, or starts a block no message has reached yet; any other goes through the
     * arrays.
     */
    void add(long seq, long sentAt, ChannelSummary summary) throws Exception {
        long block = seq / BLOCK_SEQS;
        boolean past = seq > summary.lastSeq;
        if (past && (summary.lastSeq == 0 || summary.lastSeq / BLOCK_SEQS != block)) {
            blocks.put(
                    block, SentAtFrontier.appendedAfter(SentAtFrontier.EMPTY, 0, 0, seq, sentAt));
            return;
        }
        byte[] bytes = blocks.get(block);
        if (bytes == null) {
            bytes = SentAtFrontier.EMPTY;
        }
        byte[] appended =
                past
                        ? SentAtFrontier.appendedAfter(
                                bytes, summary.lastSeq, summary.lastSentAt, seq, sentAt)
                        : null;
        if (appended != null) {
            blocks.put(block, appended);
            return;
        }
        SentAtFrontier frontier = SentAtFrontier.decode(bytes);
        if (frontier.add(seq, sentAt)) {
            blocks.put(block, frontier.encode());
        }
    }

    /** The largest seq sent at or before {@code time}; 0 when none. */
    long floor(long time, ChannelSummary summary) throws Exception {
        if (time < summary.firstSentAt) {
            return 0;
        }
        for (long block = summary.lastSeq / BLOCK_SEQS; block >= 0; block--) {
            byte[] bytes = blocks.get(block);
            if (bytes != null) {
                long largest = SentAtFrontier.decode(bytes).largestSentBy(time);
                if (largest > 0) {
                    return largest;
                }
            }
        }
        return 0;
    }
}
