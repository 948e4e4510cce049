package dev.unread.channels;

import java.util.Arrays;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * The channel's members by floor time (the later of their mark all read and erasure), so that a
 * message that arrives after a mark all read it falls under finds the members whose floor it raises
 * without walking every member. Members are kept in buckets of about a minute, and the buckets in
 * one ascending list; a message sent after every member's floor time ({@link
 * ChannelSummary#latestFloorTime}), the usual one, reads neither.
 */
final class FloorIndex {

    private static final int BUCKET_BITS = 16;

    private final MapState<Long, long[]> members;
    private final ValueState<long[]> buckets;

    FloorIndex(MapState<Long, long[]> members, ValueState<long[]> buckets) {
        this.members = members;
        this.buckets = buckets;
    }

    /** The member's floor time went from {@code before} (0: none) to {@code after}. */
    void move(long userId, long before, long after, ChannelSummary summary) throws Exception {
        summary.latestFloorTime = Math.max(summary.latestFloorTime, after);
        if (before > 0 && (before >>> BUCKET_BITS) == (after >>> BUCKET_BITS)) {
            return;
        }
        if (before > 0) {
            remove(userId, before >>> BUCKET_BITS);
        }
        if (after > 0) {
            add(userId, after >>> BUCKET_BITS);
        }
    }

    /**
     * The members whose floor time may be at or after {@code time}: a superset, each once; none
     * without a look when {@code time} is after every member's.
     */
    long[] atOrAfter(long time, ChannelSummary summary) throws Exception {
        if (time > summary.latestFloorTime) {
            return new long[0];
        }
        long[] all = buckets.value();
        if (all == null) {
            return new long[0];
        }
        long first = time >>> BUCKET_BITS;
        long[] found = new long[0];
        for (int i = all.length - 1; i >= 0 && all[i] >= first; i--) {
            long[] users = members.get(all[i]);
            int at = found.length;
            found = Arrays.copyOf(found, at + users.length);
            System.arraycopy(users, 0, found, at, users.length);
        }
        return found;
    }

    private void add(long userId, long bucket) throws Exception {
        long[] users = members.get(bucket);
        if (users == null) {
            members.put(bucket, new long[] {userId});
            long[] all = buckets.value();
            buckets.update(inserted(all == null ? new long[0] : all, bucket));
            return;
        }
        if (Arrays.binarySearch(users, userId) < 0) {
            members.put(bucket, inserted(users, userId));
        }
    }

    private void remove(long userId, long bucket) throws Exception {
        long[] users = members.get(bucket);
        int at = users == null ? -1 : Arrays.binarySearch(users, userId);
        if (at < 0) {
            return;
        }
        if (users.length == 1) {
            members.remove(bucket);
            long[] all = buckets.value();
            int index = Arrays.binarySearch(all, bucket);
            long[] rest = new long[all.length - 1];
            System.arraycopy(all, 0, rest, 0, index);
            System.arraycopy(all, index + 1, rest, index, all.length - index - 1);
            buckets.update(rest);
            return;
        }
        long[] rest = new long[users.length - 1];
        System.arraycopy(users, 0, rest, 0, at);
        System.arraycopy(users, at + 1, rest, at, users.length - at - 1);
        members.put(bucket, rest);
    }

    private static long[] inserted(long[] ascending, long value) {
        int at = -Arrays.binarySearch(ascending, value) - 1;
        long[] next = new long[ascending.length + 1];
        System.arraycopy(ascending, 0, next, 0, at);
        next[at] = value;
        System.arraycopy(ascending, at, next, at + 1, ascending.length - at);
        return next;
    }
}
