package dev.unread.channels;

import dev.unread.contract.ThreadTrack;
import dev.unread.contract.TrackJson;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The channel's threads: each reply's place in its thread's sorted sets, and each member's record
 * of a thread (see {@link ThreadRecord}), whose track field {@code {C}:{T}} Redis holds while the
 * member follows the thread and is a member of the channel at all. Every change of a member's
 * thread goes through the member's open Members.Touch, which keeps the member's threads (exactly
 * those with a record here, so a thread not among them is not looked up): the least recently
 * touched first, each flagged bare when kept only for a cursor or an explicit follow, of which a
 * member keeps at most {@code maxBareThreads} per channel.
 */
final class ChannelThreads {

    private final MapState<Tuple2<Long, Long>, long[]> state;
    private final MapState<Long, long[]> messages;
    private final Members members;
    private final long incarnation;
    private final int maxBareThreads;
    private final long maxSeq;
    private final TrackJson json = new TrackJson();

    ChannelThreads(
            MapState<Tuple2<Long, Long>, long[]> state,
            MapState<Long, long[]> messages,
            Members members,
            long incarnation,
            int maxBareThreads,
            long maxSeq) {
        this.state = state;
        this.messages = messages;
        this.members = members;
        this.incarnation = incarnation;
        this.maxBareThreads = maxBareThreads;
        this.maxSeq = maxSeq;
    }

    /** A member's thread being changed, with its root as far as the stage knows it. */
    private static final class Open {
        final Members.Touch member;
        final long root;
        final MessageRecord rootRecord;
        final ThreadRecord record;

        Open(Members.Touch member, long root, MessageRecord rootRecord, ThreadRecord record) {
            this.member = member;
            this.root = root;
            this.rootRecord = rootRecord;
            this.record = record;
        }

        /**
         * The root makes the member a follower by default, membership aside; a reply at the
         * thread's seq is no root and makes no one.
         */
        boolean defaultCandidate() {
            return rootRecord.present()
                    && rootRecord.root()
                    && rootRecord.sentAt > member.record.erasedAt
                    && (rootRecord.senderId == member.userId
                            || rootRecord.sentNames(member.userId));
        }

        boolean followsByDefault() {
            return defaultCandidate()
                    && (rootRecord.senderId == member.userId || member.record.member(root));
        }
    }

    /** THREAD_READ and THREAD_FOLLOWED. */
    void fact(ChatEvent e, Out out) throws Exception {
        Members.Touch member = members.touch(e.userId);
        if (e.time > member.record.erasedAt && e.threadSeq > 0 && e.threadSeq <= maxSeq) {
            Open thread = open(member, e.threadSeq, null);
            if (e.kind == ChatEvent.Kind.THREAD_READ) {
                thread.record.read = Math.max(thread.record.read, Math.min(e.seq, maxSeq));
            } else {
                thread.record.explicit(e.time, e.following());
            }
            close(thread, out, true);
        }
        members.finish(member, out);
    }

    /**
     * The member's memberships or floor changed: each of its threads is looked at again, as its
     * named replies, its follows and whether its field is shown may have changed.
     */
    void revisit(Members.Touch member, Out out) throws Exception {
        for (long entry : member.record.threads) {
            close(open(member, entry >>> 1, null), out, false);
        }
    }

    /**
     * The member was erased (the record holds the erasure and its floor): each thread keeps what
     * the member did after it ({@link ThreadRecord#erase}) and shows afresh; one left holding
     * nothing goes, with its field.
     */
    void erase(Members.Touch member, Out out) throws Exception {
        for (long entry : member.record.threads) {
            Open thread = open(member, entry >>> 1, null);
            thread.record.erase(member.record.erasedAt);
            close(thread, out, false);
        }
    }

