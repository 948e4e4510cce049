package dev.unread.channels;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ChannelWrite.Change;
import dev.unread.events.ConversationEvent;
import org.apache.flink.api.common.state.MapState;

/**
 * The channel's messages, deletions and edits: each one's record, the index they move, the notice,
 * and what they change for the members they concern (the sender's cursor, the named members, the
 * floors a late message raises). A duplicate changes nothing and writes nothing.
 */
final class ChannelMessages {

    private final MapState<Long, long[]> messages;
    private final SeqIndex index;
    private final MessageTimes times;
    private final ChannelSummary summary;
    private final Members members;
    private final MemberFacts facts;
    private final ChannelThreads threads;

    ChannelMessages(
            MapState<Long, long[]> messages,
            SeqIndex index,
            MessageTimes times,
            ChannelSummary summary,
            Members members,
            MemberFacts facts,
            ChannelThreads threads) {
        this.messages = messages;
        this.index = index;
        this.times = times;
        this.summary = summary;
        this.members = members;
        this.facts = facts;
        this.threads = threads;
    }

    void message(ConversationEvent e, Out out) throws Exception {
        MessageRecord m = MessageRecord.decode(messages.get(e.seq));
        if (m.present()) {
            return;
        }
        m.arrive(e.senderId, e.sentAt, e.threadSeq, e.mentionsAll, e.mentions);
        messages.put(e.seq, m.encode());
        times.add(e.seq, e.sentAt, summary);
        if (e.seq > summary.lastSeq) {
            summary.lastSeq = e.seq;
            summary.lastSentAt = e.sentAt;
        }
        summary.firstSentAt = Math.min(summary.firstSentAt, e.sentAt);
        summary.save();
        out.write(
                ChannelWrite.notice(
                        out.conversationId,
                        Change.MESSAGE,
                        e.seq,
                        e.threadSeq,
                        e.senderId,
                        e.mentionsAll));
        facts.lateMessage(e.seq, e.sentAt, m, out);
        if (!m.root()) {
            threads.reply(e.seq, m, out);
            return;
        }
        if (!m.deleted()) {
            index.root(e.seq, true, out);
            if (m.all()) {
                out.write(ChannelWrite.seq(out.conversationId, true, 0, true, e.seq));
            }
        }
        Members.Touch sender = members.touch(e.senderId);
        sender.record.sent = Math.max(sender.record.sent, e.seq);
        if (e.sentAt > sender.record.erasedAt) {
            sender.record.read = Math.max(sender.record.read, e.seq);
        }
        members.finish(sender, out);
        if (!m.deleted()) {
            for (long userId : m.named()) {
                name(userId, e.seq, true, m.all(), out);
            }
        }
        threads.root(e.seq, m, out);
    }

    void deleted(ConversationEvent e, Out out) throws Exception {
        MessageRecord m = MessageRecord.decode(messages.get(e.seq));
        if (m.deleted()) {
            return;
        }
        m.delete();
        messages.put(e.seq, m.encode());
        out.write(
                ChannelWrite.notice(
                        out.conversationId,
                        Change.DELETED,
                        e.seq,
                        m.threadSeq,
                        m.senderId,
                        m.present() && m.all()));
        if (!m.present()) {
            return;
        }
        if (!m.root()) {
            threads.replyDeleted(e.seq, m, out);
            return;
        }
        index.root(e.seq, false, out);
        if (m.all()) {
            out.write(ChannelWrite.seq(out.conversationId, false, 0, true, e.seq));
        }
        for (long userId : m.named()) {
            name(userId, e.seq, false, false, out);
        }
    }

    /**
     * An edit of a message not seen changes nothing. A {@code chat-conversations} edit names no
     * thread ("Edits that change mentions": it names neither its message's sender nor its thread),
     * so the message's record says which thread an edit of a reply moves.
     */
    void edited(ConversationEvent e, Out out) throws Exception {
        MessageRecord m = MessageRecord.decode(messages.get(e.seq));
        if (!m.present()) {
            return;
        }
        long[] namedBefore = m.named();
        boolean allBefore = m.all();
        if (!m.edit(e.sentAt, e.mentionsAll, e.mentions)) {
            return;
        }
        messages.put(e.seq, m.encode());
        out.write(
                ChannelWrite.notice(
                        out.conversationId,
                        Change.EDITED,
                        e.seq,
                        m.threadSeq,
                        m.senderId,
                        m.all()));
        if (m.deleted()) {
            return;
        }
        if (!m.root()) {
            threads.replyEdited(e.seq, m, namedBefore, allBefore, out);
            return;
        }
        if (m.all() != allBefore) {
            out.write(ChannelWrite.seq(out.conversationId, m.all(), 0, true, e.seq));
        }
        for (long userId : namedBefore) {
            if (!MessageRecord.contains(m.named(), userId) || m.all() != allBefore) {
                name(userId, e.seq, MessageRecord.contains(m.named(), userId), m.all(), out);
            }
        }
        for (long userId : m.named()) {
            if (!MessageRecord.contains(namedBefore, userId)) {
                name(userId, e.seq, true, m.all(), out);
            }
        }
    }

    /** Root {@code seq} names ({@code named}) or no longer names the member by id. */
    private void name(long userId, long seq, boolean named, boolean all, Out out) throws Exception {
        Members.Touch touch = members.touch(userId);
        MemberRecord r = touch.record;
        if (named && seq > r.cut()) {
            r.name(seq, all);
        } else if (!named) {
            r.unname(seq);
        }
        members.finish(touch, out);
    }
}
