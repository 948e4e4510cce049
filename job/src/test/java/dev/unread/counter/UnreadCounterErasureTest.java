package dev.unread.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.InboxCursor;
import dev.unread.events.UnreadCount;
import dev.unread.seqs.UnreadChunks;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import dev.unread.testing.CounterOnRocksDb;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * USER_ERASED on the counter (docs/contract.md, "Erasure"), on RocksDB: what it leaves in every
 * keyed state of the user (found by reflection over {@link StateSchema}, so a state added later is
 * checked too), what it sends the outputs, the events it holds back and those it counts, idle
 * expiry keeping {@code erasedAt}, and its cost for a user of 10,000 conversations.
 */
class UnreadCounterErasureTest {

    private static final long U = 10086;
    private static final long GROUP = 80001;
    private static final long DIRECT = 80002;
    private static final long T0 = 1_767_225_600_000L;
    private static final long ERASED_AT = T0 + 100_000;

    /** A user with something in every kind of state: badge, counts, mentions, threads, marks... */
    private static List<ChatEvent> richHistory() {
        List<ChatEvent> events = new ArrayList<>();
        events.add(ChatEvent.membership(true, U, GROUP, 1));
        events.add(ChatEvent.message(2, U, T0 + 1));
        for (long seq = 2; seq < 40; seq++) {
            events.add(ChatEvent.message(3, U, GROUP, seq, T0 + seq));
        }
        for (long seq = 1; seq < 300; seq += 2) {
            events.add(ChatEvent.mention(4, U, DIRECT, seq, T0 + seq));
        }
        // U's own root, a thread of it with replies, a followed and a read thread.
        events.add(ChatEvent.message(U, U, GROUP, 40, T0 + 40));
        events.add(ChatEvent.reply(3, U, GROUP, 41, 40, T0 + 41, true));
        events.add(ChatEvent.reply(3, U, GROUP, 42, 2, T0 + 42, false));
        events.add(ChatEvent.threadFollowed(U, GROUP, 2, true, T0 + 43));
        events.add(ChatEvent.threadRead(U, GROUP, 3, 5, T0 + 44));
        events.add(ChatEvent.deleted(U, GROUP, 45));
        events.add(ChatEvent.deleted(U, DIRECT, 3));
        events.add(ChatEvent.preference(U, DIRECT, ChatEvent.MENTIONS, T0 + 50));
        events.add(ChatEvent.markedUnread(U, GROUP, T0 + 51));
        events.add(ChatEvent.conversationRead(U, GROUP, 10, T0 + 52));
        events.add(ChatEvent.inboxOpened(U, T0 + 53));
        events.add(ChatEvent.message(5, U, T0 + 60));
        return events;
    }