    /** A reply arrived: its sets, its sender's cursor and follow, the members it names. */
    void reply(long seq, MessageRecord m, Out out) throws Exception {
        long root = m.threadSeq;
        MessageRecord rootRecord = MessageRecord.decode(messages.get(root));
        if (!rootRecord.replied()) {
            rootRecord.reply();
            messages.put(root, rootRecord.encode());
            defaults(root, rootRecord, false, out);
        }
        if (!m.deleted()) {
            out.write(ChannelWrite.seq(out.conversationId, true, root, false, seq));
            if (m.all()) {
                out.write(ChannelWrite.seq(out.conversationId, true, root, true, seq));
            }
        }
        long[] users =
                LongStream.concat(
                                LongStream.of(m.senderId),
                                LongStream.concat(
                                        Arrays.stream(m.sentMentions), Arrays.stream(m.named())))
                        .distinct()
                        .toArray();
        for (long userId : users) {
            Members.Touch member = members.touch(userId);
            Open thread = open(member, root, rootRecord);
            ThreadRecord r = thread.record;
            if (m.sentAt > member.record.erasedAt) {
                if (userId == m.senderId) {
                    r.sent(seq, m.sentAt);
                }
                if (m.sentNames(userId)) {
                    r.namedAt(seq, m.sentAt);
                }
            }
            if (!m.deleted()
                    && MessageRecord.contains(m.named(), userId)
                    && seq > r.cut(member.record)) {
                r.name(seq, m.all());
            }
            close(thread, out, false);
            members.finish(member, out);
        }
    }

    /**
     * A root arrived: if a reply came first, its default followers get their threads; else those of
     * them who have a record of the thread already (a read or follow came first) look again.
     */
    void root(long seq, MessageRecord m, Out out) throws Exception {
        defaults(seq, m, !m.replied(), out);
    }

    void replyDeleted(long seq, MessageRecord m, Out out) throws Exception {
        out.write(ChannelWrite.seq(out.conversationId, false, m.threadSeq, false, seq));
        if (m.all()) {
            out.write(ChannelWrite.seq(out.conversationId, false, m.threadSeq, true, seq));
        }
        for (long userId : m.named()) {
            renamed(userId, seq, m, false, out);
        }
    }

    void replyEdited(long seq, MessageRecord m, long[] namedBefore, boolean allBefore, Out out)
            throws Exception {
        if (m.all() != allBefore) {
            out.write(ChannelWrite.seq(out.conversationId, m.all(), m.threadSeq, true, seq));
        }
        for (long userId : namedBefore) {
            if (!MessageRecord.contains(m.named(), userId) || m.all() != allBefore) {
                renamed(userId, seq, m, MessageRecord.contains(m.named(), userId), out);
            }
        }
        for (long userId : m.named()) {
            if (!MessageRecord.contains(namedBefore, userId)) {
                renamed(userId, seq, m, true, out);
            }
        }
    }

    private void renamed(long userId, long seq, MessageRecord m, boolean named, Out out)
            throws Exception {
        Members.Touch member = members.touch(userId);
        Open thread = open(member, m.threadSeq, null);
        if (!named) {
            thread.record.unname(seq);
        } else if (seq > thread.record.cut(member.record)) {
            thread.record.name(seq, m.all());
        }
        close(thread, out, false);
        members.finish(member, out);
    }

    /**
     * The root's sender and the members it named as sent follow its thread by default ({@code
     * knownOnly}: those of them with a record of it).
     */
    private void defaults(long root, MessageRecord rootRecord, boolean knownOnly, Out out)
            throws Exception {
        if (!rootRecord.present() || !rootRecord.root()) {
            return;
        }
        long[] users =
                LongStream.concat(
                                LongStream.of(rootRecord.senderId),
                                Arrays.stream(rootRecord.sentMentions))
                        .distinct()
                        .toArray();
        for (long userId : users) {
            Members.Touch member = members.touch(userId);
            if (knownOnly && indexOf(member.record.threads, root) < 0) {
                continue;
            }
            close(open(member, root, rootRecord), out, false);
            members.finish(member, out);
        }
    }

