package dev.unread.testing;

import static dev.unread.events.ConversationEvent.channel;
import static dev.unread.events.ConversationEvent.deleted;
import static dev.unread.events.ConversationEvent.joined;
import static dev.unread.events.ConversationEvent.left;
import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.OracleChannels.Bounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The oracle's channels against cases worked out by hand from the shared design's "Version 5" and
 * docs/contract.md, "Channels": not taken on trust. Records are listed in arrival order.
 */
class OracleChannelsTest {

    private static final long ME = 10086;
    private static final long ANN = 1;
    private static final long BOB = 2;
    private static final long CAT = 3;
    private static final long C = 70001;

    @Test
    void aLateJoinCountsTheEarlierMessagesButNotForTheBadge() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ANN, 1),
                        message(2, ANN, 10),
                        message(3, ANN, 11, ME),
                        joined(C, ME, 1));
        Oracle oracle = Oracle.of(List.of(), records);
        assertThat(oracle.unread(ME, C)).isEqualTo(2);
        assertThat(oracle.mentions(ME, C)).isEqualTo(1);
        assertThat(oracle.badge(ME)).isZero();
        assertThat(oracle.channels().named(ME, C, false)).isEqualTo(1);

        // A replay of the message after the join is a message that arrives after it.
        List<ConversationEvent> replayed = new ArrayList<>(records);
        replayed.add(message(3, ANN, 11, ME));
        assertThat(Oracle.of(List.of(), replayed).badge(ME)).isEqualTo(1);
        assertThat(Oracle.of(List.of(), replayed).channels().badgeSenders(ME))
                .containsExactly(Map.entry(ANN, 11L));
    }

    @Test
    void sendingReadsHidesOnesOwnMessagesAndTheRootsSenderFollows() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        joined(C, CAT, 3),
                        message(4, ANN, 10),
                        message(5, ME, 11),
                        message(6, ANN, 12),
                        reply(7, 4, ME, 13),
                        reply(8, 4, CAT, 14),
                        deleted(C, 5));
        OracleChannels channels = Oracle.of(List.of(), records).channels();
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        assertThat(channels.lastReadSeq(ME, C)).isEqualTo(new Bounds(5, 5));
        assertThat(channels.threadCursor(ME, C, 4)).isEqualTo(7);
        assertThat(channels.follows(ME, C, 4)).isTrue();
        assertThat(channels.threadUnread(ME, C, 4)).isEqualTo(1);
        // Ann sent the root: she follows its thread though no reply names her its sender.
        assertThat(channels.follows(ANN, C, 4)).isTrue();
        assertThat(channels.threadUnread(ANN, C, 4)).isEqualTo(2);
        assertThat(channels.unread(ANN, C)).isZero();
        assertThat(channels.lastReadSeq(ANN, C)).isEqualTo(new Bounds(6, 6));
        assertThat(channels.unreadCountUpperBound(ME, C)).isEqualTo(1);
        assertThat(channels.unreadCountUpperBound(CAT, C)).isEqualTo(3);
        assertThat(channels.unread(CAT, C)).isEqualTo(2);
        assertThat(channels.follows(CAT, C, 4)).isTrue();
        // Cat's own reply read Ann's and mine before it.
        assertThat(channels.threadUnread(CAT, C, 4)).isZero();
        assertThat(channels.followedThreads(CAT, C)).containsExactly(4L);
        assertThat(channels.followedThreads(ME, C)).containsExactly(4L, 5L);
    }

    @Test
    void aDeletionBeforeItsMessageTakesItOut() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        deleted(C, 3),
                        message(2, ANN, 10),
                        message(3, ANN, 11, ME));
        OracleChannels channels = Oracle.of(List.of(), records).channels();
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        assertThat(channels.mentions(ME, C)).isZero();
    }

    @Test
    void tiedEditsDecideEachFieldOnItsOwn() {
        // Each tied edit names me: a mention by id, whatever they say of everyone.
        assertThat(editedTwice(edit(50, true, ME), edit(50, false, ME))).containsExactly(1L, 0L);
        // One names me, the other mentions everyone: neither field holds for both.
        assertThat(editedTwice(edit(50, false, ME), edit(50, true))).containsExactly(0L, 0L);
        // Both mention everyone, one names me too: a channel-wide mention.
        assertThat(editedTwice(edit(50, true), edit(50, true, ME))).containsExactly(1L, 1L);
        // The newest edit decides alone.
        assertThat(editedTwice(edit(50, false, ME), edit(60, false))).containsExactly(0L, 0L);

        // Version 4 in a group: each tied edit mentions me one way or the other.
        List<ConversationEvent> group =
                List.of(joined(C, ME, 1), message(2, ANN, 10), edit(50, false, ME), edit(50, true));
        assertThat(Oracle.of(List.of(), group).mentions(ME, C)).isEqualTo(1);
    }

    /** {mentions, channelMentions} of me after a root and its two edits. */
    private static List<Long> editedTwice(ConversationEvent a, ConversationEvent b) {
        List<ConversationEvent> records =
                List.of(channel(C), joined(C, ME, 1), message(2, ANN, 10), a, b);
        OracleChannels channels = Oracle.of(List.of(), records).channels();
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        return List.of(channels.mentions(ME, C), channels.channelMentions(ME, C));
    }

    @Test
    void allReadHidesAMessageSentBeforeItThatArrivesLater() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        message(3, ANN, 10),
                        reply(4, 3, ANN, 15),
                        reply(7, 3, ANN, 25),
                        message(8, ANN, 30),
                        message(6, ANN, 20));
        List<ChatEvent> facts =
                List.of(ChatEvent.threadFollowed(ME, C, 3, true, 5), ChatEvent.allRead(ME, 20));
        OracleChannels channels = Oracle.of(facts, records).channels();
        assertThat(channels.floor(ME, C)).isEqualTo(6);
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        assertThat(channels.threadUnread(ME, C, 3)).isEqualTo(1);
        assertThat(channels.threadCursor(ME, C, 3)).isZero();
        assertThat(channels.lastReadSeq(ME, C)).isEqualTo(new Bounds(6, 6));
    }

    @Test
    void theCursorAnAllReadRaisesIsBoundedWhenAJoinComesLate() {
        List<ConversationEvent> records =
                List.of(channel(C), joined(C, ANN, 1), message(3, ANN, 10), joined(C, ME, 2));
        OracleChannels channels = Oracle.of(List.of(ChatEvent.allRead(ME, 20)), records).channels();
        assertThat(channels.lastReadSeq(ME, C)).isEqualTo(new Bounds(0, 3));
        assertThat(channels.unread(ME, C)).isZero();
        assertThat(channels.conversationMemberRows())
                .containsEntry(new Oracle.Member(C, ME), new Bounds(0, 3))
                .containsEntry(new Oracle.Member(C, ANN), new Bounds(3, 3));
    }

    @Test
    void anErasureFloorsTheMessagesSentBeforeItWheneverTheyArrive() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        message(3, ANN, 10),
                        message(4, ANN, 20),
                        message(5, ANN, 22, ME),
                        message(6, ANN, 30));
        List<ChatEvent> facts =
                List.of(
                        ChatEvent.conversationRead(ME, C, 3, 12),
                        ChatEvent.preference(ME, C, ChatEvent.NONE, 11),
                        ChatEvent.userErased(ME, 25));
        Oracle oracle = Oracle.of(facts, records);
        OracleChannels channels = oracle.channels();
        assertThat(channels.floor(ME, C)).isEqualTo(5);
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        assertThat(channels.mentions(ME, C)).isZero();
        assertThat(channels.lastReadSeq(ME, C)).isEqualTo(new Bounds(0, 0));
        assertThat(channels.conversationMemberRows()).doesNotContainKey(new Oracle.Member(C, ME));
        assertThat(channels.preference(ME, C)).isEqualTo(ChatEvent.ALL);
        assertThat(oracle.badge(ME)).isZero();

        List<ChatEvent> later = new ArrayList<>(facts);
        later.add(ChatEvent.conversationRead(ME, C, 4, 40));
        assertThat(Oracle.of(later, records).channels().lastReadSeq(ME, C))
                .isEqualTo(new Bounds(4, 4));
    }

    @Test
    void aReplyNamingMeMakesMeFollowButAChannelWideOneDoesNot() {
        ConversationEvent everyone = reply(7, 4, BOB, 13);
        everyone.mentionsAll = true;
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, BOB, 2),
                        joined(C, CAT, 3),
                        message(4, ANN, 10),
                        reply(5, 4, BOB, 11, ME),
                        reply(6, 4, BOB, 12),
                        everyone);
        Oracle oracle = Oracle.of(List.of(), records);
        OracleChannels channels = oracle.channels();
        assertThat(channels.follows(ME, C, 4)).isTrue();
        assertThat(channels.threadUnread(ME, C, 4)).isEqualTo(3);
        assertThat(channels.threadMentions(ME, C, 4)).isEqualTo(2);
        assertThat(channels.threadChannelMentions(ME, C, 4)).isEqualTo(1);
        assertThat(channels.threadNamed(ME, C, 4, false)).isEqualTo(1);
        assertThat(channels.threadNamed(ME, C, 4, true)).isZero();
        assertThat(channels.follows(CAT, C, 4)).isFalse();
        assertThat(channels.threadUnread(CAT, C, 4)).isZero();
        // The reply names me by id while I am a member: Bob enters my badge.
        assertThat(oracle.badge(ME)).isEqualTo(1);
        assertThat(oracle.badge(CAT)).isZero();
        // {messages, mentions, conversations, threads}: the root, and the thread's two mentions.
        assertThat(oracle.readerTotals(ME)).containsExactly(1, 2, 1, 1);
        assertThat(oracle.totals(ME)).containsExactly(0, 0, 0, 0);
        assertThat(oracle.redisTotals("")).isEmpty();
    }

    @Test
    void aMessageNamingANonMemberByIdCountsForNothing() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ANN, 1),
                        message(2, ANN, 10, ME),
                        reply(3, 2, ANN, 11, ME),
                        joined(C, ME, 5),
                        left(C, ME, 1));
        Oracle oracle = Oracle.of(List.of(), records);
        OracleChannels channels = oracle.channels();
        assertThat(channels.unread(ME, C)).isZero();
        assertThat(channels.mentions(ME, C)).isZero();
        assertThat(channels.follows(ME, C, 2)).isFalse();
        assertThat(oracle.badge(ME)).isZero();
        assertThat(channels.memberIntervals(ME, C)).containsExactly(new long[] {6});
    }

    @Test
    void aLeaveMakesEveryCountZero() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        message(3, ANN, 10, ME),
                        reply(4, 3, ANN, 11, ME),
                        left(C, ME, 5),
                        message(6, ANN, 12));
        Oracle oracle = Oracle.of(List.of(), records);
        OracleChannels channels = oracle.channels();
        assertThat(channels.left(ME, C)).isTrue();
        assertThat(channels.follows(ME, C, 3)).isTrue();
        assertThat(List.of(channels.unread(ME, C), channels.mentions(ME, C)))
                .containsExactly(0L, 0L);
        assertThat(channels.threadUnread(ME, C, 3)).isZero();
        assertThat(oracle.readerTotals(ME)).containsExactly(0, 0, 0, 0);
        // The badge keeps the message that named me while I was a member.
        assertThat(oracle.badge(ME)).isEqualTo(1);
        assertThat(channels.memberIntervals(ME, C)).containsExactly(new long[] {2, 5});
    }

    @Test
    void aMessagePastTheBoundCountsForNobody() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        message(100, ANN, 10, ME),
                        message(101, ANN, 11, ME));
        Oracle oracle = Oracle.of(List.of(), records, false, 100);
        OracleChannels channels = oracle.channels();
        assertThat(channels.unread(ME, C)).isEqualTo(1);
        assertThat(channels.lastReadSeq(ANN, C)).isEqualTo(new Bounds(100, 100));
        assertThat(channels.badgeSenders(ME)).containsExactly(Map.entry(ANN, 10L));
    }

    @Test
    void membershipsMakeIntervalsAndAChannelDeclaredLateIsNone() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        left(C, ME, 10),
                        joined(C, ME, 20),
                        joined(C, ME, 30),
                        left(C, ME, 30));
        OracleChannels channels = Oracle.of(List.of(), records).channels();
        assertThat(channels.memberIntervals(ME, C))
                .containsExactly(new long[] {2, 10}, new long[] {21, 30});
        assertThat(channels.member(ME, C, 30)).isTrue();
        assertThat(channels.member(ME, C, 31)).isFalse();
        assertThat(channels.left(ME, C)).isTrue();

        assertThat(
                        Oracle.of(List.of(), List.of(joined(C, ME, 1), channel(C)))
                                .channels()
                                .channels())
                .isEmpty();
    }

    @Test
    void aMarkedChannelCountsInTheReadersTotalsOnlyAndAPreferenceDecidesTheRest() {
        List<ConversationEvent> records =
                List.of(channel(C), joined(C, ME, 1), message(2, ANN, 10), message(3, ANN, 11, ME));
        List<ChatEvent> marked =
                List.of(
                        ChatEvent.conversationRead(ME, C, 3, 12),
                        ChatEvent.markedUnread(ME, C, 13));
        Oracle oracle = Oracle.of(marked, records);
        assertThat(oracle.readerTotals(ME)).containsExactly(0, 0, 1, 0);
        assertThat(oracle.totals(ME)).containsExactly(0, 0, 0, 0);
        assertThat(oracle.redisMarkedSets("")).containsKey(Oracle.MARKED_UNREAD_KEY + ME);

        List<ChatEvent> muted = List.of(ChatEvent.preference(ME, C, ChatEvent.MENTIONS, 5));
        assertThat(Oracle.of(muted, records).readerTotals(ME)).containsExactly(0, 1, 1, 0);
    }

    /**
     * "The stage knows who sent each root": in a channel the root decides who sent it, so a reply's
     * {@code rootSenderId} neither brings back the root an erasure forgot nor makes whom it names a
     * follower.
     */
    @Test
    void anErasureForgetsTheRootISentBeforeItAndNoReplysRootSenderIdDecidesWhoSentARoot() {
        List<ConversationEvent> records =
                new ArrayList<>(
                        List.of(
                                channel(C),
                                joined(C, ME, 1),
                                joined(C, ANN, 2),
                                joined(C, BOB, 3),
                                message(4, ME, 10),
                                reply(5, 4, ANN, 30)));
        List<ChatEvent> erased = List.of(ChatEvent.userErased(ME, 20));
        OracleChannels before = Oracle.of(erased, records).channels();
        assertThat(before.follows(ME, C, 4)).isFalse();
        assertThat(before.lastReadSeq(ME, C)).isEqualTo(new Bounds(0, 0));
        assertThat(Oracle.of(List.of(), records).channels().threadUnread(ME, C, 4)).isEqualTo(1);

        ConversationEvent namingMe = reply(6, 4, ANN, 40);
        namingMe.rootSenderId = ME;
        ConversationEvent namingBob = reply(7, 4, ANN, 41);
        namingBob.rootSenderId = BOB;
        records.addAll(List.of(namingMe, namingBob));
        OracleChannels after = Oracle.of(erased, records).channels();
        assertThat(after.follows(ME, C, 4)).isFalse();
        assertThat(after.threadUnread(ME, C, 4)).isZero();
        assertThat(after.follows(BOB, C, 4)).isFalse();
        OracleChannels unerased = Oracle.of(List.of(), records).channels();
        assertThat(unerased.follows(ME, C, 4)).isTrue();
        assertThat(unerased.threadUnread(ME, C, 4)).isEqualTo(3);
        assertThat(unerased.follows(BOB, C, 4)).isFalse();
    }

    @Test
    void myDeletedReplyReadsItsThreadUpToIt() {
        List<ConversationEvent> records =
                List.of(
                        channel(C),
                        joined(C, ME, 1),
                        joined(C, ANN, 2),
                        message(3, ANN, 10),
                        reply(4, 3, ANN, 11),
                        reply(5, 3, ME, 12),
                        deleted(C, 5),
                        reply(6, 3, ANN, 13));
        OracleChannels channels = Oracle.of(List.of(), records).channels();
        assertThat(channels.threadCursor(ME, C, 3)).isEqualTo(5);
        assertThat(channels.threadUnread(ME, C, 3)).isEqualTo(1);
        assertThat(channels.lastReadSeq(ME, C)).isEqualTo(new Bounds(0, 0));
    }

    @Test
    void ignoringChannelMentionsWinsATieAndLeavesMentionsById() {
        ConversationEvent everyone = message(2, ANN, 10);
        everyone.mentionsAll = true;
        ConversationEvent both = message(3, ANN, 11, ME);
        both.mentionsAll = true;
        List<ConversationEvent> records =
                List.of(channel(C), joined(C, ME, 1), everyone, both, channel(C));
        ChatEvent heed =
                ChatEvent.ignoreChannelMentions(ME, C, ChatEvent.NO_COUNT_PREFERENCE, false, 5);
        ChatEvent ignore = ChatEvent.ignoreChannelMentions(ME, C, ChatEvent.ALL, true, 5);
        OracleChannels heeding = Oracle.of(List.of(heed), records).channels();
        assertThat(heeding.isChannel(C)).isTrue();
        assertThat(List.of(heeding.mentions(ME, C), heeding.channelMentions(ME, C)))
                .containsExactly(2L, 1L);
        OracleChannels tied = Oracle.of(List.of(heed, ignore), records).channels();
        assertThat(List.of(tied.mentions(ME, C), tied.channelMentions(ME, C)))
                .containsExactly(1L, 0L);
    }

    @Test
    void allReadClearsAChannelsMarkMadeBeforeIt() {
        List<ConversationEvent> records =
                List.of(channel(C), joined(C, ME, 1), message(2, ANN, 10));
        List<ChatEvent> marked =
                List.of(ChatEvent.markedUnread(ME, C, 15), ChatEvent.allRead(ME, 20));
        assertThat(Oracle.of(marked, records).readerTotals(ME)).containsExactly(0, 0, 0, 0);
        List<ChatEvent> markedAfter =
                List.of(ChatEvent.markedUnread(ME, C, 25), ChatEvent.allRead(ME, 20));
        assertThat(Oracle.of(markedAfter, records).readerTotals(ME)).containsExactly(0, 0, 1, 0);
    }

    private static ConversationEvent message(long seq, long sender, long sentAt, long... named) {
        return ConversationEvent.message(C, seq, sender, sentAt, named);
    }

    private static ConversationEvent reply(
            long seq, long thread, long sender, long sentAt, long... named) {
        return ConversationEvent.reply(C, seq, thread, sender, sentAt, named);
    }

    /** An edit of seq 2 at {@code editedAt}. */
    private static ConversationEvent edit(long editedAt, boolean everyone, long... named) {
        return ConversationEvent.edited(C, 2, editedAt, everyone, named);
    }
}
