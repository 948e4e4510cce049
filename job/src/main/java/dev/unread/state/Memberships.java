package dev.unread.state;

/**
 * How a user's membership event of a conversation is kept (in {@link StateSchema#MEMBERS}, {@link
 * StateSchema#MEMBERSHIPS} and {@link ConversationState#membership}): its seq, negated for
 * MEMBER_LEFT; 0 for none.
 */
public final class Memberships {

    private Memberships() {}

    /**
     * Whether membership event a comes after b (0: none, which every event comes after): a higher
     * seq, or at one seq LEFT after JOINED; the newest governs.
     */
    public static boolean after(long a, long b) {
        long sa = Math.abs(a);
        long sb = Math.abs(b);
        return sa != sb ? sa > sb : a < 0 && b > 0;
    }

    /** member(U,C,s) from U's membership events, as kept in {@link StateSchema#MEMBERS}. */
    public static boolean isMember(long[] events, long seq) {
        for (int i = events.length - 1; i >= 0; i--) {
            if (Math.abs(events[i]) < seq) {
                return events[i] > 0;
            }
        }
        return false;
    }

    /**
     * {@code events} with the change added in order, or {@code events} itself if it is there. For
     * the fan-out, and the savepoint tools, which build {@link StateSchema#MEMBERS} from a table of
     * these events.
     */
    public static long[] with(long[] events, boolean joined, long seq) {
        long encoded = joined ? seq : -seq;
        int at = events.length;
        while (at > 0 && after(events[at - 1], encoded)) {
            at--;
        }
        if (at > 0 && events[at - 1] == encoded) {
            return events;
        }
        long[] updated = new long[events.length + 1];
        System.arraycopy(events, 0, updated, 0, at);
        updated[at] = encoded;
        System.arraycopy(events, at, updated, at + 1, events.length - at);
        return updated;
    }
}