    @Test
    void anErasureLeavesErasedAtMembershipsAndDeletionsAloneInEveryStateOfTheUser()
            throws Exception {
        try (CounterOnRocksDb counter = CounterOnRocksDb.open()) {
            var harness = counter.harness;
            richHistory().forEach(e -> process(harness, e));
            harness.getOutput().clear();
            harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS).clear();
            harness.getSideOutput(UnreadCounter.INBOX_CURSORS).clear();

            process(harness, ChatEvent.userErased(U, ERASED_AT));

            counter.harness.getOperator().getKeyedStateBackend().setCurrentKey(U);
            Map<String, Object> left = everyState(counter);
            InboxState inbox = (InboxState) left.remove(StateSchema.INBOX.getName());
            assertThat(inbox.erasedAt).isEqualTo(ERASED_AT);
            InboxState expected = new InboxState();
            expected.erase(ERASED_AT);
            expected.lastActiveDay = inbox.lastActiveDay;
            assertThat(inbox).usingRecursiveComparison().isEqualTo(expected);
            // Facts of the conversations: U's membership of the group, and the deleted seqs past
            // the cursors the erasure drops (45 of the group, read up to 10; 3 of the other).
            ConversationState member = ConversationState.fresh();
            member.membership = 1;
            member.deletedCount = 1;
            ConversationState deletionOnly = ConversationState.fresh();
            deletionOnly.deletedCount = 1;
            assertThat(left)
                    .as("every keyed state of the user but the inbox")
                    .containsOnlyKeys(
                            StateSchema.CONVERSATIONS.getName(),
                            StateSchema.DELETED.chunks().getName(),
                            StateSchema.DELETED.tree().getName());
            @SuppressWarnings("unchecked")
            Map<Long, ConversationState> conversations =
                    (Map<Long, ConversationState>) left.get(StateSchema.CONVERSATIONS.getName());
            assertThat(conversations).containsOnlyKeys(GROUP, DIRECT);
            assertThat(conversations.get(GROUP)).usingRecursiveComparison().isEqualTo(member);
            assertThat(conversations.get(DIRECT))
                    .usingRecursiveComparison()
                    .isEqualTo(deletionOnly);
            @SuppressWarnings("unchecked")
            Map<Tuple2<Long, Long>, byte[]> deleted =
                    (Map<Tuple2<Long, Long>, byte[]>)
                            left.get(StateSchema.DELETED.chunks().getName());
            Map<Long, List<Integer>> deletedSeqs = new TreeMap<>();
            deleted.forEach(
                    (chunk, bytes) ->
                            deletedSeqs.put(
                                    chunk.f0,
                                    java.util.Arrays.stream(UnreadChunks.values(bytes))
                                            .boxed()
                                            .toList()));
            assertThat(deletedSeqs).isEqualTo(Map.of(GROUP, List.of(45), DIRECT, List.of(3)));

            assertThat(values(harness.getOutput()))
                    .containsExactly(UnreadCount.erasure(U, ERASED_AT));
            assertThat(values(harness.getSideOutput(UnreadCounter.INBOX_CURSORS)))
                    .containsExactly(InboxCursor.erasure(U));
            assertThat(values(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)))
                    .containsExactlyInAnyOrder(
                            ConversationCursor.erasure(U, 0),
                            ConversationCursor.erasure(U, GROUP),
                            ConversationCursor.erasure(U, DIRECT));
        }
    }

    @Test
    void eventsAtOrBeforeTheErasureChangeNothingAndLaterOnesStartTheUserAfresh() throws Exception {
        try (CounterOnRocksDb counter = CounterOnRocksDb.open()) {
            var harness = counter.harness;
            richHistory().forEach(e -> process(harness, e));
            process(harness, ChatEvent.userErased(U, ERASED_AT));
            harness.getOutput().clear();
            harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS).clear();
            harness.getSideOutput(UnreadCounter.INBOX_CURSORS).clear();

            // Replays, late reads, follows, marks, a duplicate and an older erasure: nothing.
            richHistory().stream().filter(e -> e.time > 0).forEach(e -> process(harness, e));
            process(harness, ChatEvent.message(7, U, GROUP, 99, ERASED_AT));
            process(harness, ChatEvent.inboxOpened(U, ERASED_AT));
            process(harness, ChatEvent.userErased(U, ERASED_AT));
            process(harness, ChatEvent.userErased(U, ERASED_AT - 1));
            assertThat(values(harness.getOutput())).isEmpty();
            assertThat(values(harness.getSideOutput(UnreadCounter.INBOX_CURSORS))).isEmpty();
            assertThat(values(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS))).isEmpty();

            // After it: a group message (the membership stayed) and a direct one count.
            process(harness, ChatEvent.message(3, U, GROUP, 100, ERASED_AT + 1));
            process(harness, ChatEvent.message(6, U, ERASED_AT + 2));
            Map<String, Long> last = new TreeMap<>();
            for (UnreadCount c :
                    UnreadCounterErasureTest.<UnreadCount>values(harness.getOutput())) {
                last.put(c.kind + " " + c.conversationId, c.count);
            }
            assertThat(last)
                    .containsEntry("CONVERSATION " + GROUP, 1L)
                    .containsEntry("SENDERS 0", 2L)
                    .containsEntry("TOTAL_MESSAGES 0", 1L);
            // A membership change carries no time: a conversation fact, always taken.
            process(harness, ChatEvent.membership(false, U, GROUP, 200));
            assertThat(values(harness.getOutput())).contains(UnreadCount.conversation(U, GROUP, 0));
        }
    }

    @Test
    void idleExpiryForgetsTheUserButKeepsErasedAt() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new UnreadCounter(1)),
                        e -> e.userId,
                        Types.LONG)) {
            harness.open();
            harness.setProcessingTime(10 * UnreadCounter.DAY_MS);
            process(harness, ChatEvent.message(3, U, GROUP, 2, T0));
            process(harness, ChatEvent.userErased(U, ERASED_AT));
            process(harness, ChatEvent.message(3, U, GROUP, 3, ERASED_AT + 1));
            harness.setProcessingTime(13 * UnreadCounter.DAY_MS);
            harness.getOutput().clear();

            process(harness, ChatEvent.message(3, U, GROUP, 2, ERASED_AT));
            assertThat(values(harness.getOutput())).as("still held back").isEmpty();
            process(harness, ChatEvent.message(3, U, GROUP, 4, ERASED_AT + 2));
            assertThat(values(harness.getOutput())).contains(UnreadCount.conversation(U, GROUP, 1));
        }
    }

    /**
     * The erasure's work is the user's own state: one pass over its conversations and a record out
     * per conversation for the readers; nobody else's state is read, and no other event pays for
     * it. The time is printed, not asserted.
     */
    @Test
    void aUserOfTenThousandConversationsIsErasedInOnePassOverThem() throws Exception {
        int conversations = 10_000;
        try (CounterOnRocksDb counter = CounterOnRocksDb.open()) {
            var harness = counter.harness;
            for (long c = 1; c <= conversations; c++) {
                process(harness, ChatEvent.message(3, U, c, 1, T0 + c));
                process(harness, ChatEvent.message(3, U + 1, c, 1, T0 + c));
            }
            UnreadCounter function =
                    (UnreadCounter)
                            ((KeyedProcessOperator<?, ?, ?>) harness.getOperator())
                                    .getUserFunction();

            long start = System.nanoTime();
            process(harness, ChatEvent.userErased(U, ERASED_AT));
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println(
                    "erasure of a user of " + conversations + " conversations: " + millis + " ms");

            assertThat(function.erasureVisited()).isEqualTo(conversations);
            assertThat(values(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)))
                    .hasSize(conversations + 1);
            counter.harness.getOperator().getKeyedStateBackend().setCurrentKey(U + 1);
            assertThat(everyState(counter).get(StateSchema.CONVERSATIONS.getName()))
                    .as("another user's state untouched")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .hasSize(conversations);
        }
    }

    /**
     * The user's channels' MySQL rows and readers' cursors are the channel stage's, which erases
     * them itself when the erasure reaches each channel: the user's state sends no erasure of a
     * channel, and names the channels, ascending, on its erasure of every row, which leaves their
     * rows (see JdbcCursorSink), though it holds a channel's mark.
     */
    @Test
    void theErasureLeavesTheUsersChannelsToTheChannelStage() throws Exception {
        long channel = 90001;
        long later = 90002;
        try (CounterOnRocksDb counter = CounterOnRocksDb.open()) {
            var harness = counter.harness;
            process(harness, ChatEvent.message(3, U, GROUP, 1, T0 + 1));
            process(harness, ChatEvent.channelMembership(true, U, later, 1));
            process(harness, ChatEvent.channelMembership(true, U, channel, 1));
            process(harness, ChatEvent.markedUnread(U, channel, T0 + 2));
            process(harness, ChatEvent.conversationRead(U, GROUP, 1, T0 + 3));
            harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS).clear();

            process(harness, ChatEvent.userErased(U, ERASED_AT));

            assertThat(values(harness.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)))
                    .containsExactly(
                            ConversationCursor.erasureBut(U, new long[] {channel, later}),
                            ConversationCursor.erasure(U, GROUP));
        }
    }

    /**
     * Issue 45, item 1: a deletion told before the erasure holds for its message sent after it,
     * which reaches the counter without the conversation's stamp, and for a reply of it the counter
     * alone sees (the stage tells each user a deletion once: its duplicate is dropped there).
     */
    @Test
    void aDeletionToldBeforeTheErasureHoldsForItsMessageSentAfterIt() throws Exception {
        try (CounterOnRocksDb counter = CounterOnRocksDb.open()) {
            var harness = counter.harness;
            process(harness, ChatEvent.message(4, U, DIRECT, 1, T0));
            process(harness, ChatEvent.deleted(U, DIRECT, 5));
            process(harness, ChatEvent.deleted(U, DIRECT, 7));
            process(harness, ChatEvent.userErased(U, ERASED_AT));
            harness.getOutput().clear();

            process(harness, ChatEvent.mention(4, U, DIRECT, 5, ERASED_AT + 1));
            process(harness, ChatEvent.reply(4, U, DIRECT, 7, 1, ERASED_AT + 2, true));
            process(harness, ChatEvent.mention(4, U, DIRECT, 8, ERASED_AT + 3));

            Map<String, Long> last = new TreeMap<>();
            for (UnreadCount c :
                    UnreadCounterErasureTest.<UnreadCount>values(harness.getOutput())) {
                last.put(c.kind + " " + c.conversationId + ":" + c.threadSeq, c.count);
            }
            // Seq 8 alone counts; the deleted 5 and 7 still make U follow thread 1 and count in
            // the badge, as any deleted message does.
            assertThat(last)
                    .containsEntry("CONVERSATION " + DIRECT + ":0", 1L)
                    .containsEntry("MENTIONS " + DIRECT + ":0", 1L)
                    .containsEntry("SENDERS 0:0", 1L);
            assertThat(last.getOrDefault("THREAD " + DIRECT + ":1", 0L)).isZero();
        }
    }

    private static void process(
            KeyedOneInputStreamOperatorTestHarness<Long, ChatEvent, UnreadCount> harness,
            ChatEvent e) {
        try {
            harness.processElement(new StreamRecord<>(e, 0));
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> values(java.util.Collection<?> queue) {
        List<T> values = new ArrayList<>();
        if (queue != null) {
            for (Object o : queue) {
                if (o instanceof StreamRecord<?> r) {
                    values.add((T) r.getValue());
                }
            }
        }
        return values;
    }

    /** The states {@link StateSchema} declares for the stages keyed by conversation. */
    private static final List<Object> OTHER_OPERATORS =
            List.of(
                    StateSchema.MEMBERS,
                    StateSchema.CURRENT_MEMBERS,
                    StateSchema.LAST_MEMBERSHIP_SEQ,
                    StateSchema.PARTICIPANTS,
                    StateSchema.CONVERSATION_DELETED,
                    StateSchema.READERS,
                    StateSchema.READER_COUNT,
                    StateSchema.MEMBERSHIPS);

    /**
     * Every keyed state of the counter {@link StateSchema} declares, as the current key holds it: a
     * value state's value, a map state's entries; empty ones left out.
     */
    private static Map<String, Object> everyState(CounterOnRocksDb counter) throws Exception {
        List<StateDescriptor<?, ?>> descriptors = new ArrayList<>();
        for (Field f : StateSchema.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            Object value = f.get(null);
            if (OTHER_OPERATORS.contains(value)) {
                continue;
            }
            if (value instanceof StateDescriptor<?, ?> d) {
                descriptors.add(d);
            } else if (value instanceof StateSchema.ChunkedSet set) {
                descriptors.add(set.chunks());
                descriptors.add(set.tree());
                if (set.flatIndex() != null) {
                    descriptors.add(set.flatIndex());
                }
            }
        }
        Map<String, Object> held = new TreeMap<>();
        var backend = counter.harness.getOperator().getKeyedStateBackend();
        for (StateDescriptor<?, ?> d : descriptors) {
            if (d instanceof ValueStateDescriptor<?> v) {
                Object value =
                        backend.getPartitionedState(
                                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, v)
                                .value();
                if (value != null) {
                    held.put(d.getName(), value);
                }
            } else if (d instanceof MapStateDescriptor<?, ?> m) {
                Map<Object, Object> entries = new java.util.HashMap<>();
                for (Map.Entry<?, ?> e :
                        backend.getPartitionedState(
                                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, m)
                                .entries()) {
                    entries.put(e.getKey(), e.getValue());
                }
                if (!entries.isEmpty()) {
                    held.put(d.getName(), entries);
                }
            }
        }
        return held;
    }
}
