package dev.unread.channels;

import java.util.Arrays;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/**
 * The channel's members by floor time (the later of their mark all read and erasure), so that a
 * message that arrives after a mark all read it falls under finds the members whose floor it raises
 * without walking every member. Members are kept in buckets of about a minute, the buckets in
 * groups of 1,024 (about 18 hours), and the groups in one ascending list, so that no entry grows
 * with the time the channel lives; a message sent after every member's floor time ({@link
 * ChannelSummary#latestFloorTime}), the usual one, reads none of them.
 */
final class FloorIndex {

    private static final int BUCKET_BITS = 16;
    private static final int GROUP_BITS = 10;

    private final MapState<Long, long[]> members;
    private final MapState<Long, long[]> buckets;
    private final ValueState<long[]> groups;

    FloorIndex(
            MapState<Long, long[]> members,
            MapState<Long, long[]> buckets,
            ValueState<long[]> groups) {
        this.members = members;
        this.buckets = buckets;
        this.groups = groups;
    }

    /** The member's floor time went from {@code before} (0: none) to {@code after}. */
    void move(long userId, long before, long after, ChannelSummary summary) throws Exception {
        summary.latestFloorTime = Math.max(summary.latestFloorTime, after);
        if (before > 0 && (before >>> BUCKET_BITS) == (after >>> BUCKET_BITS)) {
            return;
        }
        if (before > 0) {
            long bucket = before >>> BUCKET_BITS;
            if (remove(members, bucket, userId) && remove(buckets, bucket >>> GROUP_BITS, bucket)) {
                groups.update(without(groups.value(), bucket >>> GROUP_BITS));
            }
        }
        if (after > 0) {
            long bucket = after >>> BUCKET_BITS;
            if (add(members, bucket, userId) && add(buckets, bucket >>> GROUP_BITS, bucket)) {
                long[] all = groups.value();
                groups.update(with(all == null ? new long[0] : all, bucket >>> GROUP_BITS));
            }
        }
    }

    /**
     * The members whose floor time may be at or after {@code time}: a superset, each once; none
     * without a look when {@code time} is after every member's.
     */
    long[] atOrAfter(long time, ChannelSummary summary) throws Exception {
        long[] all = time > summary.latestFloorTime ? null : groups.value();
        if (all == null) {
            return new long[0];
        }
        long first = time >>> BUCKET_BITS;
        long[] found = new long[0];
        for (int g = all.length - 1; g >= 0 && all[g] >= first >>> GROUP_BITS; g--) {
            long[] inGroup = buckets.get(all[g]);
            for (int b = inGroup.length - 1; b >= 0 && inGroup[b] >= first; b--) {
                long[] users = members.get(inGroup[b]);
                int at = found.length;
                found = Arrays.copyOf(found, at + users.length);
                System.arraycopy(users, 0, found, at, users.length);
            }
        }
        return found;
    }

    /** Adds {@code value} to the ascending set at {@code key}; true when the set is new. */
    private static boolean add(MapState<Long, long[]> sets, long key, long value) throws Exception {
        long[] set = sets.get(key);
        if (set == null) {
            sets.put(key, new long[] {value});
            return true;
        }
        if (Arrays.binarySearch(set, value) < 0) {
            sets.put(key, with(set, value));
        }
        return false;
    }

    /** Takes {@code value} out of the set at {@code key}; true when that emptied it. */
    private static boolean remove(MapState<Long, long[]> sets, long key, long value)
            throws Exception {
        long[] set = sets.get(key);
        if (set == null || Arrays.binarySearch(set, value) < 0) {
            return false;
        }
        if (set.length == 1) {
            sets.remove(key);
            return true;
        }
        sets.put(key, without(set, value));
        return false;
    }

    private static long[] with(long[] ascending, long value) {
        int at = -Arrays.binarySearch(ascending, value) - 1;
        long[] next = new long[ascending.length + 1];
        System.arraycopy(ascending, 0, next, 0, at);
        next[at] = value;
        System.arraycopy(ascending, at, next, at + 1, ascending.length - at);
        return next;
    }

    private static long[] without(long[] ascending, long value) {
        int at = Arrays.binarySearch(ascending, value);
        long[] next = new long[ascending.length - 1];
        System.arraycopy(ascending, 0, next, 0, at);
        System.arraycopy(ascending, at + 1, next, at, ascending.length - at - 1);
        return next;
    }
}
