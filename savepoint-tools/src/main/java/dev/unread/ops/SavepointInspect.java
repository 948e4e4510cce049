package dev.unread.ops;

import dev.unread.UnreadJob;
import dev.unread.state.StateSchema;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * {@code unread savepoint inspect PATH [--top N]}: what UnreadCounter's state in a savepoint (or a
 * retained checkpoint) holds — users, senders, conversations, unread seqs — and its largest users,
 * the ones that cost the most state; and the group conversations' state: members kept by the
 * fan-out, participants and readers. Reads the state with the job's own descriptors, so a savepoint
 * this reads is one the job restores.
 */
public final class SavepointInspect {

    /** How many of the largest users {@code unread savepoint inspect} lists by default. */
    public static final int DEFAULT_TOP = 10;

    /** Ranks the largest users first; ties by user id, so the listing is stable. */
    private static final Comparator<UserState> LARGEST_FIRST =
            Comparator.comparingLong(UserState::size)
                    .reversed()
                    .thenComparingLong(UserState::userId);

    private SavepointInspect() {}

    /**
     * The totals over all users of a savepoint.
     *
     * @param maxParallelism the savepoint's key groups, the highest parallelism it restores at
     * @param users users with any state
     * @param senders senders held: the sum of all badges
     * @param usersWithBadge users whose badge is not 0
     * @param inboxCursors users who opened their inbox
     * @param conversations conversations held over all users
     * @param conversationCursors conversations with a read cursor
     * @param unreadSeqs unread seqs: the sum of all conversation counts
     * @param mentions unread seqs that mention their user, over all conversations
     * @param marked conversations marked unread
     * @param quieted conversations whose count preference is MENTIONS or NONE
     * @param badgeMismatches users whose stored badge differs from their sender set (corruption)
     * @param largest the largest users, largest first
     * @param groups the group conversations' state
     * @param bytes the savepoint's state bytes by operator
     */
    public record Summary(
            int maxParallelism,
            long users,
            long senders,
            long usersWithBadge,
            long inboxCursors,
            long conversations,
            long conversationCursors,
            long unreadSeqs,
            long mentions,
            long marked,
            long quieted,
            long badgeMismatches,
            List<UserState> largest,
            Groups groups,
            Bytes bytes) {}

    /**
     * A savepoint's state bytes by operator, from its metadata: the counter's (per user), the
     * fan-out's and the readers stage's (per conversation), and the rest (the sources' offsets and
     * the sinks' pending writes).
     */
    public record Bytes(long counter, long fanOut, long readers, long rest) {

        public long total() {
            return counter + fanOut + readers + rest;
        }
    }

    /**
     * The state of group conversations and readers, kept per conversation; all 0 in a savepoint of
     * a build before groups.
     *
     * @param conversations conversations with members (GroupFanOut)
     * @param members users whose newest membership event is MEMBER_JOINED, over all of them
     * @param leavers users whose newest membership event is MEMBER_LEFT, over all of them
     * @param readerConversations conversations with participants or cursors (ConversationReaders)
     * @param participants participants, over all conversations
     * @param readers participants with a cursor: the members of all {@code chat:readers:{C}}
     */
    public record Groups(
            long conversations,
            long members,
            long leavers,
            long readerConversations,
            long participants,
            long readers) {}

    /** Reads every user's state in the savepoint at {@code path}. */
    public static Summary inspect(String path, int top) throws Exception {
        try (BatchJobs jobs = BatchJobs.start()) {
            return inspect(jobs, path, top);
        }
    }

    private static Summary inspect(BatchJobs jobs, String path, int top) throws Exception {
        int maxParallelism = CounterSavepoints.counterState(path).getMaxParallelism();

        long users = 0;
        long senders = 0;
        long usersWithBadge = 0;
        long inboxCursors = 0;
        long conversations = 0;
        long conversationCursors = 0;
        long unreadSeqs = 0;
        long mentions = 0;
        long marked = 0;
        long quieted = 0;
        long badgeMismatches = 0;
        // The smallest of the largest on top, so the heap holds at most `top` users.
        PriorityQueue<UserState> largest = new PriorityQueue<>(LARGEST_FIRST.reversed());
        try (CloseableIterator<UserState> states = read(jobs, path)) {
            while (states.hasNext()) {
                UserState user = states.next();
                users++;
                senders += user.senders();
                usersWithBadge += user.senders() > 0 ? 1 : 0;
                inboxCursors += user.lastReadAt() > 0 ? 1 : 0;
                conversations += user.conversations();
                conversationCursors += user.conversationCursors();
                unreadSeqs += user.unreadSeqs();
                mentions += user.mentions();
                marked += user.marked();
                quieted += user.quieted();
                badgeMismatches += user.senders() != user.storedBadge() ? 1 : 0;
                largest.add(user);
                if (largest.size() > top) {
                    largest.poll();
                }
            }
        }
        List<UserState> ranked = new ArrayList<>(largest);
        ranked.sort(LARGEST_FIRST);
        return new Summary(
                maxParallelism,
                users,
                senders,
                usersWithBadge,
                inboxCursors,
                conversations,
                conversationCursors,
                unreadSeqs,
                mentions,
                marked,
                quieted,
                badgeMismatches,
                ranked,
                groups(jobs, path),
                bytes(path));
    }

