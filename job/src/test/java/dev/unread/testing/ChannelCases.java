package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.ChannelTraffic.Arrival;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The hostile cases {@link ChannelTraffic} is there to try, and which of them an order reaches. */
final class ChannelCases {

    static final String[] ALL = {
        "late join",
        "late leave",
        "join and leave at one seq",
        "deletion before its message",
        "tied edits",
        "edit of no message",
        "ALL_READ before a message it covers",
        "erasure before a message sent before it",
        "fact before the user's first membership",
        "message naming a non-member",
        "message past the bound",
        "duplicate",
        "reply naming a member makes a follower",
        "reply in a thread with no root",
        "reply naming another as root sender",
        "ALL_READ's cursor bounded",
        "named member outside the badge",
        "member who left",
        "tied preferences"
    };

    private ChannelCases() {}

    static void collect(List<Arrival> order, Oracle oracle, Set<String> seen) {
        OracleChannels channels = oracle.channels();
        List<ConversationEvent> records = Arrival.records(order);
        Map<String, ConversationEvent> messages = new HashMap<>();
        Map<String, Integer> firstArrival = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            ConversationEvent e = records.get(i);
            String key = e.conversationId + "#" + e.seq;
            if (e.isMessage() && messages.putIfAbsent(key, e) == null) {
                firstArrival.put(key, i);
            }
        }
        Set<ConversationEvent> arrived = new HashSet<>();
        Map<String, List<ConversationEvent>> edits = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            ConversationEvent e = records.get(i);
            String key = e.conversationId + "#" + e.seq;
            if (!arrived.add(e)) {
                seen.add("duplicate");
            }
            if (e.isMembership()) {
                for (ConversationEvent m : messages.values()) {
                    String at = m.conversationId + "#" + m.seq;
                    if (m.conversationId == e.conversationId
                            && m.seq > e.seq
                            && firstArrival.get(at) < i) {
                        seen.add(
                                e.kind == ConversationEvent.Kind.MEMBER_JOINED
                                        ? "late join"
                                        : "late leave");
                    }
                }
                if (records.contains(ConversationEvent.left(e.conversationId, e.userId, e.seq))
                        && records.contains(
                                ConversationEvent.joined(e.conversationId, e.userId, e.seq))) {
                    seen.add("join and leave at one seq");
                }
            } else if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED
                    && firstArrival.getOrDefault(key, -1) > i) {
                seen.add("deletion before its message");
            } else if (e.kind == ConversationEvent.Kind.MESSAGE_EDITED) {
                ConversationEvent m = messages.get(key);
                if (m == null) {
                    seen.add("edit of no message");
                } else {
                    edits.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
                }
            } else if (e.isMessage()) {
                message(e, channels, messages, seen);
            }
        }
        edits.values().forEach(its -> tiedEdits(its, seen));
        facts(order, channels, seen);
        for (long c : channels.channels()) {
            for (long u : channels.users(c)) {
                if (!channels.lastReadSeq(u, c).exact()) {
                    seen.add("ALL_READ's cursor bounded");
                }
                if (channels.left(u, c)) {
                    seen.add("member who left");
                }
            }
        }
        for (ConversationEvent m : messages.values()) {
            for (long named : m.mentions) {
                if (channels.isChannel(m.conversationId)
                        && named != m.senderId
                        && m.sentAt > channels.erasedAt(named)
                        && m.seq <= OracleChannels.DEFAULT_MAX_CHANNEL_SEQ
                        && channels.member(named, m.conversationId, m.seq)
                        && !channels.badgeSenders(named).containsKey(m.senderId)) {
                    seen.add("named member outside the badge");
                }
            }
        }
    }

    private static void message(
            ConversationEvent e,
            OracleChannels channels,
            Map<String, ConversationEvent> messages,
            Set<String> seen) {
        long c = e.conversationId;
        if (e.seq > OracleChannels.DEFAULT_MAX_CHANNEL_SEQ) {
            seen.add("message past the bound");
            return;
        }
        for (long named : e.mentions) {
            if (!channels.member(named, c, e.seq)) {
                seen.add("message naming a non-member");
            } else if (e.threadSeq > 0
                    && named != e.senderId
                    && e.sentAt > channels.erasedAt(named)
                    && channels.follows(named, c, e.threadSeq)) {
                seen.add("reply naming a member makes a follower");
            }
        }
        if (e.threadSeq > 0) {
            ConversationEvent root = messages.get(c + "#" + e.threadSeq);
            if (root == null) {
                seen.add("reply in a thread with no root");
            } else if (e.rootSenderId != 0 && e.rootSenderId != root.senderId) {
                seen.add("reply naming another as root sender");
            }
        }
    }

    private static void tiedEdits(List<ConversationEvent> edits, Set<String> seen) {
        for (ConversationEvent a : edits) {
            for (ConversationEvent b : edits) {
                if (a.sentAt == b.sentAt && !a.equals(b)) {
                    seen.add("tied edits");
                }
            }
        }
    }

    private static void facts(List<Arrival> order, OracleChannels channels, Set<String> seen) {
        Set<String> members = new HashSet<>();
        Map<Long, Long> allReadAt = new HashMap<>();
        Map<Long, Long> erasedAt = new HashMap<>();
        Map<String, Long> preferences = new HashMap<>();
        for (Arrival a : order) {
            ChatEvent f = a.fact();
            ConversationEvent e = a.record();
            if (e != null && e.isMembership()) {
                members.add(e.conversationId + "/" + e.userId);
            } else if (e != null && e.isMessage()) {
                for (long user : channels.users(e.conversationId)) {
                    if (e.sentAt <= allReadAt.getOrDefault(user, 0L)) {
                        seen.add("ALL_READ before a message it covers");
                    }
                    if (e.sentAt <= erasedAt.getOrDefault(user, 0L)) {
                        seen.add("erasure before a message sent before it");
                    }
                }
            } else if (f != null && f.kind == ChatEvent.Kind.ALL_READ) {
                allReadAt.merge(f.userId, f.time, Math::max);
            } else if (f != null && f.kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.merge(f.userId, f.time, Math::max);
            } else if (f != null && channels.isChannel(f.conversationId)) {
                if (!members.contains(f.conversationId + "/" + f.userId)) {
                    seen.add("fact before the user's first membership");
                }
                if (f.kind == ChatEvent.Kind.CONVERSATION_PREFERENCE
                        && f.carriesCountPreference()) {
                    Long before =
                            preferences.put(
                                    f.conversationId + "/" + f.userId + "@" + f.time,
                                    f.countPreference());
                    if (before != null && before != f.countPreference()) {
                        seen.add("tied preferences");
                    }
                }
            }
        }
    }
}
