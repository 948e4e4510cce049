package dev.unread.state;

/** {@link InboxState} in keyed state; see {@link CompactStateSerializer}. */
public final class InboxStateSerializer extends CompactStateSerializer<InboxState> {

    public static final InboxStateSerializer INSTANCE = new InboxStateSerializer();

    private InboxStateSerializer() {
        super(10);
    }

    @Override
    long[] values(InboxState s) {
        return new long[] {
            s.lastReadAt,
            s.unreadSenders,
            s.lastActiveDay,
            s.refreshedIn,
            s.totalMessages,
            s.totalMentions,
            s.totalConversations,
            s.totalThreads,
            s.totalsKept ? 1 : 0,
            s.totalsRefreshedIn
        };
    }

    @Override
    InboxState of(long[] v, byte[][] none) {
        InboxState s = new InboxState();
        s.lastReadAt = v[0];
        s.unreadSenders = v[1];
        s.lastActiveDay = v[2];
        s.refreshedIn = v[3];
        s.totalMessages = v[4];
        s.totalMentions = v[5];
        s.totalConversations = v[6];
        s.totalThreads = v[7];
        s.totalsKept = v[8] != 0;
        s.totalsRefreshedIn = v[9];
        return s;
    }

    @Override
    public Snapshot snapshotConfiguration() {
        return new Snapshot();
    }

    public static final class Snapshot extends CompactStateSerializer.Snapshot<InboxState> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