    /** The savepoint's state bytes by operator, as its metadata gives them. */
    static Bytes bytes(String path) throws IOException {
        long counter = 0;
        long fanOut = 0;
        long readers = 0;
        long rest = 0;
        for (OperatorState state :
                SavepointLoader.loadSavepointMetadata(path).getOperatorStates()) {
            long size = state.getStateSize();
            if (state.getOperatorID().equals(CounterSavepoints.COUNTER.getOperatorId())) {
                counter += size;
            } else if (state.getOperatorID().equals(CounterSavepoints.FAN_OUT.getOperatorId())) {
                fanOut += size;
            } else if (state.getOperatorID().equals(CounterSavepoints.READERS.getOperatorId())) {
                readers += size;
            } else {
                rest += size;
            }
        }
        return new Bytes(counter, fanOut, readers, rest);
    }

    /** The group state of the savepoint at {@code path}: each operator's conversations summed. */
    private static Groups groups(BatchJobs jobs, String path) throws Exception {
        long[] members =
                perConversation(jobs, path, CounterSavepoints.FAN_OUT, new MembersReader());
        long[] readers =
                perConversation(jobs, path, CounterSavepoints.READERS, new ReadersReader());
        return new Groups(members[0], members[1], members[2], readers[0], readers[1], readers[2]);
    }

