package dev.unread.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.config.FlinkConf;
import dev.unread.testing.GoldenBytesTestBase;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The keyed state's records as versions 3 and 4 wrote them with {@link CompactStateSerializer};
 * savepoints of those versions hold these bytes, so they must read and write the same in every
 * later build. Version 4's cases set every field it added, so that each is pinned by bytes of its
 * own. See {@link GoldenBytesTestBase} for what is checked and how a new version is stored. The
 * records of versions 1 and 2, which the POJO serializer wrote, are pinned by their snapshots only:
 * a restore reads them with the POJO serializer those restore, and the stored savepoints of
 * savepoint-tools check that end to end.
 */
class CompactStateSerializerGoldenBytesTest extends GoldenBytesTestBase {

    private static final long SENT_AT = 1_767_225_600_000L;

    @Override
    protected List<Format<?>> formats() {
        return List.of(
                new Format<>(
                        "conversation-state",
                        "v3",
                        ConversationStateSerializer.INSTANCE,
                        conversationsOfVersion3()),
                new Format<>(
                        "conversation-state",
                        "v4",
                        ConversationStateSerializer.INSTANCE,
                        conversationsOfVersion4()),
                new Format<>(
                        "conversation-state",
                        "v5",
                        ConversationStateSerializer.INSTANCE,
                        conversationsOfVersion5()),
                new Format<>(
                        "inbox-state", "v3", InboxStateSerializer.INSTANCE, inboxesOfVersion3()),
                new Format<>(
                        "inbox-state", "v4", InboxStateSerializer.INSTANCE, inboxesOfVersion4()),
                new Format<>(
                        "thread-state", "v3", ThreadStateSerializer.INSTANCE, threadsOfVersion3()),
                new Format<>(
                        "thread-state", "v4", ThreadStateSerializer.INSTANCE, threadsOfVersion4()),
                new Format<>(
                        "thread-state", "v5", ThreadStateSerializer.INSTANCE, threadsOfVersion5()));
    }

