package dev.unread.groups;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.GroupStreams;
import dev.unread.testing.Oracle;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cases of docs/contract.md, "Threads", that group thread traffic must reach for a model test
 * on it to mean something, told from the traffic, its arrival order and the oracle's outcome.
 */
final class GroupThreadCases {

    static final String REPLY_BEFORE_ROOT = "a reply arrives before its root";
    static final String DELETED_REPLY = "a reply is deleted";
    static final String DELETED_ROOT = "a root with replies is deleted";
    static final String FOLLOWED_BY_TAKING_PART = "a thread shown with no follow of its user";
    static final String FOLLOWED_LATE = "a thread shown by a follow";
    static final String THREAD_MENTIONS = "a thread's mentions shown";
    static final String THREADS_TOTAL = "a threads total";
    static final String DELETED_BEFORE_JOIN =
            "a message's deletion arrives before the join of a member at its seq";
    static final String READ_PAST_DELETED_REPLY =
            "a conversation read passes a deleted reply, and may come before it";
    static final String FOLLOWED_AGAIN =
            "an unfollow, then a reply its user sends or is named in after it";
    static final String EXPLICIT_TIES_IMPLICIT =
            "a follow or unfollow at the sentAt of a reply its user sends or is named in";
    static final String ROOT_SENDER_SHOWN = "a thread shown to its root's sender, named by a reply";
    static final String REPLY_WITHOUT_ROOT_SENDER = "a reply of a named root without rootSenderId";
    static final String[] ALL = {
        FOLLOWED_AGAIN,
        EXPLICIT_TIES_IMPLICIT,
        ROOT_SENDER_SHOWN,
        REPLY_WITHOUT_ROOT_SENDER,
        DELETED_BEFORE_JOIN,
        READ_PAST_DELETED_REPLY,
        REPLY_BEFORE_ROOT,
        DELETED_REPLY,
        DELETED_ROOT,
        FOLLOWED_BY_TAKING_PART,
        FOLLOWED_LATE,
        THREAD_MENTIONS,
        THREADS_TOTAL
    };

    private GroupThreadCases() {}

    /** Adds to {@code seen} the cases this traffic reaches. */
    static void collect(
            GroupStreams.Traffic traffic,
            List<ConversationEvent> published,
            Oracle oracle,
            Set<String> seen) {
        Set<String> deletedReplies = orderAndDeletions(traffic.records(), published, seen);
        Set<String> rootSenders = follows(traffic, seen);
        Set<String> follows = new HashSet<>();
        for (ChatEvent e : traffic.reads()) {
            if (e.kind == ChatEvent.Kind.CONVERSATION_READ
                    && deletedReplies.stream()
                            .anyMatch(
                                    r ->
                                            r.startsWith(e.conversationId + ":")
                                                    && Long.parseLong(
                                                                    r.substring(r.indexOf(':') + 1))
                                                            <= e.seq)) {
                seen.add(READ_PAST_DELETED_REPLY);
            }
            if (e.kind == ChatEvent.Kind.THREAD_FOLLOWED && e.seq == 1) {
                follows.add(e.userId + "/" + e.conversationId + ":" + e.threadSeq);
            }
        }
        oracle.redisThreadHashes("", false)
                .forEach(
                        (key, fields) -> {
                            String user = key.substring(Oracle.THREADS_KEY.length());
                            for (String thread : fields.keySet()) {
                                if (rootSenders.contains(user + "/" + thread)) {
                                    seen.add(ROOT_SENDER_SHOWN);
                                }
                                seen.add(
                                        follows.contains(user + "/" + thread)
                                                ? FOLLOWED_LATE
                                                : FOLLOWED_BY_TAKING_PART);
                            }
                        });
        if (!oracle.redisThreadHashes("", true).isEmpty()) {
            seen.add(THREAD_MENTIONS);
        }
        if (oracle.redisTotals("").values().stream().anyMatch(t -> t.containsKey("threads"))) {
            seen.add(THREADS_TOTAL);
        }
    }