    /**
     * The number of conversations and the sums of the two figures {@code reader} gives for each (a
     * conversation's figures are the last two fields of its tuple); zeros when the savepoint holds
     * no state of {@code operator}. Each operator has one state, so each conversation comes once.
     */
    private static long[] perConversation(
            BatchJobs jobs,
            String path,
            OperatorIdentifier operator,
            KeyedStateReaderFunction<Long, Tuple3<Long, Long, Long>> reader)
            throws Exception {
        long[] sums = new long[3];
        if (CounterSavepoints.operatorState(path, operator).isEmpty()) {
            return sums;
        }
        try (CloseableIterator<Tuple3<Long, Long, Long>> conversations =
                SavepointReader.read(jobs.environment(), path, CounterSavepoints.stateBackend())
                        .readKeyedState(
                                operator,
                                reader,
                                Types.LONG,
                                Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
                        .executeAndCollect("unread savepoint inspect: " + operator)) {
            while (conversations.hasNext()) {
                Tuple3<Long, Long, Long> conversation = conversations.next();
                sums[0]++;
                sums[1] += conversation.f1;
                sums[2] += conversation.f2;
            }
        }
        return sums;
    }

    /** Per group conversation: its members now and its leavers (StateSchema.MEMBERS). */
    static final class MembersReader
            extends KeyedStateReaderFunction<Long, Tuple3<Long, Long, Long>> {

        private transient MapState<Long, long[]> members;

        @Override
        public void open(OpenContext openContext) {
            members = getRuntimeContext().getMapState(StateSchema.MEMBERS);
        }

        @Override
        public void readKey(
                Long conversationId, Context context, Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            long joined = 0;
            long left = 0;
            for (long[] events : members.values()) {
                // Ordered by seq: the last event is the newest, the one that governs from now on.
                if (events[events.length - 1] > 0) {
                    joined++;
                } else {
                    left++;
                }
            }
            out.collect(Tuple3.of(conversationId, joined, left));
        }
    }

    /** Per conversation: its participants and those with a cursor (StateSchema.READERS). */
    static final class ReadersReader
            extends KeyedStateReaderFunction<Long, Tuple3<Long, Long, Long>> {

        private transient MapState<Long, Long> readers;

        @Override
        public void open(OpenContext openContext) {
            readers = getRuntimeContext().getMapState(StateSchema.READERS);
        }

        @Override
        public void readKey(
                Long conversationId, Context context, Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            long participants = 0;
            long withCursor = 0;
            for (long value : readers.values()) {
                // A negative value is a cursor of a user not known as a participant yet.
                participants += value >= 0 ? 1 : 0;
                withCursor += value > 0 ? 1 : 0;
            }
            out.collect(Tuple3.of(conversationId, participants, withCursor));
        }
    }

    /** Every user's state in the savepoint, in no particular order, all of it in memory. */
    public static List<UserState> users(String path) throws Exception {
        CounterSavepoints.counterState(path);
        List<UserState> users = new ArrayList<>();
        try (BatchJobs jobs = BatchJobs.start();
                CloseableIterator<UserState> states = read(jobs, path)) {
            states.forEachRemaining(users::add);
        }
        return users;
    }

    /**
     * Every user once. Flink 2.2's reader of keyed state hands a key to the reader function once
     * per state that holds it when the states are in RocksDB (seen here: a user with an inbox and
     * senders came twice), so the users already read are remembered, compressed.
     */
    private static CloseableIterator<UserState> read(BatchJobs jobs, String path) throws Exception {
        CloseableIterator<UserState> all =
                SavepointReader.read(jobs.environment(), path, CounterSavepoints.stateBackend())
                        .readKeyedState(
                                CounterSavepoints.COUNTER,
                                new UserStateReader(),
                                Types.LONG,
                                TypeInformation.of(UserState.class))
                        .executeAndCollect("unread savepoint inspect");
        return new CloseableIterator<>() {
            private final Roaring64NavigableMap seen = new Roaring64NavigableMap();
            private UserState next = advance();

            private UserState advance() {
                while (all.hasNext()) {
                    UserState user = all.next();
                    if (!seen.contains(user.userId())) {
                        seen.addLong(user.userId());
                        return user;
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public UserState next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                UserState user = next;
                next = advance();
                return user;
            }

            @Override
            public void close() throws Exception {
                all.close();
            }
        };
    }

    public static void print(String path, Summary summary, PrintStream out) {
        out.println("Savepoint " + path);
        out.printf(
                "  operator %s, max parallelism %d%n%n",
                UnreadJob.COUNTER_UID, summary.maxParallelism());
        line(out, "users", summary.users(), "");
        line(out, "senders held", summary.senders(), "the sum of all badges");
        line(out, "users with a badge", summary.usersWithBadge(), "");
        line(out, "inbox cursors", summary.inboxCursors(), "users who opened their inbox");
        line(out, "conversations held", summary.conversations(), "");
        line(out, "conversation cursors", summary.conversationCursors(), "");
        line(out, "unread seqs", summary.unreadSeqs(), "the sum of all conversation counts");
        line(out, "mentions", summary.mentions(), "unread seqs that mention their user");
        line(out, "marked unread", summary.marked(), "conversations");
        line(out, "quieted", summary.quieted(), "conversations set to MENTIONS or NONE");
        line(out, "badge != sender set", summary.badgeMismatches(), "should be 0");
        Groups groups = summary.groups();
        out.printf("%n  operators %s, %s%n%n", UnreadJob.FAN_OUT_UID, UnreadJob.READERS_UID);
        line(out, "group conversations", groups.conversations(), "conversations with members");
        line(out, "members", groups.members(), "newest event MEMBER_JOINED");
        line(out, "leavers", groups.leavers(), "newest event MEMBER_LEFT: counts hidden");
        line(out, "reader conversations", groups.readerConversations(), "");
        line(out, "participants", groups.participants(), "");
        line(out, "readers", groups.readers(), "participants with a cursor");
        Bytes bytes = summary.bytes();
        out.printf("%n  state bytes%n%n");
        line(out, UnreadJob.COUNTER_UID, bytes.counter(), "");
        line(out, UnreadJob.FAN_OUT_UID, bytes.fanOut(), "");
        line(out, UnreadJob.READERS_UID, bytes.readers(), "");
        line(out, "other operators", bytes.rest(), "sources' offsets, sinks' pending writes");
        if (summary.largest().isEmpty()) {
            return;
        }
        out.printf("%nLargest users (senders + conversations):%n");
        out.printf(
                "  %20s %10s %14s %12s  %s%n",
                "user", "senders", "conversations", "unread seqs", "inbox read at");
        for (UserState user : summary.largest()) {
            out.printf(
                    "  %20d %10d %14d %12d  %s%n",
                    user.userId(),
                    user.senders(),
                    user.conversations(),
                    user.unreadSeqs(),
                    user.lastReadAt() == 0 ? "never" : Instant.ofEpochMilli(user.lastReadAt()));
        }
    }

    private static void line(PrintStream out, String name, long value, String note) {
        out.printf("  %-22s %12d%s%n", name, value, note.isEmpty() ? "" : "   " + note);
    }
}