    /**
     * Versions 1 and 2 wrote the inbox and conversation records with Flink's POJO serializer. Their
     * snapshots, as those versions' savepoints hold them, must take this build's serializer after a
     * migration: that is how a restore brings their records into the compact form.
     */
    Stream<Arguments> pojoVersions() {
        return Stream.of("v1", "v2")
                .flatMap(
                        v ->
                                Stream.of(
                                        Arguments.of(
                                                "inbox-state", v, InboxStateSerializer.INSTANCE),
                                        Arguments.of(
                                                "conversation-state",
                                                v,
                                                ConversationStateSerializer.INSTANCE)));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("pojoVersions")
    <T> void aPojoSnapshotOfAnEarlierVersionMigrates(
            String name, String version, CompactStateSerializer<T> serializer) throws IOException {
        TypeSerializerSnapshot<T> restored = readSnapshot(name, version);

        assertThat(restored).isInstanceOf(PojoSerializerSnapshot.class);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();
        assertThat(restored.restoreSerializer().createInstance())
                .isExactlyInstanceOf(serializer.createInstance().getClass());
    }

    /**
     * Copies those snapshots out of the stored savepoint of version 1 or 2 (savepoint-tools'
     * savepoints/v1 and v2), where the counter's keyed state names its serializers.
     */
    @Test
    @EnabledIfSystemProperty(named = REGENERATE, matches = "v[12]")
    void copyThePojoSnapshotsOfAStoredSavepoint() throws IOException {
        String version = System.getProperty(REGENERATE);
        Path metadata =
                FlinkConf.findDir()
                        .resolveSibling("savepoint-tools/src/test/resources/savepoints")
                        .resolve(version)
                        .resolve("savepoint/_metadata");
        Map<String, StateMetaInfoSnapshot> states = counterStates(metadata);
        writeSnapshot(
                "inbox-state",
                version,
                states.get("inbox")
                        .getTypeSerializerSnapshot(
                                StateMetaInfoSnapshot.CommonSerializerKeys.VALUE_SERIALIZER));
        MapSerializerSnapshot<?, ?> conversations =
                (MapSerializerSnapshot<?, ?>)
                        states.get("conversations")
                                .getTypeSerializerSnapshot(
                                        StateMetaInfoSnapshot.CommonSerializerKeys
                                                .VALUE_SERIALIZER);
        writeSnapshot(
                "conversation-state", version, conversations.getNestedSerializerSnapshots()[1]);
    }

    /** The keyed states, by name, of the operator that holds {@code inbox}. */
    private static Map<String, StateMetaInfoSnapshot> counterStates(Path metadata)
            throws IOException {
        ClassLoader loader = CompactStateSerializerGoldenBytesTest.class.getClassLoader();
        CheckpointMetadata savepoint;
        try (DataInputStream in = new DataInputStream(Files.newInputStream(metadata))) {
            savepoint =
                    Checkpoints.loadCheckpointMetadata(
                            in, loader, metadata.getParent().toUri().toString());
        }
        for (OperatorState operator : savepoint.getOperatorStates()) {
            for (OperatorSubtaskState subtask : operator.getSubtaskStates().values()) {
                for (KeyedStateHandle handle : subtask.getManagedKeyedState()) {
                    Map<String, StateMetaInfoSnapshot> states = new HashMap<>();
                    try (InputStream in = ((KeyGroupsStateHandle) handle).openInputStream()) {
                        KeyedBackendSerializationProxy<?> proxy =
                                new KeyedBackendSerializationProxy<>(loader);
                        proxy.read(new DataInputViewStreamWrapper(in));
                        proxy.getStateMetaInfoSnapshots().forEach(s -> states.put(s.getName(), s));
                    }
                    if (states.containsKey("inbox")) {
                        return states;
                    }
                }
            }
        }
        throw new AssertionError("no keyed state named inbox in " + metadata);
    }

    private static List<Case<ConversationState>> conversationsOfVersion3() {
        ConversationState nullSeqs = new ConversationState();
        nullSeqs.lastReadSeq = 5;
        nullSeqs.unreadSeqs = null;
        nullSeqs.mentionSeqs = null;
        nullSeqs.involvedSeqs = null;
        nullSeqs.unreadThreadSeqs = null;
        nullSeqs.bareThreadSeqs = null;
        return List.of(
                Case.of("empty", new ConversationState()),
                Case.of(
                        "typical",
                        conversation(
                                s -> {
                                    s.lastReadSeq = 1038;
                                    s.unreadCount = 4;
                                    s.refreshedIn = 3;
                                    s.lastReadAt = SENT_AT;
                                })),
                Case.of(
                        "every-field",
                        conversation(CompactStateSerializerGoldenBytesTest::everyField)),
                Case.of("max-longs", conversation(s -> everyLong(s, Long.MAX_VALUE))),
                Case.of("min-longs", conversation(s -> everyLong(s, Long.MIN_VALUE))),
                // Written as empty sets are, so read back as empty sets.
                new Case<>("null-seqs", nullSeqs, conversation(s -> s.lastReadSeq = 5)),
                // Earlier builds' whole unread sets, with no count, which the record carries
                // until ConversationSeqs.upgrade rewrites them.
                Case.of(
                        "unread-runs-of-version-1",
                        conversation(
                                s -> {
                                    s.lastReadSeq = 2;
                                    // 3, 4, 5, 9, 1000 in UnreadSeqs' runs
                                    s.unreadSeqs = bytes(2, 5, -24, 7, 3, 3, 4, 1, -33, 7, 1);
                                })),
                Case.of(
                        "unread-roaring-of-earlier-builds",
                        conversation(
                                s -> {
                                    s.lastReadSeq = 2;
                                    // 3, 4, 5, 9, 2^33, Roaring64NavigableMap.serializePortable
                                    s.unreadSeqs =
                                            bytes(
                                                    2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 58, 48, 0,
                                                    0, 1, 0, 0, 0, 0, 0, 3, 0, 16, 0, 0, 0, 3, 0, 4,
                                                    0, 5, 0, 9, 0, 2, 0, 0, 0, 58, 48, 0, 0, 1, 0,
                                                    0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0);
                                })),
                // An earlier build of version 3 had no thread index: threadsIndexed 0.
                Case.of(
                        "before-the-thread-index",
                        conversation(
                                s -> {
                                    s.lastReadSeq = 1038;
                                    s.unreadCount = 1;
                                    s.unreadSeqs = bytes(3, -112, 8);
                                    s.involvedCount = 1;
                                    s.involvedSeqs = bytes(3, -113, 8);
                                })));
    }

    private static void everyField(ConversationState s) {
        s.lastReadSeq = 1038;
        s.unreadCount = 3;
        // 1039, 1041, 1300 in SmallSeqs' form, as are the sets below
        s.unreadSeqs = bytes(3, -113, 8, 2, -125, 2);
        s.refreshedIn = 7;
        s.membership = -1037;
        s.mentionCount = 1;
        s.mentionSeqs = bytes(3, -111, 8);
        s.preference = 1;
        s.preferenceSetAt = SENT_AT + 1;
        s.lastReadAt = SENT_AT + 2;
        s.markedAt = SENT_AT + 3;
        s.deletedCount = 2;
        s.followedUnreadThreads = 4;
        s.followedMentionThreads = 1;
        s.followedThreadMentions = 2;
        s.involvedCount = 2;
        s.involvedSeqs = bytes(3, 12, -125, 8);
        s.threadsIndexed = 1;
        s.unreadThreadCount = 2;
        s.unreadThreadSeqs = bytes(3, 12, -8, 6);
        s.bareThreadCount = 1;
        s.bareThreadSeqs = bytes(3, 13);
    }

    private static void everyLong(ConversationState s, long v) {
        s.lastReadSeq = v;
        s.unreadCount = v;
        s.refreshedIn = v;
        s.membership = v;
        s.mentionCount = v;
        s.preference = v;
        s.preferenceSetAt = v;
        s.lastReadAt = v;
        s.markedAt = v;
        s.deletedCount = v;
        s.followedUnreadThreads = v;
        s.followedMentionThreads = v;
        s.followedThreadMentions = v;
        s.involvedCount = v;
        s.threadsIndexed = v;
        s.unreadThreadCount = v;
        s.bareThreadCount = v;
    }

    /**
     * Version 4 adds the channel-wide mentions and their preference, the edits kept and the {@code
     * sentAt}s an ALL_READ reads.
     */
    private static List<Case<ConversationState>> conversationsOfVersion4() {
        return List.of(
                // What version 4 wrote for a conversation new to state: its thread index was
                // complete at 1, which version 5 raised to 2 (ConversationState.THREADS_INDEXED).
                Case.of(
                        "fresh",
                        conversation(
                                s -> {
                                    s.threadsIndexed = 1;
                                    s.sentAtKept = 1;
                                })),
                Case.of(
                        "every-field",
                        conversation(
                                s -> {
                                    everyField(s);
                                    everyFieldOfVersion4(s);
                                })),
                Case.of(
                        "max-longs",
                        conversation(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    everyLongOfVersion4(s, Long.MAX_VALUE);
                                })),
                Case.of(
                        "min-longs",
                        conversation(
                                s -> {
                                    everyLong(s, Long.MIN_VALUE);
                                    everyLongOfVersion4(s, Long.MIN_VALUE);
                                })));
    }

