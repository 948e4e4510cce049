package dev.unread.state;

/** {@link ThreadState} in keyed state; see {@link CompactStateSerializer}. */
public final class ThreadStateSerializer extends CompactStateSerializer<ThreadState> {

    public static final ThreadStateSerializer INSTANCE = new ThreadStateSerializer();

    private ThreadStateSerializer() {
        super(9);
    }

    @Override
    long[] values(ThreadState s) {
        return new long[] {
            s.sets,
            s.cursor,
            s.unreadCount,
            s.mentionCount,
            s.deletedCount,
            s.following,
            s.followSetAt,
            s.involved ? 1 : 0,
            s.refreshedIn
        };
    }

    @Override
    ThreadState of(long[] v, byte[][] none) {
        ThreadState s = new ThreadState();
        s.sets = v[0];
        s.cursor = v[1];
        s.unreadCount = v[2];
        s.mentionCount = v[3];
        s.deletedCount = v[4];
        s.following = v[5];
        s.followSetAt = v[6];
        s.involved = v[7] != 0;
        s.refreshedIn = v[8];
        return s;
    }

    @Override
    public Snapshot snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends CompactStateSerializer.Snapshot<ThreadState> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
