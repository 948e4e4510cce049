package dev.unread.channels;

import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.MapState;

/**
 * A member's own facts about the channel (reads, preferences, mark all read, erasure, idle expiry)
 * and its membership events, each applied whenever it arrives; and the floors a late message
 * raises. A fact with a time at or before the member's erasure changes nothing, but an expiry: its
 * time is the job's clock, and it comes after the erasures the user's state saw before it.
 */
final class MemberFacts {

    private final Members members;
    private final MessageTimes times;
    private final FloorIndex floors;
    private final ChannelSummary summary;
    private final MapState<Long, long[]> messages;
    private final ChannelThreads threads;
    private final long maxSeq;

    MemberFacts(
            Members members,
            MessageTimes times,
            FloorIndex floors,
            ChannelSummary summary,
            MapState<Long, long[]> messages,
            ChannelThreads threads,
            long maxSeq) {
        this.members = members;
        this.times = times;
        this.floors = floors;
        this.summary = summary;
        this.messages = messages;
        this.threads = threads;
        this.maxSeq = maxSeq;
    }

    void fact(ChatEvent e, Out out) throws Exception {
        switch (e.kind) {
            case CONVERSATION_READ -> read(e, out);
            case CONVERSATION_PREFERENCE -> preference(e, out);
            case ALL_READ -> allRead(e, out);
            case USER_ERASED -> erased(e, out);
            case CHANNEL_EXPIRED -> expired(e, out);
            case THREAD_READ, THREAD_FOLLOWED -> threads.fact(e, out);
            // The user's state forwards no other kind: those stay with the user (the badge, marks)
            // or come as the channel's records.
            case MESSAGE,
                    INBOX_OPENED,
                    MEMBER_JOINED,
                    MEMBER_LEFT,
                    CONVERSATION_MARKED_UNREAD,
                    MESSAGE_DELETED,
                    MESSAGE_EDITED,
                    CHANNEL_JOINED,
                    CHANNEL_LEFT,
                    CHANNEL_MENTION -> {}
        }
    }

    /** Membership event {@code event} of the user: its seq, negated for a leave. */
    void membership(long userId, long event, Out out) throws Exception {
        Members.Touch touch = members.touch(userId);
        if (touch.record.addMembership(event)) {
            threads.revisit(touch, out);
        }
        members.finish(touch, out);
    }

    private void read(ChatEvent e, Out out) throws Exception {
        Members.Touch touch = members.touch(e.userId);
        if (e.time > touch.record.erasedAt) {
            touch.record.read = Math.max(touch.record.read, Math.min(e.seq, maxSeq));
        }
        members.finish(touch, out);
    }

    /** Per field, the newest event that carries it; a tie, the quieter preference and ignoring. */
    private void preference(ChatEvent e, Out out) throws Exception {
        Members.Touch touch = members.touch(e.userId);
        MemberRecord r = touch.record;
        if (e.time > r.erasedAt) {
            if (e.seq != ChatEvent.NO_COUNT_PREFERENCE
                    && (e.time > r.preferenceSetAt
                            || (e.time == r.preferenceSetAt && e.seq > r.preference))) {
                r.preference = e.seq;
                r.preferenceSetAt = e.time;
            }
            if (e.mentioned
                    && (e.time > r.ignoreSetAt || (e.time == r.ignoreSetAt && e.mentionsAll))) {
                r.ignoreAll = e.mentionsAll;
                r.ignoreSetAt = e.time;
            }
        }
        members.finish(touch, out);
    }

    private void allRead(ChatEvent e, Out out) throws Exception {
        Members.Touch touch = members.touch(e.userId);
        MemberRecord r = touch.record;
        if (e.time > r.erasedAt && e.time > r.allReadAt) {
            long before = r.floorTime();
            r.allReadAt = e.time;
            long marked = times.floor(r.floorTime(), summary);
            r.floor = Math.max(r.floor, marked);
            floors.move(e.userId, before, r.floorTime(), summary);
            r.read = Math.max(r.read, readByMark(r, e.userId, marked));
            summary.save();
            threads.revisit(touch, out);
        }
        members.finish(touch, out);
    }

