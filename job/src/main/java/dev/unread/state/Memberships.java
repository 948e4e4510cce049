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
}
