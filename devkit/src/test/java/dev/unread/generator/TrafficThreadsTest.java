package dev.unread.generator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationParser;
import dev.unread.events.EventParser;
import dev.unread.generator.TrafficRecord.Topic;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The generator's thread traffic ({@code replyShare}, issue 25), measured on the records: replies
 * name a root sent before them in their conversation, thread reads and follows name a thread that
 * exists, and turning replies on changes no message's sender, receiver, conversation or seq.
 */
class TrafficThreadsTest {

    private static final long START = 1_767_225_600_000L;
    private static final int RECORDS = 100_000;

    private static Workload withGroups(double replyShare) {
        return Workload.builder()
                .seed(21)
                .receivers(5_000)
                .publishedGroupShare(0.1)
                .publishedGroups(12)
                .publishedGroupMaxSize(300)
                .deletedShare(0.02)
                .malformedShare(0.01)
                .replyShare(replyShare)
                .build();
    }

    @Test
    void withoutRepliesNoRecordConcernsAThread() throws Exception {
        TrafficGenerator generator = TrafficGenerator.synthetic(withGroups(0), START, 1000);
        ConversationParser conversations = new ConversationParser();
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (record.topic() == Topic.CONVERSATIONS) {
                assertThat(conversations.parse(record.value()).threadSeq).as("%s", record).isZero();
            } else if (record.valid()) {
                ChatEvent event = record.event();
                assertThat(event.threadSeq).as("%s", record).isZero();
                assertThat(event.kind)
                        .isNotIn(ChatEvent.Kind.THREAD_READ, ChatEvent.Kind.THREAD_FOLLOWED);
            }
        }
        assertThat(generator.replies() + generator.threadReads() + generator.threadFollows())
                .isZero();
    }

    @Test
    void repliesNameAnEarlierRootOfTheirConversationAndReadsAndFollowsAThreadThatExists()
            throws Exception {
        TrafficGenerator generator = TrafficGenerator.synthetic(withGroups(0.3), START, 1000);
        EventParser parser = new EventParser();
        ConversationParser conversations = new ConversationParser();
        // Conversation -> seq -> whether that message replies; a group's records repeat a seq.
        Map<Long, Map<Long, Boolean>> sent = new HashMap<>();
        // "conversation:seq" of each message -> its sender, to check what replies name.
        Map<String, Long> senders = new HashMap<>();
        long ownCopies = 0;
        List<String> wrong = new ArrayList<>();
        Set<String> groupMessages = new HashSet<>();
        long messages = 0;
        long replies = 0;
        long threadReads = 0;
        long threadFollows = 0;
        long unfollows = 0;

        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (!record.valid()) {
                continue;
            }
            long conversation;
            long seq;
            long thread;
            long sender;
            long rootSender;
            if (record.topic() == Topic.CONVERSATIONS) {
                ConversationEvent event = conversations.parse(record.value());
                if (event.kind != ConversationEvent.Kind.MESSAGE) {
                    continue;
                }
                conversation = event.conversationId;
                seq = event.seq;
                thread = event.threadSeq;
                sender = event.senderId;
                rootSender = event.rootSenderId;
            } else {
                ChatEvent event =
                        record.topic() == Topic.MESSAGES
                                ? parser.parseMessage(record.value())
                                : parser.parseRead(record.value());
                if (event.kind == ChatEvent.Kind.THREAD_READ
                        || event.kind == ChatEvent.Kind.THREAD_FOLLOWED) {
                    Boolean rootReplies =
                            sent.getOrDefault(event.conversationId, Map.of()).get(event.threadSeq);
                    if (!Boolean.FALSE.equals(rootReplies)) {
                        wrong.add(record + ": names no root sent before");
                    }
                    if (event.kind == ChatEvent.Kind.THREAD_READ) {
                        threadReads++;
                    } else {
                        threadFollows++;
                        unfollows += event.seq == 0 ? 1 : 0;
                    }
                    continue;
                }
                if (event.kind != ChatEvent.Kind.MESSAGE || !event.hasConversation()) {
                    continue;
                }
                conversation = event.conversationId;
                seq = event.seq;
                thread = event.threadSeq;
                sender = event.senderId;
                rootSender = event.rootSenderId;
            }
            if (thread > 0) {
                ownCopies++;
                if (!Long.valueOf(rootSender).equals(senders.get(conversation + ":" + thread))) {
                    wrong.add(record + ": names another than its root's sender");
                }
            }
            senders.putIfAbsent(conversation + ":" + seq, sender);
            Map<Long, Boolean> seqs = sent.computeIfAbsent(conversation, c -> new HashMap<>());
            Boolean before = seqs.put(seq, thread > 0);
            if (before != null) {
                // Another record of the same group message: the same thread.
                if (before != thread > 0) {
                    wrong.add(record + ": records of one message disagree on the thread");
                }
                continue;
            }
            groupMessages.add(conversation + ":" + seq);
            messages++;
            if (thread > 0) {
                replies++;
                if (!Boolean.FALSE.equals(seqs.get(thread))) {
                    wrong.add(record + ": replies to no root sent before it");
                }
            }
        }

        assertThat(wrong).isEmpty();
        assertThat(replies).isEqualTo(generator.replies());
        // The job copies each reply record to its sender (each of a fanned-out group's records).
        assertThat(ownCopies).isEqualTo(generator.ownCopies()).isPositive();
        assertThat(threadReads).isEqualTo(generator.threadReads()).isPositive();
        assertThat(threadFollows).isEqualTo(generator.threadFollows()).isPositive();
        assertThat(unfollows).isPositive().isLessThan(threadFollows / 2);
        // 30% of the seven in eight messages that are not a block's first.
        assertThat((double) replies / messages).isBetween(0.2, 0.32);
        assertThat(groupMessages).hasSize((int) messages);
    }

    /**
     * A published group's members take no read steps, so its replies bring their own: each a
     * member's read or follow of the reply's thread.
     */
    @Test
    void publishedGroupMembersReadAndFollowTheirThreads() {
        TrafficGenerator generator = TrafficGenerator.synthetic(withGroups(0.3), START, 1000);
        Set<String> members = new HashSet<>();
        long steps = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            ConversationEvent group = record.conversation();
            if (group != null && group.kind == ConversationEvent.Kind.MEMBER_JOINED) {
                members.add(group.userId + "@" + group.conversationId);
            }
            ChatEvent event = record.event();
            if (event != null
                    && event.conversationId >= generator.publishedGroupConversation(0)
                    && (event.kind == ChatEvent.Kind.THREAD_READ
                            || event.kind == ChatEvent.Kind.THREAD_FOLLOWED)) {
                steps++;
                if (!members.contains(event.userId + "@" + event.conversationId)) {
                    wrong.add(record + ": by no member");
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(steps).isPositive();
    }

    @Test
    void repliesChangeNoMessagesSenderReceiverConversationOrSeq() {
        // Without deletions: which messages are deleted is drawn beside the replies, and each
        // deletion is a record of its own, which moves every later draw.
        List<String> without = messageIdentities(withGroups(0).toBuilder().deletedShare(0).build());
        List<String> with = messageIdentities(withGroups(0.3).toBuilder().deletedShare(0).build());

        // A published group's thread steps are records of their own, taking the last messages'
        // places: the messages with replies are the first of those without.
        assertThat(with).hasSizeGreaterThan(RECORDS / 2);
        assertThat(without.subList(0, with.size())).isEqualTo(with);
    }

    /** Each valid message record, named by its topic, sender, receiver, conversation and seq. */
    private static List<String> messageIdentities(Workload workload) {
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        List<String> identities = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (!record.valid()) {
                continue;
            }
            ChatEvent chat = record.event();
            ConversationEvent group = record.conversation();
            if (chat != null && chat.kind == ChatEvent.Kind.MESSAGE) {
                identities.add(
                        chat.senderId
                                + ">"
                                + chat.userId
                                + "@"
                                + chat.conversationId
                                + "#"
                                + chat.seq);
            } else if (group != null && group.kind == ConversationEvent.Kind.MESSAGE) {
                identities.add(group.senderId + ">@" + group.conversationId + "#" + group.seq);
            }
        }
        return identities;
    }
}