    /**
     * The largest root at or below {@code marked} (the mark's floor) from another user, sent after
     * the erasure and by the mark, while the member was a member: what a mark all read raises the
     * cursor to. The walk goes down the member's intervals from the mark's floor, not the member's
     * (an expiry may have raised that past the mark), and stops at the cursor, so it passes only
     * seqs the mark reads.
     */
    private long readByMark(MemberRecord r, long userId, long marked) throws Exception {
        List<Interval> intervals = r.intervals();
        for (int i = intervals.size() - 1; i >= 0; i--) {
            Interval interval = intervals.get(i);
            long low = Math.max(interval.from(), r.read + 1);
            for (long seq = Math.min(interval.to(), marked); seq >= low; seq--) {
                MessageRecord m = MessageRecord.decode(messages.get(seq));
                if (!m.present()) {
                    continue;
                }
                if (m.sentAt <= r.erasedAt) {
                    return 0;
                }
                if (m.root() && m.senderId != userId && m.sentAt <= r.allReadAt) {
                    return seq;
                }
            }
        }
        return 0;
    }

    private void erased(ChatEvent e, Out out) throws Exception {
        Members.Touch touch = members.touch(e.userId);
        MemberRecord r = touch.record;
        if (e.time <= r.erasedAt) {
            members.finish(touch, out);
            return;
        }
        long before = r.floorTime();
        // What the member did after the erasure stays: the user's facts come after it, but a root
        // the member sent after it may have come first.
        MessageRecord sent = MessageRecord.decode(r.sent == 0 ? null : messages.get(r.sent));
        r.read = sent.present() && sent.sentAt > e.time ? r.sent : 0;
        if (r.allReadAt <= e.time) {
            r.allReadAt = 0;
        }
        r.erasedAt = e.time;
        if (r.preferenceSetAt <= e.time) {
            r.preference = 0;
            r.preferenceSetAt = 0;
        }
        if (r.ignoreSetAt <= e.time) {
            r.ignoreAll = false;
            r.ignoreSetAt = 0;
        }
        r.floor = times.floor(r.floorTime(), summary);
        r.named = above(r.named, r.cut());
        floors.move(e.userId, before, r.floorTime(), summary);
        summary.save();
        threads.erase(touch, out);
        out.cursor(ConversationCursor.erasure(e.userId, out.conversationId));
        // The erasure deletes the member's row and score, so a cursor it keeps goes out again.
        touch.readBefore = 0;
        touch.force = true;
        members.finish(touch, out);
    }

    /**
     * The user's idle expiry: the member counts as having read every message the stage has seen,
     * its followed threads' replies too, by a floor at the largest seq seen. It reads nothing on
     * the member's behalf (no cursor moves, so no row, readers score or receipt), and has no time a
     * later message could fall under: what comes after it counts, a late message below the floor
     * does not. An erasure sets the floor afresh, this one with the rest.
     */
    private void expired(ChatEvent e, Out out) throws Exception {
        Members.Touch touch = members.touch(e.userId);
        MemberRecord r = touch.record;
        if (summary.lastSeq > r.floor) {
            r.floor = summary.lastSeq;
            threads.revisit(touch, out);
        }
        members.finish(touch, out);
    }

    /** The named roots above {@code cut}: those that may still count. */
    private static long[] above(long[] named, long cut) {
        return Arrays.stream(named).filter(n -> (n >> 1) > cut).toArray();
    }

    /**
     * A message that arrived after marks all read or erasures it falls under: it raises those
     * members' floors, and the cursor of each mark it reads (a root from another member).
     */
    void lateMessage(long seq, long sentAt, MessageRecord m, Out out) throws Exception {
        for (long userId : floors.atOrAfter(sentAt, summary)) {
            Members.Touch touch = members.touch(userId);
            MemberRecord r = touch.record;
            if (r.floorTime() < sentAt) {
                continue;
            }
            boolean raised = seq > r.floor;
            r.floor = Math.max(r.floor, seq);
            if (m.root()
                    && m.senderId != userId
                    && sentAt <= r.allReadAt
                    && sentAt > r.erasedAt
                    && r.member(seq)) {
                r.read = Math.max(r.read, seq);
            }
            if (raised) {
                threads.revisit(touch, out);
            }
            members.finish(touch, out);
        }
    }
}
