package dev.unread.sinks;

import dev.unread.contract.MessageTypes;
import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import dev.unread.sinks.KeyCommands.KeyCommand;
import dev.unread.sinks.KeyCommands.KeyWrites;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The channel sink's buffer: the channel stage's writes since the last flush, coalesced (the last
 * bytes of each block, the last add or remove of each sorted-set member, the last value of each
 * track; notices are events and each is kept), and the commands of a flush, in the order {@link
 * RedisChannels} gives.
 *
 * <p>{@link #add} is the task's and touches only this buffer; {@link #commands} runs on the
 * writer's sender ({@link RedisWriter}), which alone owns the versions the writer's two buffers
 * share.
 */
final class ChannelBuffer implements RedisWriter.Buffer<ChannelWrite> {

    /** A member of one of a channel's sorted sets: see {@link ChannelWrite.Kind#SEQ_ADDED}. */
    static final class SetMember {
        private final long threadSeq;
        private final boolean all;
        private final long seq;

        SetMember(long threadSeq, boolean all, long seq) {
            this.threadSeq = threadSeq;
            this.all = all;
            this.seq = seq;
        }

        long seq() {
            return seq;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SetMember that
                    && threadSeq == that.threadSeq
                    && all == that.all
                    && seq == that.seq;
        }

        @Override
        public int hashCode() {
            int h = Long.hashCode(threadSeq);
            h = 31 * h + Boolean.hashCode(all);
            h = 31 * h + Long.hashCode(seq);
            return h;
        }

        /** The sorted set's key. */
        String key(String prefix, long channelId) {
            if (threadSeq == 0) {
                return RedisNames.channelAllKey(prefix, channelId);
            }
            return all
                    ? RedisNames.channelThreadAllKey(prefix, channelId, threadSeq)
                    : RedisNames.channelThreadKey(prefix, channelId, threadSeq);
        }
    }

    /** A member's track of a channel ({@code threadSeq} 0) or of one of its threads. */
    private static final class Track {
        private final long userId;
        private final long channelId;
        private final long threadSeq;

        Track(long userId, long channelId, long threadSeq) {
            this.userId = userId;
            this.channelId = channelId;
            this.threadSeq = threadSeq;
        }

        long userId() {
            return userId;
        }

        long channelId() {
            return channelId;
        }

        long threadSeq() {
            return threadSeq;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Track that
                    && userId == that.userId
                    && channelId == that.channelId
                    && threadSeq == that.threadSeq;
        }

        @Override
        public int hashCode() {
            int h = Long.hashCode(userId);
            h = 31 * h + Long.hashCode(channelId);
            h = 31 * h + Long.hashCode(threadSeq);
            return h;
        }

        String field() {
            return threadSeq == 0
                    ? RedisNames.channelTrackField(channelId)
                    : RedisNames.threadField(channelId, threadSeq);
        }
    }

    private static final class Notice {
        private final ChannelWrite.Change change;
        private final long seq;
        private final long threadSeq;
        private final long senderId;
        private final boolean mentionsAll;

        Notice(
                ChannelWrite.Change change,
                long seq,
                long threadSeq,
                long senderId,
                boolean mentionsAll) {
            this.change = change;
            this.seq = seq;
            this.threadSeq = threadSeq;
            this.senderId = senderId;
            this.mentionsAll = mentionsAll;
        }

        ChannelWrite.Change change() {
            return change;
        }

        long seq() {
            return seq;
        }

        long threadSeq() {
            return threadSeq;
        }

        long senderId() {
            return senderId;
        }

        boolean mentionsAll() {
            return mentionsAll;
        }
    }

    /** What a flush writes of one channel: its transaction, then its notices. */
    private static final class Channel {
        final Map<Long, byte[]> blocks = new HashMap<>();
        final Map<SetMember, Boolean> members = new LinkedHashMap<>();
        final List<Notice> notices = new ArrayList<>();
    }

    private final String prefix;

    /** On a cluster: the notices go out with SPUBLISH, shard channels. */
    private final boolean sharded;

    /** Shared with the writer's other buffer; the sender's alone. */
    private final ChangeVersions versions;

    /** Each track's last JSON; null removes the field. */
    private final Map<Track, String> tracks = new LinkedHashMap<>();

    private final Map<Long, Channel> channels = new LinkedHashMap<>();

    /** Entries held: tracks, blocks, members and notices. */
    private int size;

    ChannelBuffer(String prefix, boolean sharded, ChangeVersions versions) {
        this.prefix = prefix;
        this.sharded = sharded;
        this.versions = versions;
    }

    @Override
    public boolean add(ChannelWrite write) {
        boolean replaced =
                switch (write.kind) {
                    case TRACK -> {
                        Track track =
                                new Track(write.userId, write.conversationId, write.threadSeq);
                        boolean had = tracks.containsKey(track);
                        tracks.put(track, write.json);
                        yield had;
                    }
                    case BLOCK -> {
                        if (write.bytes == null || write.bytes.length != ChannelWrite.BLOCK_BYTES) {
                            throw new IllegalArgumentException(
                                    "a block is " + ChannelWrite.BLOCK_BYTES + " bytes: " + write);
                        }
                        // Copied: with object reuse the record changes after this call.
                        yield channel(write).blocks.put(write.seq, write.bytes.clone()) != null;
                    }
                    case SEQ_ADDED, SEQ_REMOVED -> {
                        if (write.threadSeq == 0 && !write.all) {
                            throw new IllegalArgumentException(
                                    "a root is in the bitmap, not a sorted set: " + write);
                        }
                        SetMember member = new SetMember(write.threadSeq, write.all, write.seq);
                        boolean added = write.kind == ChannelWrite.Kind.SEQ_ADDED;
                        yield channel(write).members.put(member, added) != null;
                    }
                    case NOTICE -> {
                        channel(write)
                                .notices
                                .add(
                                        new Notice(
                                                write.change,
                                                write.seq,
                                                write.threadSeq,
                                                write.senderId,
                                                write.all));
                        yield false;
                    }
                };
        if (!replaced) {
            size++;
        }
        return replaced;
    }

    private Channel channel(ChannelWrite write) {
        return channels.computeIfAbsent(write.conversationId, c -> new Channel());
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * The tracks (a command per member's hash that sets, one that deletes), then per channel its
     * transaction and its notices with the version the transaction set, then who among the members
     * whose track changed is live, and their TRACK_CHANGED.
     */
    @Override
    public List<RedisConnection.Command> commands() {
        List<RedisConnection.Command> commands = new ArrayList<>();
        // By user, in one walk: each user's hash is one key, and the users are who TrackPushes
        // asks about (in a large channel nearly every track of a flush is another member's).
        Map<Long, KeyWrites> hashes = new LinkedHashMap<>();
        Track[] changed = new Track[tracks.size()];
        int[] n = {0};
        tracks.forEach(
                (track, json) -> {
                    changed[n[0]++] = track;
                    KeyWrites writes = hashes.computeIfAbsent(track.userId(), u -> new KeyWrites());
                    if (json == null) {
                        writes.unset(track.field());
                    } else {
                        writes.set(track.field(), json);
                    }
                });
        hashes.forEach(
                (user, writes) ->
                        writes.commandsTo(
                                commands,
                                RedisNames.channelTracksKey(prefix, user),
                                KeyCommand.Op.HSET,
                                KeyCommand.Op.HDEL));
        if (sharded && !hashes.isEmpty() && !channels.isEmpty()) {
            // The primaries of one round trip answer in any order: a reader that finds an index
            // newer than the tracks would count what the tracks no longer hold as unread.
            commands.add(RedisConnection.BARRIER);
        }
        channels.forEach(
                (channelId, channel) -> {
                    long version = versions.next();
                    commands.add(
                            new ChannelTransaction(
                                    prefix, channelId, channel.blocks, channel.members, version));
                    // On the slot of the channel's keys: after its transaction on one connection.
                    String notices = RedisNames.channelChangedChannel(prefix, channelId);
                    for (Notice notice : channel.notices) {
                        commands.add(
                                RedisConnection.publish(
                                        sharded,
                                        notices,
                                        MessageTypes.channelChanged(
                                                channelId,
                                                version,
                                                notice.change().name(),
                                                notice.seq(),
                                                notice.threadSeq(),
                                                notice.senderId(),
                                                notice.mentionsAll())));
                    }
                });
        if (!tracks.isEmpty()) {
            long[] users = new long[hashes.size()];
            int i = 0;
            for (long user : hashes.keySet()) {
                users[i++] = user;
            }
            commands.add(new TrackPushes(changed, users));
        }
        return commands;
    }

    @Override
    public void clear() {
        tracks.clear();
        channels.clear();
        size = 0;
    }

    /**
     * ZMSCORE of the members whose track the flush changed, and a TRACK_CHANGED on {@code
     * UNREAD_CHANGED:{userId}} for each changed track of those live. Its reply comes once every
     * command before it is acknowledged, so a live user told of a change reads tracks and indexes
     * at least as new as the flush.
     */
    private final class TrackPushes extends LiveUsersRead {
        private final Track[] changed;
        private final long[] users;

        /** {@code users}: the distinct users of {@code changed}. */
        TrackPushes(Track[] changed, long[] users) {
            super(prefix);
            this.changed = changed;
            this.users = users;
        }

        @Override
        long[] users() {
            return users;
        }

        @Override
        List<RedisConnection.Command> ofLive(boolean[] live) {
            // Few of a flush's members are live: the set holds only them.
            Set<Long> liveUsers = new HashSet<>();
            for (int i = 0; i < users.length; i++) {
                if (live[i]) {
                    liveUsers.add(users[i]);
                }
            }
            List<RedisConnection.Command> pushes = new ArrayList<>();
            if (liveUsers.isEmpty()) {
                return pushes;
            }
            for (Track track : changed) {
                if (liveUsers.contains(track.userId())) {
                    pushes.add(
                            RedisConnection.publish(
                                    sharded,
                                    RedisNames.unreadChangedChannel(prefix, track.userId()),
                                    MessageTypes.trackChanged(
                                            track.userId(), track.channelId(), track.threadSeq())));
                }
            }
            return pushes;
        }
    }
}
