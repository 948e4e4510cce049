package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import dev.unread.state.StateSchema;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.SimpleTimerService;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs {@link UnreadCounter} and keeps its idle timers right across a restore that changes {@code
 * --idle-state-days}. A keyed function sees a user only when an event for them arrives, so a
 * restore that turns expiry on, or changes its days, would leave users with no further event with
 * no timer, or one for the wrong day. This operator remembers, in operator state, the days the
 * timers were set for, and when a restore brings other days, walks every user in the keyed state
 * once before the first event and sets the timer the setting calls for.
 *
 * <p>It also keeps the day the idle clock started: the first start of a build that records each
 * user's active day. A user with no day recorded had no event since, so counts as active then.
 *
 * <p>And it keeps the version of its state: a restore from an older version's state walks every
 * user once before the first event to write what that version left out ({@link
 * UnreadCounter#catchUp}), so no operator step is needed after an upgrade.
 */
public final class UnreadCounterOperator
        extends KeyedProcessOperator<Long, ChatEvent, UnreadCount> {
    private static final long serialVersionUID = 1L;

    /** (idle state days the timers are set for, day the idle clock started); union state. */
    private static final ListStateDescriptor<Tuple2<Long, Long>> IDLE_TIMERS =
            new ListStateDescriptor<>("idle-timers", Types.TUPLE(Types.LONG, Types.LONG));

    /**
     * The version of the state this operator writes; union state. Absent in savepoints of versions
     * 1 and 2, whose restore calls for {@link UnreadCounter#catchUp}. Public for the bootstrap,
     * whose savepoint holds complete state of this version.
     */
    public static final ListStateDescriptor<Integer> STATE_VERSION =
            new ListStateDescriptor<>("state-version", Types.INT);

    /** Version 3 added {@link UnreadCounter#catchUp}: its own output complete after a restore. */
    public static final int CURRENT_STATE_VERSION = 3;

    /** The name KeyedProcessOperator gives its timer service. */
    private static final String TIMERS = "user-timers";

    private final long idleStateDays;

    /** See {@link RecordCache#writeBack}. */
    private final int cachedRecords;

    private final int dirtyRecords;

    private transient long idleClockStartDay;
    private transient boolean timersStale;
    private transient boolean stateOlder;
    private transient boolean stateOfVersion1;

    /** Without {@code --track-root-senders}. */
    public UnreadCounterOperator(long idleStateDays) {
        this(idleStateDays, false);
    }

    /** {@code trackRootSenders}: see {@link UnreadCounter#UnreadCounter(long, boolean)}. */
    public UnreadCounterOperator(long idleStateDays, boolean trackRootSenders) {
        this(idleStateDays, trackRootSenders, ThreadSets.DEFAULT_MAX_BARE_THREADS);
    }

    /** {@code maxBareThreads}: see {@link UnreadCounter#UnreadCounter(long, boolean, int)}. */
    public UnreadCounterOperator(long idleStateDays, boolean trackRootSenders, int maxBareThreads) {
        this(
                idleStateDays,
                trackRootSenders,
                maxBareThreads,
                RecordCache.MAX_RECORDS,
                RecordCache.MAX_DIRTY);
    }

    /** With a record cache of its own size, for tests that make it write back often. */
    UnreadCounterOperator(
            long idleStateDays,
            boolean trackRootSenders,
            int maxBareThreads,
            int cachedRecords,
            int dirtyRecords) {
        super(new UnreadCounter(idleStateDays, trackRootSenders, maxBareThreads));
        this.idleStateDays = idleStateDays;
        this.cachedRecords = cachedRecords;
        this.dirtyRecords = dirtyRecords;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        ListState<Tuple2<Long, Long>> idleTimers =
                context.getOperatorStateStore().getUnionListState(IDLE_TIMERS);
        Tuple2<Long, Long> restored = null;
        for (Tuple2<Long, Long> entry : idleTimers.get()) {
            // Every subtask wrote the same entry; a union hands each subtask all of them.
            restored = entry;
        }
        long today = getProcessingTimeService().getCurrentProcessingTime() / UnreadCounter.DAY_MS;
        idleClockStartDay = restored == null ? today : restored.f1;
        long timersSetFor = restored == null ? 0 : restored.f0;
        timersStale = context.isRestored() && idleStateDays > 0 && timersSetFor != idleStateDays;
        idleTimers.update(List.of(Tuple2.of(idleStateDays, idleClockStartDay)));
        // Version 2 wrote the idle timers' entry and had the readers stage, which kept every
        // cursor and who takes part; version 1 had neither.
        stateOfVersion1 = context.isRestored() && restored == null;

        ListState<Integer> version =
                context.getOperatorStateStore().getUnionListState(STATE_VERSION);
        int restoredVersion = 0;
        for (Integer v : version.get()) {
            restoredVersion = Math.max(restoredVersion, v);
        }
        stateOlder = context.isRestored() && restoredVersion < CURRENT_STATE_VERSION;
        version.update(List.of(CURRENT_STATE_VERSION));
    }

    @Override
    public void open() throws Exception {
        super.open();
        UnreadCounter counter = (UnreadCounter) getUserFunction();
        counter.writeBack(this::setCurrentKey, cachedRecords, dirtyRecords);
        counter.startIdleClock(idleClockStartDay);
        if (stateOlder) {
            catchUp(counter);
        }
        if (!timersStale) {
            return;
        }
        // The walks below go over the keyed state; nothing waiting to be written goes into it
        // while they do.
        counter.writeBackAll();
        // The same timer service KeyedProcessOperator.open registered, looked up by its name.
        TimerService timers =
                new SimpleTimerService(
                        getInternalTimerService(TIMERS, VoidNamespaceSerializer.INSTANCE, this));
        // Users with only conversation state have no inbox entry; a user in both gets the same
        // timer twice, which the timer service keeps once.
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.INBOX,
                        (user, state) -> counter.scheduleExpiry((Long) user, timers));
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.CONVERSATIONS,
                        (user, state) -> counter.scheduleExpiry((Long) user, timers));
    }

    /**
     * Every record the counter keeps in memory goes to the keyed state before the backend takes its
     * snapshot, in the checkpoint's synchronous part, after the barrier went downstream.
     */
    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        ((UnreadCounter) getUserFunction()).writeBackAll();
        super.snapshotState(context);
    }

    /**
     * Walks every user with conversation state once, before the first event (a user with inbox
     * state alone has no totals and no readers to bring). The records go out ahead of any the
     * events cause, through this subtask's own outputs. Readers only from version 1's state: the
     * readers stage of version 2 kept every cursor and who takes part, and a cursor handed to it as
     * a participant's would make a participant of a user who only read.
     */
    private void catchUp(UnreadCounter counter) throws Exception {
        TimestampedCollector<UnreadCount> counts = new TimestampedCollector<>(output);
        Consumer<ReaderUpdate> readers =
                stateOfVersion1
                        ? reader ->
                                output.collect(
                                        UnreadCounter.KNOWN_READERS, new StreamRecord<>(reader))
                        : null;
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        StateSchema.CONVERSATIONS,
                        (user, state) -> counter.catchUp((Long) user, counts, readers));
    }
}
