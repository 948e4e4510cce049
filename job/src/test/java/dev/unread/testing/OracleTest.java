package dev.unread.testing;

import static dev.unread.events.ChatEvent.conversationRead;
import static dev.unread.events.ChatEvent.inboxOpened;
import static dev.unread.events.ChatEvent.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.Oracle.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The oracle against examples worked out by hand from docs/contract.md: not taken on trust. */
class OracleTest {

    private static final long ME = 10086;
    private static final long ANN = 1;
    private static final long BOB = 2;
    private static final long CAT = 3;
    private static final long C = 80001;

    @Test
    void hundredMessagesFromOneFriendShowOneAndThreeFriendsShowThree() {
        List<ChatEvent> events = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            events.add(message(ANN, ME, 1000 + i));
        }
        assertThat(Oracle.of(events).badge(ME)).isEqualTo(1);

        events.add(message(BOB, ME, 5000));
        events.add(message(CAT, ME, 5000));
        assertThat(Oracle.of(events).badge(ME)).isEqualTo(3);
    }

    @Test
    void aMessageSentExactlyWhenTheInboxWasOpenedIsRead() {
        assertThat(Oracle.of(List.of(message(ANN, ME, 10), inboxOpened(ME, 10))).badge(ME))
                .isZero();
        assertThat(Oracle.of(List.of(message(ANN, ME, 11), inboxOpened(ME, 10))).badge(ME))
                .isEqualTo(1);
    }

    @Test
    void lateResetRemovesOnlyTheSendersItCovers() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                message(ANN, ME, 10),
                                message(BOB, ME, 20),
                                message(CAT, ME, 5),
                                message(CAT, ME, 25),
                                inboxOpened(ME, 15),
                                inboxOpened(ME, 12)));
        assertThat(oracle.lastReadAt(ME)).isEqualTo(15);
        assertThat(oracle.badge(ME)).isEqualTo(2);
    }

    @Test
    void ownMessagesCountTowardNothing() {
        Oracle oracle = Oracle.of(List.of(message(ME, ME, 10), message(ME, ME, C, 7, 10)));
        assertThat(oracle.badge(ME)).isZero();
        assertThat(oracle.unread(ME, C)).isZero();
        assertThat(oracle.redisSenderKeys()).isEmpty();
        assertThat(oracle.redisConversationHashes()).isEmpty();
    }

    @Test
    void repeatedSeqsCountOnceAndTheCursorNeverMovesBack() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                message(ANN, ME, C, 1, 10),
                                message(ANN, ME, C, 2, 11),
                                message(BOB, ME, C, 2, 11),
                                message(ANN, ME, C, 3, 12),
                                message(BOB, ME, C, 5, 13),
                                message(ME, ME, C, 6, 14),
                                conversationRead(ME, C, 2, 20),
                                conversationRead(ME, C, 1, 21)));
        assertThat(oracle.lastReadSeq(ME, C)).isEqualTo(2);
        assertThat(oracle.unread(ME, C)).isEqualTo(2);
    }

    @Test
    void redisStateListsOnlyNonZeroCountsUnderThePrefix() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                message(ANN, ME, C, 4, 10),
                                message(BOB, ME, C + 1, 1, 10),
                                conversationRead(ME, C + 1, 1, 11),
                                message(ANN, BOB, 10),
                                inboxOpened(BOB, 10)));
        assertThat(oracle.redisSenderKeys("t1:")).isEqualTo(Map.of("t1:unread:senders:10086", "2"));
        assertThat(oracle.redisConversationHashes("t1:"))
                .isEqualTo(Map.of("t1:chat:unread:10086", Map.of("80001", "1")));
    }

    @Test
    void cursorRowsExistOnlyForCursorsThatAdvanced() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                inboxOpened(ME, 30),
                                inboxOpened(ME, 20),
                                conversationRead(ME, C, 0, 10),
                                conversationRead(BOB, C, 3, 10),
                                conversationRead(BOB, C, 2, 11)));
        assertThat(oracle.userActivityRows()).isEqualTo(Map.of(ME, 30L));
        assertThat(oracle.conversationMemberRows()).isEqualTo(Map.of(new Member(C, BOB), 3L));
    }

    @Test
    void unreadCountAfterTheReadDependsOnWhatArrivedBeforeIt() {
        ChatEvent three = message(ANN, ME, C, 3, 10);
        ChatEvent four = message(ANN, ME, C, 4, 11);
        ChatEvent read = conversationRead(ME, C, 2, 12);
        ChatEvent olderRead = conversationRead(ME, C, 1, 13);
        Member member = new Member(C, ME);

        assertThat(Oracle.unreadAfterLastRead(List.of(three, four, read, olderRead)))
                .isEqualTo(Map.of(member, 2L));
        assertThat(Oracle.unreadAfterLastRead(List.of(three, read, four, read)))
                .isEqualTo(Map.of(member, 1L));
        assertThat(Oracle.unreadAfterLastRead(List.of(olderRead, read, three, four)))
                .isEqualTo(Map.of(member, 0L));
        assertThat(Oracle.of(List.of(three, four, read)).unreadCountUpperBound(member))
                .isEqualTo(2);
    }

    @Test
    void theOutcomeIsAFunctionOfTheSetAlone() {
        for (long seed = 1; seed <= 50; seed++) {
            EventStreams streams = new EventStreams(seed);
            List<ChatEvent> events = streams.events();
            Oracle expected = Oracle.of(events);
            for (List<ChatEvent> order : streams.orders(events, 3, 0.3)) {
                Oracle oracle = Oracle.of(order);
                assertThat(oracle.redisSenderKeys())
                        .as("seed %d", seed)
                        .isEqualTo(expected.redisSenderKeys());
                assertThat(oracle.redisConversationHashes())
                        .as("seed %d", seed)
                        .isEqualTo(expected.redisConversationHashes());
                assertThat(oracle.userActivityRows())
                        .as("seed %d", seed)
                        .isEqualTo(expected.userActivityRows());
                assertThat(oracle.conversationMemberRows())
                        .as("seed %d", seed)
                        .isEqualTo(expected.conversationMemberRows());
            }
        }
    }

    @Test
    void aDeletedSeqCountsNowhereButTheBadgeWhicheverTopicCarriedTheMessage() {
        List<ChatEvent> events =
                List.of(
                        message(ANN, ME, C, 1, 10),
                        ChatEvent.mention(ANN, ME, C, 2, 11),
                        message(ANN, ME, C, 3, 12));
        List<ConversationEvent> conversations =
                List.of(
                        ConversationEvent.joined(C + 1, ME, 1),
                        ConversationEvent.message(C + 1, 2, BOB, 13, ME),
                        ConversationEvent.deleted(C, 2),
                        ConversationEvent.deleted(C, 9),
                        ConversationEvent.deleted(C + 1, 2),
                        ConversationEvent.deleted(C + 1, 1));
        Oracle oracle = Oracle.of(events, conversations);

        assertThat(oracle.unread(ME, C)).isEqualTo(2);
        assertThat(oracle.mentions(ME, C)).isZero();
        assertThat(oracle.unread(ME, C + 1)).isZero();
        assertThat(oracle.mentions(ME, C + 1)).isZero();
        assertThat(oracle.totals(ME)).containsExactly(2, 0, 1, 0);
        assertThat(oracle.badge(ME)).isEqualTo(2);
        // The bound of conversation_member.unread_count keeps them: a read may come first.
        assertThat(oracle.unreadCountUpperBound(new Member(C, ME), 0)).isEqualTo(3);
    }

    @Test
    void allReadReadsWhatWasSentBeforeItWheneverItArrives() {
        ChatEvent allRead = ChatEvent.allRead(ME, 100);
        ChatEvent before = message(ANN, ME, C, 5, 90);
        ChatEvent after = message(ANN, ME, C, 6, 110);
        ChatEvent earlierSeqSentLater = message(BOB, ME, C, 4, 120);
        for (List<ChatEvent> order :
                List.of(
                        List.of(before, after, earlierSeqSentLater, allRead),
                        List.of(allRead, earlierSeqSentLater, after, before))) {
            Oracle oracle = Oracle.of(order);
            // Seq 5 was sent by the mark: the cursor goes to 5 and hides seq 4, sent after it.
            assertThat(oracle.lastReadSeq(ME, C)).isEqualTo(5);
            assertThat(oracle.unread(ME, C)).isEqualTo(1);
            assertThat(oracle.lastReadAt(ME)).isEqualTo(100);
            assertThat(oracle.badge(ME)).isEqualTo(2);
        }
    }

    @Test
    void allReadCountsADeletedMessageAndClearsOlderMarksOnly() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                message(ANN, ME, C, 7, 90),
                                ChatEvent.deleted(ME, C, 7),
                                message(BOB, ME, C, 6, 150),
                                ChatEvent.markedUnread(ME, C, 80),
                                ChatEvent.markedUnread(ME, C + 1, 100),
                                ChatEvent.markedUnread(ME, C + 2, 101),
                                ChatEvent.allRead(ME, 100)));
        // The deleted seq 7 counts toward the cursor: seq 6, sent after the mark, lies below it.
        assertThat(oracle.lastReadSeq(ME, C)).isEqualTo(7);
        assertThat(oracle.unread(ME, C)).isZero();
        assertThat(oracle.markedUnread(ME, C)).isFalse();
        assertThat(oracle.markedUnread(ME, C + 1)).isFalse();
        assertThat(oracle.markedUnread(ME, C + 2)).isTrue();
        // Its own messages move nothing, and only the newest ALL_READ counts.
        Oracle own =
                Oracle.of(
                        List.of(
                                message(ME, ANN, C, 3, 50),
                                message(ANN, ME, C, 2, 50),
                                message(ANN, ME, C, 4, 150),
                                ChatEvent.allRead(ME, 60),
                                ChatEvent.allRead(ME, 40)));
        assertThat(own.lastReadSeq(ME, C)).isEqualTo(2);
        assertThat(own.unread(ME, C)).isEqualTo(1);
    }

    @Test
    void allReadReadsThreadsUpToTheirNewestReplySentBeforeIt() {
        ChatEvent root = message(ME, ANN, C, 1, 10);
        Oracle oracle =
                Oracle.of(
                        List.of(
                                root,
                                ChatEvent.reply(ANN, ME, C, 2, 1, 20, false),
                                ChatEvent.reply(ANN, ME, C, 4, 1, 30, false),
                                ChatEvent.reply(BOB, ME, C, 3, 1, 40, true),
                                ChatEvent.reply(BOB, ME, C, 5, 1, 40, false),
                                ChatEvent.allRead(ME, 30)));
        // Reply 4 was sent by the mark: replies 2 to 4 are read, reply 5 is not.
        assertThat(oracle.threadUnread(ME, C, 1)).isEqualTo(1);
        assertThat(oracle.threadMentions(ME, C, 1)).isZero();
        assertThat(oracle.unread(ME, C)).isZero();
    }

    /**
     * A receiver's erasure covers the reply for the receiver alone: its sender still took part in
     * the thread, and so follows it (the job tells the sender from the message it sent).
     */
    @Test
    void theReceiversErasureLeavesTheSenderTakingPart() {
        Oracle oracle =
                Oracle.of(
                        List.of(
                                message(BOB, ME, C, 1, 10),
                                ChatEvent.reply(ME, ANN, C, 2, 1, 20, false),
                                ChatEvent.userErased(ANN, 30),
                                ChatEvent.reply(BOB, ME, C, 3, 1, 40, false)));
        assertThat(oracle.threadUnread(ME, C, 1)).isEqualTo(1);
        assertThat(oracle.threadUnread(ANN, C, 1)).isZero();
    }
}
