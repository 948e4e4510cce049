package dev.unread.state;

import java.util.List;

/** {@link InboxState} in keyed state; see {@link CompactStateSerializer}. */
public final class InboxStateSerializer extends CompactStateSerializer<InboxState> {

    public static final InboxStateSerializer INSTANCE = new InboxStateSerializer();

    private InboxStateSerializer() {
        super(
                InboxState::new,
                List.of(
                        number(s -> s.lastReadAt, (s, v) -> s.lastReadAt = v),
                        number(s -> s.unreadSenders, (s, v) -> s.unreadSenders = v),
                        number(s -> s.lastActiveDay, (s, v) -> s.lastActiveDay = v),
                        number(s -> s.refreshedIn, (s, v) -> s.refreshedIn = v),
                        number(s -> s.totalMessages, (s, v) -> s.totalMessages = v),
                        number(s -> s.totalMentions, (s, v) -> s.totalMentions = v),
                        number(s -> s.totalConversations, (s, v) -> s.totalConversations = v),
                        number(s -> s.totalThreads, (s, v) -> s.totalThreads = v),
                        flag(s -> s.totalsKept, (s, v) -> s.totalsKept = v),
                        number(s -> s.totalsRefreshedIn, (s, v) -> s.totalsRefreshedIn = v),
                        number(s -> s.allReadAt, (s, v) -> s.allReadAt = v),
                        number(s -> s.erasedAt, (s, v) -> s.erasedAt = v),
                        number(s -> s.channels, (s, v) -> s.channels = v)));
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