    /**
     * Adds the cases of follows against replies by time; the root senders replies name, as "U/C:T".
     */
    private static Set<String> follows(GroupStreams.Traffic traffic, Set<String> seen) {
        // "U/C:T" -> the sentAts of the replies U sent or is named in.
        Map<String, Set<Long>> tookPart = new HashMap<>();
        Set<String> rootSenders = new HashSet<>();
        Set<String> namedRoots = new HashSet<>();
        for (ConversationEvent e : traffic.records()) {
            if (!e.isMessage() || e.threadSeq == 0) {
                continue;
            }
            String thread = e.conversationId + ":" + e.threadSeq;
            tookPart.computeIfAbsent(e.senderId + "/" + thread, k -> new HashSet<>()).add(e.sentAt);
            for (long named : e.mentions) {
                tookPart.computeIfAbsent(named + "/" + thread, k -> new HashSet<>()).add(e.sentAt);
            }
            if (e.rootSenderId > 0) {
                rootSenders.add(e.rootSenderId + "/" + thread);
                namedRoots.add(thread);
            }
        }
        for (ConversationEvent e : traffic.records()) {
            if (e.isMessage()
                    && e.threadSeq > 0
                    && e.rootSenderId == 0
                    && namedRoots.contains(e.conversationId + ":" + e.threadSeq)) {
                seen.add(REPLY_WITHOUT_ROOT_SENDER);
            }
        }
        for (ChatEvent e : traffic.reads()) {
            if (e.kind != ChatEvent.Kind.THREAD_FOLLOWED) {
                continue;
            }
            Set<Long> at =
                    tookPart.getOrDefault(
                            e.userId + "/" + e.conversationId + ":" + e.threadSeq, Set.of());
            if (at.contains(e.time)) {
                seen.add(EXPLICIT_TIES_IMPLICIT);
            }
            if (e.seq == 0 && at.stream().anyMatch(t -> t > e.time)) {
                seen.add(FOLLOWED_AGAIN);
            }
        }
        return rootSenders;
    }

    /** Adds the cases of arrival order and deletions; the deleted replies, as "C:s". */
    private static Set<String> orderAndDeletions(
            List<ConversationEvent> records, List<ConversationEvent> published, Set<String> seen) {
        Set<String> deletedReplies = new HashSet<>();
        Map<String, ConversationEvent> messages = new HashMap<>();
        Set<String> roots = new HashSet<>();
        for (ConversationEvent e : records) {
            if (e.isMessage()) {
                messages.put(e.conversationId + ":" + e.seq, e);
                if (e.threadSeq > 0) {
                    roots.add(e.conversationId + ":" + e.threadSeq);
                }
            }
        }
        for (ConversationEvent e : records) {
            String at = e.conversationId + ":" + e.seq;
            if (e.kind != ConversationEvent.Kind.MESSAGE_DELETED || !messages.containsKey(at)) {
                continue;
            }
            if (messages.get(at).threadSeq > 0) {
                seen.add(DELETED_REPLY);
                deletedReplies.add(at);
            } else if (roots.contains(at)) {
                seen.add(DELETED_ROOT);
            }
        }
        Set<String> arrived = new HashSet<>();
        Map<Long, Set<Long>> deletedSoFar = new HashMap<>();
        for (ConversationEvent e : published) {
            if (e.kind == ConversationEvent.Kind.MESSAGE_DELETED
                    && messages.containsKey(e.conversationId + ":" + e.seq)) {
                deletedSoFar.computeIfAbsent(e.conversationId, c -> new HashSet<>()).add(e.seq);
            }
            if (e.kind == ConversationEvent.Kind.MEMBER_JOINED
                    && deletedSoFar.getOrDefault(e.conversationId, Set.of()).stream()
                            .anyMatch(s -> s > e.seq)) {
                seen.add(DELETED_BEFORE_JOIN);
            }
            if (!e.isMessage()) {
                continue;
            }
            String root = e.conversationId + ":" + e.threadSeq;
            if (e.threadSeq > 0 && messages.containsKey(root) && !arrived.contains(root)) {
                seen.add(REPLY_BEFORE_ROOT);
            }
            arrived.add(e.conversationId + ":" + e.seq);
        }
        return deletedReplies;
    }
}
