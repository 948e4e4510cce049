package dev.unread.sinks;

import dev.unread.contract.RedisNames;
import dev.unread.sinks.CountBuffer.Target;
import dev.unread.sinks.HeldCounts.Update;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The counts sink's step for the live users, those with a live stream: who is live (one ZMSCORE of
 * {@link RedisNames#LIVE_USERS}), and for each of them the version and change message of its counts
 * (docs/contract.md, "Live push"); users nobody watches get neither.
 *
 * <p>Runs on the writer's sender thread alone ({@link RedisWriter}), as do the commands it builds
 * when their replies come: the held counts and the versions it takes and gives out are shared by
 * the writer's two buffers, and are the sender's alone, never touched by {@link CountBuffer#add}.
 */
final class LivePushes {

    private final String prefix;

    /** On a cluster: UNREAD_CHANGED goes out with SPUBLISH, a shard channel. */
    private final boolean sharded;

    /** The sender's alone. */
    private final HeldCounts held;

    /** The sender's alone, as {@link #held}. */
    private final ChangeVersions versions;

    private final CountWrites writes;

    LivePushes(
            String prefix,
            boolean sharded,
            HeldCounts held,
            ChangeVersions versions,
            CountWrites writes) {
        this.prefix = prefix;
        this.sharded = sharded;
        this.held = held;
        this.versions = versions;
        this.writes = writes;
    }

    /**
     * The commands writing {@code counts}, then the change messages of the users among them that
     * are live.
     */
    void writesAndPushes(
            Consumer<BiConsumer<Target, Update>> counts, List<RedisConnection.Command> commands) {
        Map<Long, UnreadChanged> changes = new HashMap<>();
        writes.writes(counts, commands, changes);
        if (sharded) {
            // On a cluster a user's version and counts sit on different primaries, answered
            // in any order: who is live is read (and the versions and messages sent) only once
            // the counts are written, so counts read after a version are at least as new as it.
            commands.add(RedisConnection.BARRIER);
        }
        if (!changes.isEmpty()) {
            // One version for the whole flush: it only has to rise per user.
            commands.add(new PushToLiveUsers(changes.values(), versions.next()));
        }
    }

    /** The fast flush of the held counts of {@code users}: see {@link WriteLiveUsers}. */
    RedisConnection.Command writeLiveUsers(long[] users) {
        return new WriteLiveUsers(users);
    }

    /**
     * The fast flush: ZMSCORE of the users with held counts in {@link RedisNames#LIVE_USERS}, then
     * the held counts of those live, and for each of them {@code SET unread:version:{userId} EX}
     * and PUBLISH of its UNREAD_CHANGED. A user added as live after this read reads its snapshot
     * without the counts still held, and gets them, with their message, at the next fast flush or
     * the background one, whichever comes first (docs/contract.md, "Live push").
     */
    private final class WriteLiveUsers extends LiveUsersRead {
        private final long[] users;

        /** What the last answer took out of the held counts; put back if it is asked again. */
        private Map<Target, Update> taken = Map.of();

        WriteLiveUsers(long[] users) {
            super(prefix);
            this.users = users;
        }

        @Override
        long[] users() {
            return users;
        }

        /**
         * A failed send is sent again whole by the writer's next flush, this read of who is live
         * with it: what the first answer took and never wrote goes back first.
         */
        @Override
        List<RedisConnection.Command> ofLive(boolean[] live) {
            held.putBack(taken);
            taken = new HashMap<>();
            for (int i = 0; i < users.length; i++) {
                if (live[i]) {
                    taken.putAll(held.take(users[i]));
                }
            }
            if (taken.isEmpty()) {
                return List.of();
            }
            Map<Long, UnreadChanged> changes = new HashMap<>();
            List<RedisConnection.Command> commands = new ArrayList<>(taken.size() * 2);
            writes.writes(taken::forEach, commands, changes);
            if (sharded) {
                commands.add(RedisConnection.BARRIER);
            }
            long version = versions.next();
            for (UnreadChanged change : changes.values()) {
                pushTo(change, version, commands);
            }
            return commands;
        }
    }

    /** The user's version, then its change message with that version. */
    private void pushTo(
            UnreadChanged change, long version, List<RedisConnection.Command> commands) {
        String versionKey = RedisNames.versionKey(prefix, change.userId);
        String channel = RedisNames.unreadChangedChannel(prefix, change.userId);
        String message = change.json(version);
        String value = Long.toString(version);
        commands.add(p -> p.setex(versionKey, RedisNames.VERSION_TTL_SECONDS, value));
        commands.add(RedisConnection.publish(sharded, channel, message));
    }

    /**
     * ZMSCORE of the flush's changed users in {@link RedisNames#LIVE_USERS}, after their counts;
     * then, for each user live at that moment, {@code SET unread:version:{userId} EX} and PUBLISH
     * of its UNREAD_CHANGED. A user the API adds as live after this read is added before its
     * stream's snapshot is read, so after these counts were written: the snapshot has them, and
     * nothing is missed by not publishing them (docs/contract.md, "Live push").
     */
    private final class PushToLiveUsers extends LiveUsersRead {
        private final List<UnreadChanged> changes;
        private final long[] users;
        private final long version;

        PushToLiveUsers(Collection<UnreadChanged> changes, long version) {
            super(prefix);
            this.changes = new ArrayList<>(changes);
            this.users = new long[this.changes.size()];
            for (int i = 0; i < users.length; i++) {
                users[i] = this.changes.get(i).userId;
            }
            this.version = version;
        }

        @Override
        long[] users() {
            return users;
        }

        @Override
        List<RedisConnection.Command> ofLive(boolean[] live) {
            List<RedisConnection.Command> pushes = new ArrayList<>();
            for (int i = 0; i < changes.size(); i++) {
                if (live[i]) {
                    pushTo(changes.get(i), version, pushes);
                }
            }
            return pushes;
        }
    }
}
