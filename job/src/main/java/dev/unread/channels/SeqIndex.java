package dev.unread.channels;

import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.events.ChannelWrite;
import java.util.List;
import org.apache.flink.api.common.state.MapState;

/**
 * The channel's index in Redis as the stage writes it: the bitmap {@code chat:channel:{C}:seqs} of
 * the roots not deleted, kept here block by block and written whole ({@link ChannelWrite#block}),
 * so that a lost or replayed write is repaired by the next of its block; and the sorted sets, whose
 * adds and removes are idempotent.
 */
final class SeqIndex {

    private static final int BLOCK_BITS = ChannelWrite.BLOCK_BYTES * 8;

    private final MapState<Long, byte[]> blocks;

    SeqIndex(MapState<Long, byte[]> blocks) {
        this.blocks = blocks;
    }

    /** Sets or clears bit {@code seq} and writes its block when that changed it. */
    void root(long seq, boolean on, Out out) throws Exception {
        long block = seq / BLOCK_BITS;
        byte[] bytes = blocks.get(block);
        if (bytes == null) {
            if (!on) {
                return;
            }
            bytes = new byte[ChannelWrite.BLOCK_BYTES];
        }
        int bit = (int) (seq % BLOCK_BITS);
        int mask = 0x80 >>> (bit & 7);
        boolean was = (bytes[bit >>> 3] & mask) != 0;
        if (was == on) {
            return;
        }
        bytes[bit >>> 3] = (byte) (on ? bytes[bit >>> 3] | mask : bytes[bit >>> 3] & ~mask);
        blocks.put(block, bytes);
        out.write(ChannelWrite.block(out.conversationId, block, bytes.clone()));
    }

    /**
     * The roots not deleted in {@code intervals} (an open one to the largest seq {@code last}):
     * what a reader's {@code BITCOUNT}s give.
     */
    long count(List<Interval> intervals, long last) throws Exception {
        long count = 0;
        for (Interval interval : intervals) {
            long to = Math.min(interval.to(), last);
            for (long block = interval.from() / BLOCK_BITS;
                    block <= to / BLOCK_BITS && interval.from() <= to;
                    block++) {
                byte[] bytes = blocks.get(block);
                if (bytes != null) {
                    count += bits(bytes, block, interval.from(), to);
                }
            }
        }
        return count;
    }

    private static long bits(byte[] bytes, long block, long from, long to) {
        long base = block * BLOCK_BITS;
        int start = (int) Math.max(0, from - base);
        int end = (int) Math.min(BLOCK_BITS - 1, to - base);
        long count = 0;
        int bit = start;
        for (; bit <= end && (bit & 7) != 0; bit++) {
            count += (bytes[bit >>> 3] >>> (7 - (bit & 7))) & 1;
        }
        for (; bit + 7 <= end; bit += 8) {
            count += Integer.bitCount(bytes[bit >>> 3] & 0xFF);
        }
        for (; bit <= end; bit++) {
            count += (bytes[bit >>> 3] >>> (7 - (bit & 7))) & 1;
        }
        return count;
    }
}
