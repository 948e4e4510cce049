package dev.unread.ops;

import dev.unread.counter.ConversationSeqs;
import dev.unread.counter.UnreadCounterOperator;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.Memberships;
import dev.unread.state.StateSchema;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * The keyed functions of {@link Bootstrap} that store the history's facts ({@link HistoryRow}) in
 * the state of the job's operators, each through that operator's own descriptors.
 */
final class HistoryStates {

    private HistoryStates() {}

    /** Stores each fact in UnreadCounter's state, through the counter's own descriptors. */
    static final class HistoryToState extends KeyedStateBootstrapFunction<Long, HistoryRow>
            implements CheckpointedFunction {

        private transient ValueState<InboxState> inbox;
        private transient MapState<Long, Long> senders;
        private transient MapState<Long, ConversationState> conversations;
        private transient ConversationSeqs unreadSeqs;
        private transient MapState<Long, Boolean> channels;

        /**
         * Marks the state as this version's: it is complete (the readers stage gets its own state
         * here), so the job must not treat it as an older version's and catch it up.
         */
        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            context.getOperatorStateStore()
                    .getUnionListState(UnreadCounterOperator.STATE_VERSION)
                    .update(List.of(UnreadCounterOperator.CURRENT_STATE_VERSION));
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void open(OpenContext openContext) {
            inbox = getRuntimeContext().getState(StateSchema.INBOX);
            senders = getRuntimeContext().getMapState(StateSchema.SENDERS);
            conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
            unreadSeqs = ConversationSeqs.unread(getRuntimeContext());
            channels = getRuntimeContext().getMapState(StateSchema.USER_CHANNELS);
        }

        @Override
        public void processElement(HistoryRow row, Context context) throws Exception {
            switch (row.kind()) {
                case INBOX_CURSOR:
                    {
                        InboxState state = inboxState();
                        state.lastReadAt = row.value();
                        inbox.update(state);
                        break;
                    }
                case SENDER:
                    {
                        // SQL grouped by sender, so each sender comes once: it is new to the set.
                        senders.put(row.id(), row.value());
                        InboxState state = inboxState();
                        state.unreadSenders++;
                        inbox.update(state);
                        break;
                    }
                case CONVERSATION_CURSOR:
                    {
                        ConversationState state = conversationState(row.id());
                        state.lastReadSeq = row.value();
                        // Should the conversation turn out to be a channel of the user (a join
                        // after the bootstrap), the read goes to the stage with this time.
                        state.lastReadAt = Bootstrap.READ_TIME;
                        conversations.put(row.id(), state);
                        break;
                    }
                case UNREAD_SEQ:
                    {
                        ConversationState state = conversationState(row.id());
                        unreadSeqs.add(row.id(), state, row.value());
                        conversations.put(row.id(), state);
                        break;
                    }
                case MEMBERSHIP:
                    {
                        // The newest event decides whether the counts are hidden, as in the job.
                        ConversationState state = conversationState(row.id());
                        if (Memberships.after(row.value(), state.membership)) {
                            state.membership = row.value();
                        }
                        conversations.put(row.id(), state);
                        break;
                    }
                case CHANNEL_MEMBER:
                    {
                        // The user's state learns a channel from the first membership event in it.
                        if (!channels.contains(row.id())) {
                            channels.put(row.id(), true);
                            InboxState state = inboxState();
                            state.channels++;
                            inbox.update(state);
                        }
                        break;
                    }
                default:
                    throw new IllegalArgumentException("unknown kind " + row.kind());
            }
        }

        private InboxState inboxState() throws Exception {
            InboxState state = inbox.value();
            return state == null ? new InboxState() : state;
        }

        private ConversationState conversationState(long conversationId) throws Exception {
            ConversationState state = conversations.get(conversationId);
            return state == null ? new ConversationState() : state;
        }
    }

    /**
     * Stores each membership event in GroupFanOut's state, keyed by conversation, with the current
     * members and the largest membership seq as the fan-out keeps them beside the events (a
     * conversation with a membership event is no longer one a CHANNEL can declare); and each
     * declared channel.
     */
    static final class MembersToState extends KeyedStateBootstrapFunction<Long, HistoryRow> {

        private transient MapState<Long, long[]> members;
        private transient MapState<Long, Boolean> current;
        private transient ValueState<Long> lastMembershipSeq;
        private transient ValueState<Boolean> channel;

        @Override
        public void open(OpenContext openContext) {
            members = getRuntimeContext().getMapState(StateSchema.MEMBERS);
            current = getRuntimeContext().getMapState(StateSchema.CURRENT_MEMBERS);
            lastMembershipSeq = getRuntimeContext().getState(StateSchema.LAST_MEMBERSHIP_SEQ);
            channel = getRuntimeContext().getState(StateSchema.CHANNEL);
        }

        @Override
        public void processElement(HistoryRow row, Context context) throws Exception {
            if (row.kind() == HistoryRow.Kind.CHANNEL) {
                channel.update(true);
                return;
            }
            long seq = Math.abs(row.value());
            long[] events = members.get(row.userId());
            long[] updated =
                    Memberships.with(events == null ? new long[0] : events, row.value() > 0, seq);
            if (updated != events) {
                members.put(row.userId(), updated);
                if (updated[updated.length - 1] > 0) {
                    current.put(row.userId(), true);
                } else {
                    current.remove(row.userId());
                }
            }
            Long last = lastMembershipSeq.value();
            if (last == null || seq > last) {
                lastMembershipSeq.update(seq);
            }
        }
    }

    /**
     * Stores participants and cursors in ConversationReaders' state, keyed by conversation: a
     * participant's cursor (0 until it reads), or the cursor negated for a user who only read.
     */
    static final class ReadersToState extends KeyedStateBootstrapFunction<Long, HistoryRow> {

        private transient MapState<Long, Long> readers;
        private transient MapState<Long, Long> memberships;

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
            memberships = getRuntimeContext().getMapState(StateSchema.MEMBERSHIPS);
        }

        @Override
        public void processElement(HistoryRow row, Context context) throws Exception {
            if (row.kind() == HistoryRow.Kind.MEMBERSHIP) {
                Long newest = memberships.get(row.userId());
                if (newest == null || Memberships.after(row.value(), newest)) {
                    memberships.put(row.userId(), row.value());
                }
                return;
            }
            Long known = readers.get(row.userId());
            if (row.kind() == HistoryRow.Kind.PARTICIPANT) {
                readers.put(row.userId(), known == null ? 0 : Math.abs(known));
            } else if (known == null) {
                readers.put(row.userId(), -row.value());
            } else {
                // A channel's stage raises a member's cursor once per rise: the furthest stays.
                long cursor = Math.max(Math.abs(known), row.value());
                readers.put(row.userId(), known < 0 ? -cursor : cursor);
            }
        }
    }
}
