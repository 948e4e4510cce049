package dev.unread.ops;

import dev.unread.channels.ChannelCounting;
import dev.unread.channels.ChannelStage;
import dev.unread.config.UnreadConfig;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import dev.unread.state.Incarnations;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.jdbc.core.datastream.source.reader.extractor.ResultExtractor;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The channels of a {@link Bootstrap}: the conversations of the group tables that the channels
 * table declares, each taken as the job takes a channel whose {@code CHANNEL} came before its other
 * records. The channel stage's state is what {@link ChannelCounting}, the stage's own counting,
 * leaves after the channel's membership events and messages in seq order and then its members'
 * reads ({@code conversation_member}); the other operators get what the job gives them of a
 * channel: the fan-out the declaration beside the membership events, each member's user state the
 * channel's id, and the readers stage the cursors the channel stage raises (a member's own message
 * raises it too), from {@link ChannelStage} itself run over the same history.
 *
 * <p>The group messages table has no thread, mention or edit, so every channel message is a root
 * that names no one: it enters no one's sender badge, and the tracks count no mentions.
 */
final class ChannelBootstrap {

    private final DataStream<HistoryRow> declared;
    private final DataStream<HistoryRow> members;
    private final DataStream<HistoryRow> cursors;
    private final DataStream<ChannelInput> history;
    private final UnreadConfig config;

    private ChannelBootstrap(
            DataStream<HistoryRow> declared,
            DataStream<HistoryRow> members,
            DataStream<HistoryRow> cursors,
            DataStream<ChannelInput> history,
            UnreadConfig config) {
        this.declared = declared;
        this.members = members;
        this.cursors = cursors;
        this.history = history;
        this.config = config;
    }

    /** The channels of {@code tables}, which declare some, as the queries' streams. */
    static ChannelBootstrap read(
            StreamExecutionEnvironment env, UnreadConfig config, Bootstrap.Tables tables) {
        String declared =
                "SELECT 0, ch.conversation_id, 0 FROM "
                        + tables.channels()
                        + " ch WHERE ch.conversation_id > 0";
        String members =
                "SELECT DISTINCT e.user_id, e.conversation_id, 0 FROM "
                        + tables.membership()
                        + " e WHERE "
                        + Bootstrap.VALID_MEMBERSHIP
                        + " AND "
                        + tables.isChannel("e.conversation_id");
        String memberships =
                "SELECT e.conversation_id, e.user_id, e.seq, e.joined FROM "
                        + tables.membership()
                        + " e WHERE "
                        + Bootstrap.VALID_MEMBERSHIP
                        + " AND "
                        + tables.isChannel("e.conversation_id");
        String messages =
                "SELECT g.conversation_id, g.seq, g.sender_id, g.sent_at FROM "
                        + tables.groupMessages()
                        + " g WHERE "
                        + Bootstrap.VALID_GROUP_MESSAGE
                        + " AND "
                        + tables.isChannel("g.conversation_id");
        String reads =
                "SELECT c.user_id, c.conversation_id, c.last_read_seq"
                        + " FROM conversation_member c WHERE c.last_read_seq > 0 AND "
                        + tables.isChannelMember("c.user_id", "c.conversation_id");

        // In BATCH, each key's records reach a keyed operator sorted by their timestamps: a
        // channel's records by seq, as the fan-out hands them on, and its reads after them.
        WatermarkStrategy<ConversationEvent> bySeq =
                WatermarkStrategy.<ConversationEvent>noWatermarks()
                        .withTimestampAssigner((record, none) -> record.seq);
        DataStream<ConversationEvent> records =
                Bootstrap.query(
                                env,
                                config,
                                memberships,
                                new MembershipExtractor(),
                                ConversationEvent.class,
                                bySeq,
                                "MySQL channel memberships")
                        .union(
                                Bootstrap.query(
                                        env,
                                        config,
                                        messages,
                                        new MessageExtractor(),
                                        ConversationEvent.class,
                                        bySeq,
                                        "MySQL channel messages"));
        DataStream<ChatEvent> facts =
                Bootstrap.query(
                        env,
                        config,
                        reads,
                        new ReadExtractor(),
                        ChatEvent.class,
                        WatermarkStrategy.<ChatEvent>noWatermarks()
                                .withTimestampAssigner((read, none) -> Long.MAX_VALUE),
                        "MySQL channel reads");

        DataStream<HistoryRow> raised =
                records.keyBy(record -> record.conversationId, Types.LONG)
                        .connect(facts.keyBy(read -> read.conversationId, Types.LONG))
                        .process(new ChannelStage(config.maxChannelSeq, config.maxBareThreads))
                        .name("channel stage")
                        .getSideOutput(ChannelStage.CURSORS)
                        .map(ChannelBootstrap::cursor)
                        .returns(HistoryRow.class)
                        .name("channel cursors");
        DataStream<ChannelInput> history =
                records.map(ChannelInput::of)
                        .returns(ChannelInput.class)
                        .union(facts.map(ChannelInput::of).returns(ChannelInput.class));
        return new ChannelBootstrap(
                Bootstrap.query(
                        env,
                        config,
                        declared,
                        new HistoryRow.Extractor(HistoryRow.Kind.CHANNEL, false),
                        HistoryRow.class,
                        WatermarkStrategy.noWatermarks(),
                        "MySQL channels"),
                Bootstrap.query(
                        env,
                        config,
                        members,
                        new HistoryRow.Extractor(HistoryRow.Kind.CHANNEL_MEMBER, false),
                        HistoryRow.class,
                        WatermarkStrategy.noWatermarks(),
                        "MySQL channel members"),
                raised,
                history,
                config);
    }

