package dev.unread.state;

import java.util.List;

/** {@link ThreadState} in keyed state; see {@link CompactStateSerializer}. */
public final class ThreadStateSerializer extends CompactStateSerializer<ThreadState> {

    public static final ThreadStateSerializer INSTANCE = new ThreadStateSerializer();

    private ThreadStateSerializer() {
        super(
                ThreadState::new,
                List.of(
                        number(s -> s.sets, (s, v) -> s.sets = v),
                        number(s -> s.cursor, (s, v) -> s.cursor = v),
                        number(s -> s.unreadCount, (s, v) -> s.unreadCount = v),
                        number(s -> s.mentionCount, (s, v) -> s.mentionCount = v),
                        number(s -> s.deletedCount, (s, v) -> s.deletedCount = v),
                        number(s -> s.following, (s, v) -> s.following = v),
                        number(s -> s.followSetAt, (s, v) -> s.followSetAt = v),
                        flag(s -> s.involved, (s, v) -> s.involved = v),
                        number(s -> s.refreshedIn, (s, v) -> s.refreshedIn = v),
                        number(s -> s.tookPartAt, (s, v) -> s.tookPartAt = v),
                        number(s -> s.channelMentionCount, (s, v) -> s.channelMentionCount = v),
                        flag(s -> s.sentAtKept, (s, v) -> s.sentAtKept = v),
                        seqs(s -> s.sentAts, (s, v) -> s.sentAts = v),
                        number(s -> s.bareTouch, (s, v) -> s.bareTouch = v)));
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
