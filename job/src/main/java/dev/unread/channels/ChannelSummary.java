package dev.unread.channels;

import org.apache.flink.api.common.state.ValueState;

/**
 * What the channel's every message reads, in one small state entry ({@link
 * ChannelStateSchema#SUMMARY}): the largest message seq seen, where a floor's search starts, and
 * its {@code sentAt}, which the next message's is kept after (see {@link MessageTimes}); the
 * earliest {@code sentAt}, before which it need not start; and the latest floor time of any member,
 * so that a message sent after every member's mark all read and erasure (the usual one) finds no
 * floor to raise without looking.
 */
final class ChannelSummary {

    private final ValueState<long[]> state;

    long lastSeq;
    long lastSentAt;
    long firstSentAt;
    long latestFloorTime;

    ChannelSummary(ValueState<long[]> state) {
        this.state = state;
    }

    void load() throws Exception {
        long[] form = state.value();
        lastSeq = form == null ? 0 : form[0];
        firstSentAt = form == null ? Long.MAX_VALUE : form[1];
        latestFloorTime = form == null ? 0 : form[2];
        lastSentAt = form == null ? 0 : form[3];
    }

    void save() throws Exception {
        state.update(new long[] {lastSeq, firstSentAt, latestFloorTime, lastSentAt});
    }
}
