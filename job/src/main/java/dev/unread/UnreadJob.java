package dev.unread;

import dev.unread.channels.ChannelStage;
import dev.unread.config.JobSettings;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Topics;
import dev.unread.counter.ThreadSets;
import dev.unread.counter.UnreadCounter;
import dev.unread.counter.UnreadCounterOperator;
import dev.unread.events.ChannelWrite;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationCursor;
import dev.unread.events.ConversationEvent;
import dev.unread.events.OwnMessages;
import dev.unread.events.ParseConversations;
import dev.unread.events.ParseEvents;
import dev.unread.events.ParticipantNotices;
import dev.unread.events.RawRecord;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.ReplyRouting;
import dev.unread.events.UnreadCount;
import dev.unread.groups.ConversationReaders;
import dev.unread.groups.GroupFanOut;
import dev.unread.sinks.KafkaDeadLetters;
import dev.unread.sinks.MySqlCursors;
import dev.unread.sinks.RedisChannels;
import dev.unread.sinks.RedisCounts;
import dev.unread.sinks.RedisReaders;
import dev.unread.sinks.RedisReceipts;
import dev.unread.sources.KafkaRawRecords;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The unread pipeline: three Kafka topics parsed into events; group conversations keyed by
 * conversation and fanned out to their members, {@code chat-messages} replies passing the same
 * stage to learn whether they are deleted; everything keyed by user into one counting function;
 * counts to Redis, cursors to MySQL, read receipts to Redis Pub/Sub, cursors of each conversation's
 * participants (keyed by conversation) to its readers set, refused records to the dead-letter
 * topic.
 *
 * <p>The job is built from its sources and sinks, so tests run this very pipeline on bounded
 * sources and {@link #main} wires the production ones.
 */
public final class UnreadJob {

    private static final Logger LOG = LoggerFactory.getLogger(UnreadJob.class);

    /** Operator ids: state in savepoints is matched by these, so they never change. */
    public static final String MESSAGES_SOURCE_UID = "chat-messages-source";

    public static final String READS_SOURCE_UID = "chat-reads-source";
    public static final String PARSE_MESSAGES_UID = "parse-chat-messages";
    public static final String PARSE_READS_UID = "parse-chat-reads";
    public static final String CONVERSATIONS_SOURCE_UID = "chat-conversations-source";
    public static final String PARSE_CONVERSATIONS_UID = "parse-chat-conversations";
    public static final String FAN_OUT_UID = "group-fan-out";
    public static final String MESSAGE_PARTICIPANTS_UID = "message-participants";
    public static final String MEMBER_PARTICIPANTS_UID = "member-participants";
    public static final String FAN_OUT_PARTICIPANTS_UID = "participants-to-fan-out";
    public static final String OWN_MESSAGES_UID = "own-messages";
    public static final String REPLY_ROUTING_UID = "replies-to-conversations";
    public static final String CURSOR_READERS_UID = "cursor-readers";
    public static final String READERS_UID = "conversation-readers";
    public static final String COUNTER_UID = "unread-counter";
    public static final String CHANNELS_UID = "channel-stage";
    public static final String REDIS_CHANNELS_UID = "redis-channels-sink";

    /** The channel stage's name, by which metrics and the web UI show it. */
    public static final String CHANNELS_NAME = "count channels";

    /** The counting operator's name, by which metrics and the web UI show it. */
    public static final String COUNTER_NAME = "count unread";

    public static final String REDIS_COUNTS_UID = "redis-counts-sink";
    public static final String REDIS_RECEIPTS_UID = "redis-receipts-sink";
    public static final String MYSQL_USER_ACTIVITY_UID = "mysql-user-activity-sink";
    public static final String MYSQL_CONVERSATION_MEMBER_UID = "mysql-conversation-member-sink";
    public static final String DEAD_LETTERS_UID = "dead-letters-sink";
    public static final String REDIS_READERS_UID = "redis-readers-sink";

    /** The fan-out operator's name, by which metrics and the web UI show it. */
    public static final String FAN_OUT_NAME = "fan out groups";

    private final Source<RawRecord, ?, ?> messages;
    private final Source<RawRecord, ?, ?> reads;
    private final Source<RawRecord, ?, ?> conversations;
    private final JobOutputs outputs;
    private final long idleStateDays;
    private final long maxFutureSkewMs;
    private final int maxReceiptParticipants;

    /** See {@link UnreadConfig#TRACK_ROOT_SENDERS}. */
    private boolean trackRootSenders;

    /** See {@link UnreadConfig#MAX_BARE_THREADS}. */
    private int maxBareThreads = ThreadSets.DEFAULT_MAX_BARE_THREADS;

    /** See {@link UnreadConfig#MAX_CHANNEL_SEQ}. */
    private long maxChannelSeq = ChannelStage.DEFAULT_MAX_CHANNEL_SEQ;

    /** A job that keeps every user's state forever, with the default bound on future times. */
    public UnreadJob(
            Source<RawRecord, ?, ?> messages,
            Source<RawRecord, ?, ?> reads,
            Source<RawRecord, ?, ?> conversations,
            JobOutputs outputs) {
        this(
                messages,
                reads,
                conversations,
                outputs,
                0,
                UnreadConfig.DEFAULT_MAX_FUTURE_SKEW_MS,
                ConversationReaders.DEFAULT_MAX_RECEIPT_PARTICIPANTS);
    }

    /**
     * A job that forgets users idle for {@code idleStateDays} days (0: never), refuses times more
     * than {@code maxFutureSkewMs} after their Kafka record's timestamp, and sends a read receipt
     * to each participant it concerns in conversations of at most {@code maxReceiptParticipants}.
     */
    public UnreadJob(
            Source<RawRecord, ?, ?> messages,
            Source<RawRecord, ?, ?> reads,
            Source<RawRecord, ?, ?> conversations,
            JobOutputs outputs,
            long idleStateDays,
            long maxFutureSkewMs,
            int maxReceiptParticipants) {
        this.messages = messages;
        this.reads = reads;
        this.conversations = conversations;
        this.outputs = outputs;
        this.idleStateDays = idleStateDays;
        this.maxFutureSkewMs = maxFutureSkewMs;
        this.maxReceiptParticipants = maxReceiptParticipants;
    }

    /**
     * Whether a root's sender follows its thread by default when the replies do not name them
     * ({@code --track-root-senders}): every conversation message then goes to its sender's key too.
     */
    public UnreadJob trackingRootSenders(boolean track) {
        this.trackRootSenders = track;
        return this;
    }

    /**
     * The most threads per user and conversation kept only for a cursor or an explicit follow
     * ({@code --max-bare-threads}).
     */
    public UnreadJob keepingBareThreads(int max) {
        this.maxBareThreads = max;
        return this;
    }

    /** The largest seq of a channel's message that counts ({@code --max-channel-seq}). */
    public UnreadJob boundingChannelSeqs(long max) {
        this.maxChannelSeq = max;
        return this;
    }

    /** The production wiring: Kafka in, Redis, MySQL and Kafka out. */
    public static UnreadJob forProduction(UnreadConfig config) {
        return new UnreadJob(
                        KafkaRawRecords.source(config, config.messagesTopic),
                        KafkaRawRecords.source(config, config.readsTopic),
                        KafkaRawRecords.source(config, config.conversationsTopic),
                        new JobOutputs(
                                RedisCounts.ofCounter(config),
                                new RedisReceipts(config),
                                MySqlCursors.userActivity(config),
                                MySqlCursors.conversationMember(config),
                                new RedisReaders(config),
                                KafkaDeadLetters.sink(config),
                                new RedisChannels(config)),
                        config.idleStateDays,
                        config.maxFutureSkewMs,
                        config.receiptParticipantsMax)
                .trackingRootSenders(config.trackRootSenders)
                .keepingBareThreads(config.maxBareThreads)
                .boundingChannelSeqs(config.maxChannelSeq);
    }

    public static void main(String[] args) throws Exception {
        UnreadConfig config = config(args, System.getenv());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(JobSettings.of(config));
        forProduction(config).build(env);
        env.execute("unread");
    }

    /**
     * The settings of {@code args} over {@code env}, logged so that an operator sees what the job
     * runs with; {@link UnreadConfig#toString} leaves every secret out.
     */
    static UnreadConfig config(String[] args, Map<String, String> env) {
        UnreadConfig config = UnreadConfig.fromArgs(args, env);
        LOG.info("unread job settings: {}", config);
        return config;
    }

    /** Adds the job's sources and parsers to {@code env}, and nothing after them. */
    public ParsedTopics parse(StreamExecutionEnvironment env) {
        SingleOutputStreamOperator<ChatEvent> messageEvents =
                env.fromSource(messages, WatermarkStrategy.noWatermarks(), Topics.MESSAGES)
                        .uid(MESSAGES_SOURCE_UID)
                        .process(new ParseEvents(ParseEvents.Topic.MESSAGES, maxFutureSkewMs))
                        .uid(PARSE_MESSAGES_UID)
                        .name("parse chat-messages");
        SingleOutputStreamOperator<ChatEvent> readEvents =
                env.fromSource(reads, WatermarkStrategy.noWatermarks(), Topics.READS)
                        .uid(READS_SOURCE_UID)
                        .process(new ParseEvents(ParseEvents.Topic.READS, maxFutureSkewMs))
                        .uid(PARSE_READS_UID)
                        .name("parse chat-reads");
        SingleOutputStreamOperator<ConversationEvent> conversationEvents =
                env.fromSource(
                                conversations,
                                WatermarkStrategy.noWatermarks(),
                                Topics.CONVERSATIONS)
                        .uid(CONVERSATIONS_SOURCE_UID)
                        .process(new ParseConversations(maxFutureSkewMs))
                        .uid(PARSE_CONVERSATIONS_UID)
                        .name("parse chat-conversations");
        return new ParsedTopics(messageEvents, readEvents, conversationEvents);
    }

    /** Adds the pipeline to {@code env}. */
    public void build(StreamExecutionEnvironment env) {
        ParsedTopics in = parse(env);
        SingleOutputStreamOperator<ChatEvent> messageEvents = in.messageEvents();
        SingleOutputStreamOperator<ChatEvent> readEvents = in.readEvents();
        SingleOutputStreamOperator<ConversationEvent> conversationEvents = in.conversationEvents();
        SingleOutputStreamOperator<ReaderUpdate> messageParticipants =
                messageEvents
                        .flatMap(new ParticipantNotices())
                        .uid(MESSAGE_PARTICIPANTS_UID)
                        .name("participants of chat-messages");
        // The fan-out learns them too: a deletion on chat-conversations must reach the people
        // of a conversation whose messages come on chat-messages.
        DataStream<ConversationEvent> fanOutParticipants =
                messageParticipants
                        .map(p -> ConversationEvent.participant(p.conversationId, p.userId))
                        .returns(ConversationEvent.class)
                        .uid(FAN_OUT_PARTICIPANTS_UID)
                        .name("participants to fan-out");
        // A reply's deletion may come first and its receiver's conversation cursor pass it before
        // the reply does: the conversation's stage, which keeps every deletion, stamps replies.
        SingleOutputStreamOperator<ChatEvent> toCounter =
                messageEvents
                        .process(new ReplyRouting())
                        .uid(REPLY_ROUTING_UID)
                        .name("replies to their conversation");
        SingleOutputStreamOperator<ChatEvent> groupEvents =
                conversationEvents
                        .union(fanOutParticipants, toCounter.getSideOutput(ReplyRouting.REPLIES))
                        .keyBy(event -> event.conversationId, Types.LONG)
                        .process(new GroupFanOut(trackRootSenders, maxChannelSeq))
                        .uid(FAN_OUT_UID)
                        .name(FAN_OUT_NAME);

        DataStream<ChatEvent> ownMessages =
                messageEvents
                        .flatMap(new OwnMessages(trackRootSenders))
                        .uid(OWN_MESSAGES_UID)
                        .name("own messages to their senders");

        SingleOutputStreamOperator<UnreadCount> counts =
                toCounter
                        .union(readEvents, groupEvents, ownMessages)
                        .keyBy(event -> event.userId, Types.LONG)
                        .transform(
                                COUNTER_NAME,
                                TypeInformation.of(UnreadCount.class),
                                new UnreadCounterOperator(
                                        idleStateDays, trackRootSenders, maxBareThreads))
                        .uid(COUNTER_UID)
                        .name(COUNTER_NAME);

        counts.sinkTo(outputs.counts()).uid(REDIS_COUNTS_UID).name("Redis counts");

        // A channel is counted once per message, keyed by the channel, from its records and its
        // members' facts; its writes stay on the stage's subtask, in order, to their sink.
        SingleOutputStreamOperator<ChannelWrite> channels =
                groupEvents
                        .getSideOutput(GroupFanOut.CHANNEL_RECORDS)
                        .keyBy(event -> event.conversationId, Types.LONG)
                        .connect(
                                counts.getSideOutput(UnreadCounter.CHANNEL_FACTS)
                                        .keyBy(event -> event.conversationId, Types.LONG))
                        .process(new ChannelStage(maxChannelSeq, maxBareThreads))
                        .uid(CHANNELS_UID)
                        .name(CHANNELS_NAME);
        channels.sinkTo(outputs.channels()).uid(REDIS_CHANNELS_UID).name("Redis channels");

        DataStream<ConversationCursor> conversationCursors =
                counts.getSideOutput(UnreadCounter.CONVERSATION_CURSORS)
                        .union(channels.getSideOutput(ChannelStage.CURSORS));
        conversationCursors
                .sinkTo(outputs.conversationCursors())
                .uid(MYSQL_CONVERSATION_MEMBER_UID)
                .name("MySQL conversation_member")
                // Off the counting task: a JDBC batch written before each barrier would stall
                // the counting and the Redis writes behind it.
                .disableChaining();
        SingleOutputStreamOperator<ReaderUpdate> readers =
                messageParticipants
                        .union(
                                conversationEvents
                                        .flatMap(new ParticipantNotices.Members())
                                        .uid(MEMBER_PARTICIPANTS_UID)
                                        .name("participants of chat-conversations"),
                                conversationCursors
                                        .map(ReaderUpdate::cursor)
                                        .returns(ReaderUpdate.class)
                                        .uid(CURSOR_READERS_UID)
                                        .name("cursors to readers"),
                                counts.getSideOutput(UnreadCounter.KNOWN_READERS))
                        .keyBy(update -> update.conversationId, Types.LONG)
                        .process(new ConversationReaders(maxReceiptParticipants))
                        .uid(READERS_UID)
                        .name("conversation readers");
        readers.sinkTo(outputs.readers()).uid(REDIS_READERS_UID).name("Redis readers");
        readers.getSideOutput(ConversationReaders.RECEIPTS)
                .sinkTo(outputs.receipts())
                .uid(REDIS_RECEIPTS_UID)
                .name("Redis read receipts");
        counts.getSideOutput(UnreadCounter.INBOX_CURSORS)
                .sinkTo(outputs.inboxCursors())
                .uid(MYSQL_USER_ACTIVITY_UID)
                .name("MySQL user_activity")
                .disableChaining();

        messageEvents
                .getSideOutput(ParseEvents.DEAD_LETTERS)
                .union(
                        readEvents.getSideOutput(ParseEvents.DEAD_LETTERS),
                        conversationEvents.getSideOutput(ParseEvents.DEAD_LETTERS))
                .sinkTo(outputs.deadLetters())
                .uid(DEAD_LETTERS_UID)
                .name("dead letters");
    }

    /** Builds and runs the pipeline in {@code env}, blocking until it ends. */
    public JobExecutionResult execute(StreamExecutionEnvironment env) throws Exception {
        build(env);
        return env.execute("unread");
    }
}
