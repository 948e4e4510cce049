package dev.unread.ops;

import dev.unread.UnreadJob;
import dev.unread.channels.ChannelStateWrites;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * The channel stage's state in a savepoint (keyed by conversation), read through the stage's own
 * {@link ChannelStateWrites}: what {@code savepoint republish} writes of each channel, and a user's
 * tracks for {@code savepoint inspect --user}. A savepoint of a build before channels holds none.
 */
final class ChannelSavepoints {

    /** The channel stage's operator. */
    static final OperatorIdentifier CHANNELS = OperatorIdentifier.forUid(UnreadJob.CHANNELS_UID);

    static final String INDEXES_WRITTEN = "channel-indexes-written";
    static final String TRACKS_WRITTEN = "channel-tracks-written";

    private ChannelSavepoints() {}

    /**
     * A record every key emits first: the State Processor API's reader takes a key that emits
     * nothing for the end of its input (Flink 2.2). It has no kind, and is filtered out.
     */
    static boolean isWrite(ChannelWrite write) {
        return write.kind != null;
    }

    /**
     * Every channel's index and every member's tracks, as the stage's writes; counts the channels
     * with an index write and the tracks.
     */
    static final class WritesReader extends KeyedStateReaderFunction<Long, ChannelWrite> {

        private transient ChannelStateWrites state;
        private transient LongCounter indexes;
        private transient LongCounter tracks;

        @Override
        public void open(OpenContext openContext) {
            state = new ChannelStateWrites(getRuntimeContext());
            indexes = getRuntimeContext().getLongCounter(INDEXES_WRITTEN);
            tracks = getRuntimeContext().getLongCounter(TRACKS_WRITTEN);
        }

        @Override
        public void readKey(Long conversationId, Context context, Collector<ChannelWrite> out)
                throws Exception {
            out.collect(new ChannelWrite());
            boolean[] indexed = {false};
            state.index(
                    conversationId,
                    write -> {
                        indexed[0] = true;
                        out.collect(write);
                    });
            if (indexed[0]) {
                indexes.add(1);
            }
            state.tracks(
                    conversationId,
                    write -> {
                        tracks.add(1);
                        out.collect(write);
                    });
        }
    }

    /**
     * User {@code userId}'s tracks in the savepoint at {@code path}: field of {@code
     * chat:channel-tracks:{userId}} ({@code {C}}, or {@code {C}:{T}} of a followed thread) to the
     * JSON a reader reads there, in field order; empty when the savepoint holds no channel state.
     */
    static Map<String, String> tracksOf(String path, long userId) throws Exception {
        Map<String, String> tracks = new TreeMap<>();
        if (CounterSavepoints.operatorState(path, CHANNELS).isEmpty()) {
            return tracks;
        }
        try (BatchJobs jobs = BatchJobs.start();
                CloseableIterator<Tuple3<Long, Long, String>> all =
                        SavepointReader.read(
                                        jobs.environment(), path, CounterSavepoints.stateBackend())
                                .readKeyedState(
                                        CHANNELS,
                                        new TracksReader(userId),
                                        Types.LONG,
                                        Types.TUPLE(Types.LONG, Types.LONG, Types.STRING))
                                .executeAndCollect("unread savepoint inspect --user: tracks")) {
            all.forEachRemaining(
                    track -> {
                        if (!track.f2.isEmpty()) {
                            tracks.put(
                                    track.f1 == 0
                                            ? RedisNames.channelTrackField(track.f0)
                                            : RedisNames.threadField(track.f0, track.f1),
                                    track.f2);
                        }
                    });
        }
        return tracks;
    }

    /** One user's tracks: (channel, thread or 0, JSON), and an empty JSON for every key. */
    static final class TracksReader
            extends KeyedStateReaderFunction<Long, Tuple3<Long, Long, String>> {

        private final long userId;
        private transient ChannelStateWrites state;

        TracksReader(long userId) {
            this.userId = userId;
        }

        @Override
        public void open(OpenContext openContext) {
            state = new ChannelStateWrites(getRuntimeContext());
        }

        @Override
        public void readKey(
                Long conversationId, Context context, Collector<Tuple3<Long, Long, String>> out)
                throws Exception {
            out.collect(Tuple3.of(conversationId, 0L, ""));
            state.tracksOf(
                    conversationId,
                    userId,
                    write -> out.collect(Tuple3.of(conversationId, write.threadSeq, write.json)));
        }
    }
}
