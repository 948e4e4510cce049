package dev.unread.ops;

import dev.unread.UnreadJob;
import dev.unread.state.ConversationState;
import dev.unread.state.ConversationStateSerializer;
import dev.unread.state.InboxState;
import dev.unread.state.InboxStateSerializer;
import dev.unread.state.StateSchema;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * {@code unread savepoint inspect PATH --user U}: whether a savepoint (or a retained checkpoint)
 * holds anything of user U, operator by operator and state by state, for an operator who erased U
 * (docs/operations.md, "Erasing a user") and must know which savepoints still hold the user.
 *
 * <p>What each state holds of U is split in two: U's own data (counts, cursors, senders, threads,
 * preferences, marks...), which an erasure drops and which this answers for; and facts of a
 * conversation that an erasure keeps (U's membership events, U as a participant of a readers set,
 * U's {@code erasedAt}). The counter's state is keyed by U and read for U alone; the fan-out's and
 * the readers' are keyed by conversation, so every conversation is read, which takes as long as
 * {@code inspect} does. So is the channel stage's, keyed by channel: the user's tracks are shown as
 * the JSON readers read in {@code chat:channel-tracks:{userId}}.
 */
public final class SavepointUser {

    private SavepointUser() {}

    /**
     * What one state of one operator holds of the user.
     *
     * @param operator the operator's uid
     * @param state the state's name in {@link StateSchema}
     * @param entries entries of the user: map entries, a value, conversations naming the user
     * @param own how many of those are the user's own data rather than facts an erasure keeps
     */
    public record Holding(String operator, String state, long entries, long own) {}

    /**
     * @param userId the user asked about
     * @param erasedAt the user's newest erasure the counter holds, 0 when none
     * @param holdings every state holding something of the user, in the operators' order
     * @param tracks the user's channel tracks as {@code chat:channel-tracks:{userId}} holds them
     *     after the job (or a republish) wrote them: field ({@code {C}}, or {@code {C}:{T}} of a
     *     followed thread) to the JSON readers read, in field order
     */
    public record Report(
            long userId, long erasedAt, List<Holding> holdings, Map<String, String> tracks) {

        /** Whether the savepoint holds any of the user's own data. */
        public boolean holdsUsersData() {
            return holdings.stream().anyMatch(h -> h.own() > 0);
        }
    }

    /** Reads what the savepoint at {@code path} holds of {@code userId}. */
    public static Report inspect(String path, long userId) throws Exception {
        CounterSavepoints.counterState(path);
        Map<String, Holding> holdings = new LinkedHashMap<>();
        long[] erasedAt = new long[1];
        read(
                path,
                CounterSavepoints.COUNTER,
                new CounterReader(userId),
                row -> {
                    if (row.f0.equals(ERASED_AT)) {
                        erasedAt[0] = row.f2;
                    } else {
                        add(holdings, UnreadJob.COUNTER_UID, row);
                    }
                });
        read(
                path,
                CounterSavepoints.FAN_OUT,
                new FanOutReader(userId),
                row -> add(holdings, UnreadJob.FAN_OUT_UID, row));
        read(
                path,
                CounterSavepoints.READERS,
                new ReadersReader(userId),
                row -> add(holdings, UnreadJob.READERS_UID, row));
        return new Report(
                userId,
                erasedAt[0],
                new ArrayList<>(holdings.values()),
                ChannelSavepoints.tracksOf(path, userId));
    }

    public static void print(String path, Report report, PrintStream out) {
        out.println("Savepoint " + path + ", user " + report.userId());
        out.println(
                report.holdsUsersData()
                        ? "  holds data of the user: yes"
                        : "  holds data of the user: no");
        if (report.erasedAt() != 0) {
            out.println(
                    "  erased at " + Instant.ofEpochMilli(report.erasedAt()) + " (kept for good)");
        }
        String operator = null;
        for (Holding h : report.holdings()) {
            if (!h.operator().equals(operator)) {
                operator = h.operator();
                out.printf("%n  operator %s%n", operator);
            }
            out.printf(
                    "    %-36s %8d entries, %8d the user's own%s%n",
                    h.state(),
                    h.entries(),
                    h.own(),
                    h.own() < h.entries() ? "; the rest facts an erasure keeps" : "");
        }
        if (report.holdings().isEmpty()) {
            out.println("  nothing of the user in any operator");
        }
        if (!report.tracks().isEmpty()) {
            out.printf("%n  channel tracks (chat:channel-tracks:%d)%n", report.userId());
            report.tracks().forEach((field, json) -> out.printf("    %-20s %s%n", field, json));
        }
    }

    /** The counter's row that carries {@code erasedAt} in its third field rather than a state. */
    private static final String ERASED_AT = "erasedAt";

    /**
     * The row of a key that holds nothing of the user: the State Processor API's reader takes a key
     * that emits nothing for the end of its input (Flink 2.2), so every key emits a row.
     */
    private static final Tuple4<String, Long, Long, Long> NOTHING = Tuple4.of("", 0L, 0L, 0L);

    private static void add(
            Map<String, Holding> holdings, String operator, Tuple4<String, Long, Long, Long> row) {
        holdings.merge(
                operator + "/" + row.f0,
                new Holding(operator, row.f0, row.f1, row.f2),
                (a, b) ->
                        new Holding(
                                operator, row.f0, a.entries() + b.entries(), a.own() + b.own()));
    }

    private static void read(
            String path,
            OperatorIdentifier operator,
            KeyedStateReaderFunction<Long, Tuple4<String, Long, Long, Long>> reader,
            java.util.function.Consumer<Tuple4<String, Long, Long, Long>> rows)
            throws Exception {
        if (CounterSavepoints.operatorState(path, operator).isEmpty()) {
            return;
        }
        // A key comes once per state that holds it (see SavepointInspect#read): the user's rows
        // are told apart by the key they came with, in the fourth field, and each counted once.
        Map<String, Tuple4<String, Long, Long, Long>> once = new LinkedHashMap<>();
        try (BatchJobs jobs = BatchJobs.start();
                CloseableIterator<Tuple4<String, Long, Long, Long>> all =
                        SavepointReader.read(
                                        jobs.environment(), path, CounterSavepoints.stateBackend())
                                .readKeyedState(
                                        operator,
                                        reader,
                                        Types.LONG,
                                        Types.TUPLE(
                                                Types.STRING, Types.LONG, Types.LONG, Types.LONG))
                                .executeAndCollect(
                                        "unread savepoint inspect --user: " + operator)) {
            all.forEachRemaining(
                    row -> {
                        if (!row.f0.isEmpty()) {
                            once.put(row.f0 + "@" + row.f3, row);
                        }
                    });
        }
        once.values().forEach(rows);
    }

    /** Whether {@code value} differs from {@code kept} as the state stores them. */
    private static <T> boolean differs(TypeSerializer<T> serializer, T value, T kept)
            throws Exception {
        DataOutputSerializer a = new DataOutputSerializer(64);
        DataOutputSerializer b = new DataOutputSerializer(64);
        serializer.serialize(value, a);
        serializer.serialize(kept, b);
        return !java.util.Arrays.equals(a.getCopyOfBuffer(), b.getCopyOfBuffer());
    }

    /**
     * The counter's state of the user alone: rows (state, entries, own entries, key). Every keyed
     * state of the counter in {@link StateSchema} is read; what an erasure keeps is the inbox
     * record with {@code erasedAt} (and the idle clock's day), and conversations with the user's
     * membership and the deleted seqs kept for the user (facts of the conversation) alone.
     */
    static final class CounterReader
            extends KeyedStateReaderFunction<Long, Tuple4<String, Long, Long, Long>> {

        private final long userId;
        private transient ValueState<InboxState> inbox;
        private transient ValueState<Long> threadSetIds;
        private transient Map<String, MapState<?, ?>> maps;

        /** Of {@link #maps}, those an erasure keeps: facts of the conversations. */
        private transient Set<String> facts;

        private transient MapState<Long, ConversationState> conversations;

        CounterReader(long userId) {
            this.userId = userId;
        }

        @Override
        public void open(OpenContext openContext) {
            inbox = getRuntimeContext().getState(StateSchema.INBOX);
            threadSetIds = getRuntimeContext().getState(StateSchema.THREAD_SET_IDS);
            conversations = getRuntimeContext().getMapState(StateSchema.CONVERSATIONS);
            maps = new LinkedHashMap<>();
            facts =
                    Set.of(
                            StateSchema.DELETED.chunks().getName(),
                            StateSchema.DELETED.tree().getName());
            map(StateSchema.SENDERS);
            map(StateSchema.THREADS);
            map(StateSchema.BARE_THREAD_TOUCHES);
            for (StateSchema.ChunkedSet set :
                    List.of(
                            StateSchema.UNREAD,
                            StateSchema.MENTIONS,
                            StateSchema.DELETED,
                            StateSchema.THREAD_SEQS,
                            StateSchema.INVOLVED,
                            StateSchema.UNREAD_THREADS,
                            StateSchema.BARE_THREADS)) {
                map(set.chunks());
                map(set.tree());
                if (set.flatIndex() != null) {
                    map(set.flatIndex());
                }
            }
        }

        private void map(MapStateDescriptor<?, ?> descriptor) {
            maps.put(descriptor.getName(), getRuntimeContext().getMapState(descriptor));
        }

        @Override
        public void readKey(
                Long key, Context context, Collector<Tuple4<String, Long, Long, Long>> out)
                throws Exception {
            out.collect(NOTHING);
            if (key != userId) {
                return;
            }
            InboxState state = inbox.value();
            if (state != null) {
                InboxState kept = new InboxState();
                kept.erase(state.erasedAt);
                kept.lastActiveDay = state.lastActiveDay;
                long own = differs(InboxStateSerializer.INSTANCE, state, kept) ? 1 : 0;
                out.collect(Tuple4.of(StateSchema.INBOX.getName(), 1L, own, key));
                if (state.erasedAt != 0) {
                    out.collect(Tuple4.of(ERASED_AT, 0L, state.erasedAt, key));
                }
            }
            long entries = 0;
            long own = 0;
            for (Map.Entry<Long, ConversationState> c : conversations.entries()) {
                entries++;
                ConversationState kept = ConversationState.fresh();
                kept.membership = c.getValue().membership;
                kept.deletedCount = c.getValue().deletedCount;
                own += differs(ConversationStateSerializer.INSTANCE, c.getValue(), kept) ? 1 : 0;
            }
            if (entries > 0) {
                out.collect(Tuple4.of(StateSchema.CONVERSATIONS.getName(), entries, own, key));
            }
            if (threadSetIds.value() != null) {
                out.collect(Tuple4.of(StateSchema.THREAD_SET_IDS.getName(), 1L, 1L, key));
            }
            for (Map.Entry<String, MapState<?, ?>> map : maps.entrySet()) {
                long n = 0;
                for (Object ignored : map.getValue().keys()) {
                    n++;
                }
                if (n > 0) {
                    long ownEntries = facts.contains(map.getKey()) ? 0 : n;
                    out.collect(Tuple4.of(map.getKey(), n, ownEntries, key));
                }
            }
        }
    }

    /** The fan-out's conversations naming the user: memberships and participation, all facts. */
    static final class FanOutReader
            extends KeyedStateReaderFunction<Long, Tuple4<String, Long, Long, Long>> {

        private final long userId;
        private transient List<MapState<Long, ?>> states;
        private transient List<String> names;

        FanOutReader(long userId) {
            this.userId = userId;
        }

        @Override
        public void open(OpenContext openContext) {
            states = new ArrayList<>();
            names = new ArrayList<>();
            for (MapStateDescriptor<Long, ?> d :
                    List.<MapStateDescriptor<Long, ?>>of(
                            StateSchema.MEMBERS,
                            StateSchema.CURRENT_MEMBERS,
                            StateSchema.PARTICIPANTS)) {
                states.add(getRuntimeContext().getMapState(d));
                names.add(d.getName());
            }
        }

        @Override
        public void readKey(
                Long conversationId,
                Context context,
                Collector<Tuple4<String, Long, Long, Long>> out)
                throws Exception {
            out.collect(NOTHING);
            for (int i = 0; i < states.size(); i++) {
                if (states.get(i).contains(userId)) {
                    out.collect(Tuple4.of(names.get(i), 1L, 0L, conversationId));
                }
            }
        }
    }

    /**
     * The readers' conversations naming the user: a cursor is the user's own (a participant with
     * none is a fact), and so is a cursor kept for a user not a participant; memberships are facts.
     */
    static final class ReadersReader
            extends KeyedStateReaderFunction<Long, Tuple4<String, Long, Long, Long>> {

        private final long userId;
        private transient MapState<Long, Long> readers;
        private transient MapState<Long, Long> memberships;

        ReadersReader(long userId) {
            this.userId = userId;
        }

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
            memberships = getRuntimeContext().getMapState(StateSchema.MEMBERSHIPS);
        }

        @Override
        public void readKey(
                Long conversationId,
                Context context,
                Collector<Tuple4<String, Long, Long, Long>> out)
                throws Exception {
            out.collect(NOTHING);
            Long cursor = readers.get(userId);
            if (cursor != null) {
                out.collect(
                        Tuple4.of(
                                StateSchema.READERS.getName(),
                                1L,
                                cursor != 0 ? 1L : 0L,
                                conversationId));
            }
            if (memberships.contains(userId)) {
                out.collect(Tuple4.of(StateSchema.MEMBERSHIPS.getName(), 1L, 0L, conversationId));
            }
        }
    }
}
