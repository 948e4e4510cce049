package dev.unread.channels;

import dev.unread.contract.ChannelTrack;
import dev.unread.contract.ChannelTrack.Interval;
import dev.unread.contract.ThreadTrack;
import dev.unread.contract.TrackJson;
import dev.unread.events.ChannelWrite;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Redis as the channel sink leaves it, in memory: the channels' bitmaps, sorted sets and the
 * members' tracks, changed by {@link ChannelWrite}s in the order given; and a member's counts as a
 * reader computes them with the recipe (docs/contract.md, "Reading a member's counts"), so that
 * tests assert counts rather than writes.
 */
public final class ChannelRedisModel {

    /** A member's counts of a channel or of a followed thread. */
    public record Counts(long unread, long mentions, long channelMentions) {
        public static final Counts NONE = new Counts(0, 0, 0);

        /**
         * The recipe's step 4 from what it counted: {@code unread} messages, {@code all} of them
         * mentioning everyone, and the track's {@code named}, {@code namedAll} and {@code
         * ignoreAll}.
         */
        public static Counts of(
                long unread, long all, long named, long namedAll, boolean ignoreAll) {
            long channelMentions = ignoreAll ? 0 : Math.max(0, all - namedAll);
            return new Counts(unread, named + channelMentions, channelMentions);
        }
    }

    private final TrackJson json = new TrackJson();
    private final Map<List<Long>, byte[]> blocks = new HashMap<>();
    private final Map<List<Object>, TreeSet<Long>> sets = new HashMap<>();
    private final Map<List<Long>, String> tracks = new HashMap<>();
    private final List<ChannelWrite> notices = new ArrayList<>();

    public void apply(Iterable<ChannelWrite> writes) {
        for (ChannelWrite write : writes) {
            apply(write);
        }
    }

    public void apply(ChannelWrite w) {
        switch (w.kind) {
            case BLOCK -> blocks.put(List.of(w.conversationId, w.seq), w.bytes.clone());
            case SEQ_ADDED -> set(w.conversationId, w.threadSeq, w.all).add(w.seq);
            case SEQ_REMOVED -> set(w.conversationId, w.threadSeq, w.all).remove(w.seq);
            case TRACK -> {
                List<Long> field = List.of(w.userId, w.conversationId, w.threadSeq);
                if (w.json == null) {
                    tracks.remove(field);
                } else {
                    tracks.put(field, w.json);
                }
            }
            case NOTICE -> notices.add(w);
        }
    }

    /** The notices applied so far, in order. */
    public List<ChannelWrite> notices() {
        return notices;
    }

    /** The JSON of a track field, null when absent; {@code threadSeq} 0 for the channel's. */
    public String track(long userId, long conversationId, long threadSeq) {
        return tracks.get(List.of(userId, conversationId, threadSeq));
    }

    public ChannelTrack channelTrack(long userId, long conversationId) {
        String text = track(userId, conversationId, 0);
        return text == null ? null : json.readChannel(text);
    }

    /** unread, mentions and channelMentions of U in C by the recipe; zeros without a track. */
    public Counts counts(long userId, long conversationId) {
        ChannelTrack track = channelTrack(userId, conversationId);
        if (track == null || track.left()) {
            return Counts.NONE;
        }
        long unread = 0;
        long all = 0;
        for (Interval range : track.counted()) {
            unread += bitcount(conversationId, range);
            all += zcount(conversationId, 0, true, range);
        }
        return Counts.of(unread, all, track.named(), track.namedAll(), track.ignoreAll());
    }

    /** The same of a thread U follows; zeros when not followed or without a channel track. */
    public Counts threadCounts(long userId, long conversationId, long threadSeq) {
        ChannelTrack channel = channelTrack(userId, conversationId);
        String text = track(userId, conversationId, threadSeq);
        if (channel == null || channel.left() || text == null) {
            return Counts.NONE;
        }
        ThreadTrack thread = json.readThread(text);
        long unread = 0;
        long all = 0;
        for (Interval range : channel.counted(thread)) {
            unread += zcount(conversationId, threadSeq, false, range);
            all += zcount(conversationId, threadSeq, true, range);
        }
        return Counts.of(unread, all, thread.named(), thread.namedAll(), channel.ignoreAll());
    }

    /** The threads of C of which U has a track field, sorted. */
    public NavigableSet<Long> threads(long userId, long conversationId) {
        NavigableSet<Long> threads = new TreeSet<>();
        for (List<Long> field : tracks.keySet()) {
            if (field.get(0) == userId && field.get(1) == conversationId && field.get(2) != 0) {
                threads.add(field.get(2));
            }
        }
        return threads;
    }

    /** Whether U has a track field of thread T of C: follows it. */
    public boolean follows(long userId, long conversationId, long threadSeq) {
        return track(userId, conversationId, threadSeq) != null;
    }

    private TreeSet<Long> set(long conversationId, long threadSeq, boolean all) {
        return sets.computeIfAbsent(List.of(conversationId, threadSeq, all), k -> new TreeSet<>());
    }

    private long zcount(long conversationId, long threadSeq, boolean all, Interval range) {
        NavigableSet<Long> set = sets.get(List.of(conversationId, threadSeq, all));
        if (set == null) {
            return 0;
        }
        return range.open()
                ? set.tailSet(range.from(), true).size()
                : set.subSet(range.from(), true, range.to(), true).size();
    }

    /** {@code BITCOUNT … a b BIT}: bit s is bit 7 - s % 8 of byte s / 8, as Redis numbers them. */
    private long bitcount(long conversationId, Interval range) {
        long count = 0;
        for (Map.Entry<List<Long>, byte[]> block : blocks.entrySet()) {
            if (block.getKey().get(0) != conversationId) {
                continue;
            }
            long base = block.getKey().get(1) * ChannelWrite.BLOCK_BYTES * 8;
            byte[] bytes = block.getValue();
            for (int bit = 0; bit < bytes.length * 8; bit++) {
                long seq = base + bit;
                if (seq >= range.from()
                        && seq <= range.to()
                        && (bytes[bit >>> 3] & (0x80 >>> (bit & 7))) != 0) {
                    count++;
                }
            }
        }
        return count;
    }
}