    /**
     * Version 5 adds the queue of bare threads by last touch ({@code bareTouchHead}, {@code
     * bareTouchTail}) and counts the threads with a kept {@code sentAt} in the thread index, which
     * a fresh record says with {@code threadsIndexed} 2.
     */
    private static List<Case<ConversationState>> conversationsOfVersion5() {
        return List.of(
                Case.of("fresh", ConversationState.fresh()),
                Case.of(
                        "every-field",
                        conversation(
                                s -> {
                                    everyField(s);
                                    everyFieldOfVersion4(s);
                                    s.threadsIndexed = ConversationState.THREADS_INDEXED;
                                    s.bareTouchHead = 7;
                                    s.bareTouchTail = 3;
                                })),
                Case.of(
                        "max-longs",
                        conversation(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    everyLongOfVersion4(s, Long.MAX_VALUE);
                                    s.bareTouchHead = Long.MAX_VALUE;
                                    s.bareTouchTail = Long.MAX_VALUE;
                                })));
    }

    private static void everyFieldOfVersion4(ConversationState s) {
        s.channelMentionCount = 1;
        // 1300, mentioned only channel-wide
        s.channelMentionSeqs = bytes(3, -108, 10);
        s.ignoreChannelMentions = -1;
        s.ignoreChannelMentionsSetAt = SENT_AT + 4;
        s.editCount = 2;
        s.sentAtKept = 1;
        // (1039, SENT_AT) and (1041, SENT_AT + 2 s) in SentAtFrontier's form
        s.sentAts = bytes(-113, 8, -128, -48, -22, -74, -73, 51, 2, -48, 15);
    }

    private static void everyLongOfVersion4(ConversationState s, long v) {
        s.channelMentionCount = v;
        s.ignoreChannelMentions = v;
        s.ignoreChannelMentionsSetAt = v;
        s.editCount = v;
        s.sentAtKept = v;
    }

    private static List<Case<InboxState>> inboxesOfVersion3() {
        return List.of(
                Case.of("empty", new InboxState()),
                Case.of(
                        "typical",
                        inbox(
                                s -> {
                                    s.lastReadAt = SENT_AT;
                                    s.unreadSenders = 2;
                                    s.refreshedIn = 3;
                                    s.totalMessages = 5;
                                    s.totalConversations = 2;
                                    s.totalsKept = true;
                                })),
                Case.of("every-field", inbox(CompactStateSerializerGoldenBytesTest::everyField)),
                Case.of("max-longs", inbox(s -> everyLong(s, Long.MAX_VALUE))),
                Case.of("min-longs", inbox(s -> everyLong(s, Long.MIN_VALUE))),
                // What POJO-written records of versions 1 and 2 hold after their migration.
                Case.of(
                        "totals-not-kept",
                        inbox(
                                s -> {
                                    s.lastReadAt = SENT_AT;
                                    s.unreadSenders = 1;
                                })));
    }

    /** Version 4 adds {@code allReadAt} (ALL_READ) and {@code erasedAt} (USER_ERASED). */
    private static List<Case<InboxState>> inboxesOfVersion4() {
        InboxState erased = inbox(s -> s.lastActiveDay = 20454);
        erased.erase(SENT_AT + 6);
        return List.of(
                Case.of(
                        "every-field",
                        inbox(
                                s -> {
                                    everyField(s);
                                    s.allReadAt = SENT_AT + 5;
                                    s.erasedAt = SENT_AT - 1000;
                                })),
                // All an erasure keeps: the day idle expiry needs and the erasure's time.
                Case.of("erased", erased),
                Case.of(
                        "max-longs",
                        inbox(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    s.allReadAt = Long.MAX_VALUE;
                                    s.erasedAt = Long.MAX_VALUE;
                                })),
                Case.of(
                        "min-longs",
                        inbox(
                                s -> {
                                    everyLong(s, Long.MIN_VALUE);
                                    s.allReadAt = Long.MIN_VALUE;
                                    s.erasedAt = Long.MIN_VALUE;
                                })));
    }

    private static void everyField(InboxState s) {
        s.lastReadAt = SENT_AT;
        s.unreadSenders = 2;
        s.lastActiveDay = 20454;
        s.refreshedIn = 3;
        s.totalMessages = 130;
        s.totalMentions = 4;
        s.totalConversations = 6;
        s.totalThreads = 1;
        s.totalsKept = true;
        s.totalsRefreshedIn = 2;
    }

    private static void everyLong(InboxState s, long v) {
        s.lastReadAt = v;
        s.unreadSenders = v;
        s.lastActiveDay = v;
        s.refreshedIn = v;
        s.totalMessages = v;
        s.totalMentions = v;
        s.totalConversations = v;
        s.totalThreads = v;
        s.totalsKept = true;
        s.totalsRefreshedIn = v;
    }

    private static List<Case<ThreadState>> threadsOfVersion3() {
        return List.of(
                Case.of("empty", new ThreadState()),
                Case.of(
                        "typical",
                        thread(
                                s -> {
                                    s.sets = 1;
                                    s.unreadCount = 3;
                                    s.mentionCount = 1;
                                    s.involved = true;
                                    s.refreshedIn = 2;
                                })),
                Case.of("every-field", thread(CompactStateSerializerGoldenBytesTest::everyField)),
                Case.of("max-longs", thread(s -> everyLong(s, Long.MAX_VALUE))),
                Case.of("min-longs", thread(s -> everyLong(s, Long.MIN_VALUE))));
    }

    /**
     * Version 4 adds {@code tookPartAt}, the newest reply the user sent or is named in; the replies
     * that mention the user only channel-wide; and the {@code sentAt}s an ALL_READ reads. The first
     * three cases were stored before the last three fields existed, which they leave at 0.
     */
    private static List<Case<ThreadState>> threadsOfVersion4() {
        return List.of(
                Case.of(
                        "every-field",
                        thread(
                                s -> {
                                    everyField(s);
                                    s.tookPartAt = SENT_AT + 1;
                                    s.channelMentionCount = 1;
                                    s.sentAtKept = true;
                                    // (1062, SENT_AT + 1 s) in SentAtFrontier's form
                                    s.sentAts = bytes(-90, 8, -24, -41, -22, -74, -73, 51);
                                })),
                Case.of(
                        "every-long-of-version-4",
                        thread(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    s.tookPartAt = Long.MAX_VALUE;
                                    s.channelMentionCount = Long.MIN_VALUE;
                                    s.sentAtKept = true;
                                })),
                Case.of(
                        "unfollowed-then-replied",
                        thread(
                                s -> {
                                    s.sets = 2;
                                    s.unreadCount = 1;
                                    s.following = -1;
                                    s.followSetAt = SENT_AT;
                                    s.refreshedIn = 3;
                                    s.tookPartAt = SENT_AT + 1;
                                })),
                Case.of(
                        "max-longs",
                        thread(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    s.tookPartAt = Long.MAX_VALUE;
                                })),
                Case.of(
                        "min-longs",
                        thread(
                                s -> {
                                    everyLong(s, Long.MIN_VALUE);
                                    s.tookPartAt = Long.MIN_VALUE;
                                })));
    }

    /** Version 5 adds {@code bareTouch}, where a bare thread stands in its conversation's queue. */
    private static List<Case<ThreadState>> threadsOfVersion5() {
        return List.of(
                Case.of(
                        "every-field",
                        thread(
                                s -> {
                                    everyField(s);
                                    s.tookPartAt = SENT_AT + 1;
                                    s.channelMentionCount = 1;
                                    s.sentAtKept = true;
                                    s.bareTouch = 5;
                                })),
                Case.of(
                        "max-longs",
                        thread(
                                s -> {
                                    everyLong(s, Long.MAX_VALUE);
                                    s.tookPartAt = Long.MAX_VALUE;
                                    s.bareTouch = Long.MAX_VALUE;
                                })));
    }

    private static void everyField(ThreadState s) {
        s.sets = 17;
        s.cursor = 1061;
        s.unreadCount = 3;
        s.mentionCount = 1;
        s.deletedCount = 2;
        s.following = -1;
        s.followSetAt = SENT_AT;
        s.involved = true;
        s.refreshedIn = 4;
    }

    private static void everyLong(ThreadState s, long v) {
        s.sets = v;
        s.cursor = v;
        s.unreadCount = v;
        s.mentionCount = v;
        s.deletedCount = v;
        s.following = v;
        s.followSetAt = v;
        s.involved = true;
        s.refreshedIn = v;
    }

    private static ConversationState conversation(Consumer<ConversationState> fields) {
        return with(ConversationState::new, fields);
    }

    private static InboxState inbox(Consumer<InboxState> fields) {
        return with(InboxState::new, fields);
    }

    private static ThreadState thread(Consumer<ThreadState> fields) {
        return with(ThreadState::new, fields);
    }

    private static <T> T with(Supplier<T> record, Consumer<T> fields) {
        T t = record.get();
        fields.accept(t);
        return t;
    }

    /**
     * A seq set as the record holds it, written out rather than encoded here, so that the stored
     * bytes stay pinned whatever becomes of the sets' own encoders.
     */
    private static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }
}