    /** Each declared channel, for the fan-out (keyed by {@link HistoryRow#id}). */
    DataStream<HistoryRow> declared() {
        return declared;
    }

    /** Each channel of each user with a membership event in it, for the user's state. */
    DataStream<HistoryRow> members() {
        return members;
    }

    /** Each cursor the channel stage raises, for the readers stage. */
    DataStream<HistoryRow> cursors() {
        return cursors;
    }

    /** The channel stage's state, for operator {@code channel-stage}. */
    StateBootstrapTransformation<ChannelInput> state() {
        return OperatorTransformation.bootstrapWith(history)
                .keyBy(ChannelInput::conversationId, Types.LONG)
                .transform(new ChannelToState(config.maxChannelSeq, config.maxBareThreads));
    }

    private static HistoryRow cursor(ConversationCursor cursor) {
        return new HistoryRow(
                HistoryRow.Kind.CONVERSATION_CURSOR,
                cursor.userId,
                cursor.conversationId,
                cursor.lastReadSeq);
    }

    /** A record of a channel (from the fan-out) or a member's fact (from its user's state). */
    public record ChannelInput(ConversationEvent record, ChatEvent fact) {

        static ChannelInput of(ConversationEvent record) {
            return new ChannelInput(record, null);
        }

        static ChannelInput of(ChatEvent fact) {
            return new ChannelInput(null, fact);
        }

        long conversationId() {
            return record != null ? record.conversationId : fact.conversationId;
        }
    }

    /**
     * Drives the stage's counting with each channel's history; what it writes and the cursors it
     * raises go nowhere (savepoint republish writes Redis from the state).
     */
    static final class ChannelToState extends KeyedStateBootstrapFunction<Long, ChannelInput> {

        private static final Consumer<ChannelWrite> NO_WRITES = write -> {};
        private static final Consumer<ConversationCursor> NO_CURSORS = cursor -> {};

        private final long maxChannelSeq;
        private final int maxBareThreads;
        private transient ChannelCounting counting;

        ChannelToState(long maxChannelSeq, int maxBareThreads) {
            this.maxChannelSeq = maxChannelSeq;
            this.maxBareThreads = maxBareThreads;
        }

        @Override
        public void open(OpenContext openContext) {
            counting =
                    new ChannelCounting(
                            getRuntimeContext(),
                            Incarnations.next(),
                            maxChannelSeq,
                            maxBareThreads);
        }

        @Override
        public void processElement(ChannelInput input, Context context) throws Exception {
            if (input.record() != null) {
                counting.record(input.record(), NO_WRITES, NO_CURSORS);
            } else {
                counting.fact(input.fact(), NO_WRITES, NO_CURSORS);
            }
        }
    }

    /** A membership event of a channel: conversation, user, seq, joined. */
    static final class MembershipExtractor implements ResultExtractor<ConversationEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ConversationEvent extract(ResultSet row) throws SQLException {
            return row.getBoolean(4)
                    ? ConversationEvent.joined(row.getLong(1), row.getLong(2), row.getLong(3))
                    : ConversationEvent.left(row.getLong(1), row.getLong(2), row.getLong(3));
        }
    }

    /** A message of a channel: conversation, seq, sender, {@code sent_at} (UTC). */
    static final class MessageExtractor implements ResultExtractor<ConversationEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ConversationEvent extract(ResultSet row) throws SQLException {
            return ConversationEvent.message(
                    row.getLong(1),
                    row.getLong(2),
                    row.getLong(3),
                    row.getObject(4, LocalDateTime.class).toInstant(ZoneOffset.UTC).toEpochMilli());
        }
    }

    /** A member's read of a channel: user, conversation, {@code last_read_seq}. */
    static final class ReadExtractor implements ResultExtractor<ChatEvent> {
        private static final long serialVersionUID = 1L;

        @Override
        public ChatEvent extract(ResultSet row) throws SQLException {
            return ChatEvent.conversationRead(
                    row.getLong(1), row.getLong(2), row.getLong(3), Bootstrap.READ_TIME);
        }
    }
}