    /**
     * The member's record of the thread, looked up only when the member's threads name it: a
     * member's first reply in a thread, the usual one, costs no read of a record that is not there.
     */
    private Open open(Members.Touch member, long root, MessageRecord rootRecord) throws Exception {
        MessageRecord known =
                rootRecord != null ? rootRecord : MessageRecord.decode(messages.get(root));
        long[] form =
                indexOf(member.record.threads, root) < 0
                        ? null
                        : state.get(Tuple2.of(member.userId, root));
        return new Open(member, root, known, ThreadRecord.decode(form));
    }

    /**
     * Writes the thread back, with its field when what Redis should hold of it changed (or this
     * incarnation has not written it yet); a record that holds nothing goes. {@code touched}: a
     * read or follow, which makes the thread the member's most recently touched.
     */
    private void close(Open thread, Out out, boolean touched) throws Exception {
        ThreadRecord r = thread.record;
        MemberRecord member = thread.member.record;
        r.cutNamed(member);
        boolean defaultCandidate = thread.defaultCandidate();
        // A default follow alone keeps a record once the thread has a reply: a read of 0 or a
        // follow fact that changes nothing leaves no field, in any order.
        boolean holds = !r.empty() || (defaultCandidate && thread.rootRecord.replied());
        boolean shows =
                holds && member.hasMemberships() && r.follows(member, thread.followsByDefault());
        ThreadTrack track = shows ? r.track(member) : null;
        boolean stale = r.refreshedIn != incarnation && member.hasMemberships();
        if (shows ? stale || !track.equals(r.shown) : stale || r.shown != null) {
            out.write(
                    ChannelWrite.track(
                            out.conversationId,
                            thread.member.userId,
                            thread.root,
                            shows ? json.write(track) : null));
            r.refreshedIn = incarnation;
        }
        r.shown = track;
        Tuple2<Long, Long> key = Tuple2.of(thread.member.userId, thread.root);
        if (!holds) {
            state.remove(key);
            member.threads = without(member.threads, thread.root);
            return;
        }
        state.put(key, r.encode());
        long entry = thread.root << 1 | (r.bare() && !defaultCandidate ? 1 : 0);
        int at = indexOf(member.threads, thread.root);
        if (at < 0 || touched) {
            long[] rest = at < 0 ? member.threads : without(member.threads, thread.root);
            member.threads = Arrays.copyOf(rest, rest.length + 1);
            member.threads[rest.length] = entry;
        } else {
            member.threads[at] = entry;
        }
        if ((entry & 1) == 1) {
            forgetBareBeyondBound(thread.member, thread.root, out);
        }
    }

    /** Forgets the least recently touched bare threads past the bound, never {@code keep}. */
    private void forgetBareBeyondBound(Members.Touch member, long keep, Out out) throws Exception {
        long bare = Arrays.stream(member.record.threads).filter(e -> (e & 1) == 1).count();
        for (int i = 0; bare > maxBareThreads && i < member.record.threads.length; ) {
            long entry = member.record.threads[i];
            if ((entry & 1) == 1 && (entry >>> 1) != keep) {
                Tuple2<Long, Long> key = Tuple2.of(member.userId, entry >>> 1);
                if (ThreadRecord.decode(state.get(key)).shown != null) {
                    out.write(
                            ChannelWrite.track(
                                    out.conversationId, member.userId, entry >>> 1, null));
                }
                state.remove(key);
                member.record.threads = without(member.record.threads, entry >>> 1);
                bare--;
            } else {
                i++;
            }
        }
    }

    private static int indexOf(long[] threads, long root) {
        for (int i = 0; i < threads.length; i++) {
            if ((threads[i] >>> 1) == root) {
                return i;
            }
        }
        return -1;
    }

    private static long[] without(long[] threads, long root) {
        return Arrays.stream(threads).filter(e -> (e >>> 1) != root).toArray();
    }
}
