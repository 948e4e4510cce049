package dev.unread.channels;

import dev.unread.contract.ChannelTrack;
import dev.unread.contract.TrackJson;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ConversationCursor;
import org.apache.flink.api.common.state.MapState;

/**
 * The channel's members: each one's record, track and cursor. Every change of a member goes through
 * a {@link Touch}: the member's record is read, changed, then written back with its track (when it
 * changed, or this incarnation of the stage has not written it yet) and its cursor (when it rose).
 * A track is written only for a user with a membership event of the channel: a user named in a
 * message who never joined has no track to show it.
 */
final class Members {

    private final MapState<Long, long[]> state;
    private final SeqIndex index;
    private final ChannelSummary summary;
    private final long incarnation;
    private final TrackJson json = new TrackJson();

    Members(
            MapState<Long, long[]> state,
            SeqIndex index,
            ChannelSummary summary,
            long incarnation) {
        this.state = state;
        this.index = index;
        this.summary = summary;
        this.incarnation = incarnation;
    }

    /** A member being changed: its record, and what its track and cursor were. */
    static final class Touch {
        final long userId;
        final MemberRecord record;
        final ChannelTrack before;

        /** The cursor the sinks hold: the one sent when the member's read rises past it. */
        long readBefore;

        /** The track is written even unchanged (an erasure writes it afresh). */
        boolean force;

        private Touch(long userId, MemberRecord record) {
            this.userId = userId;
            this.record = record;
            this.before = record.track();
            this.readBefore = record.read;
        }
    }

    Touch touch(long userId) throws Exception {
        return new Touch(userId, MemberRecord.decode(state.get(userId)));
    }

    /** Writes the member back, with its track and cursor when they changed. */
    void finish(Touch touch, Out out) throws Exception {
        MemberRecord r = touch.record;
        r.cutNamed();
        ChannelTrack after = r.track();
        if (r.hasMemberships()
                && (touch.force || r.refreshedIn != incarnation || !after.equals(touch.before))) {
            out.write(ChannelWrite.track(out.conversationId, touch.userId, 0, json.write(after)));
            r.refreshedIn = incarnation;
        }
        if (r.read > touch.readBefore) {
            ConversationCursor cursor =
                    new ConversationCursor(
                            touch.userId,
                            out.conversationId,
                            r.read,
                            index.count(after.counted(), summary.lastSeq));
            // A channel's receipts go to READ_PROGRESS_CHANGED alone, whatever its size: each
            // message its sender sends is a read.
            cursor.allRead = true;
            out.cursor(cursor);
        }
        state.put(touch.userId, r.encode());
    }
}
