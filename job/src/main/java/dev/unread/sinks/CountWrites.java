package dev.unread.sinks;

import dev.unread.contract.Count;
import dev.unread.sinks.CountBuffer.Target;
import dev.unread.sinks.HeldCounts.Update;
import dev.unread.sinks.KeyCommands.KeyCommand;
import dev.unread.sinks.KeyCommands.KeyWrites;
import dev.unread.sinks.KeyCommands.StringWrites;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The commands that write counts to their keys (see {@link RedisCounts} for the keys), and each
 * user's change message of them. Used on the writer's sender thread alone ({@link RedisWriter}): it
 * reads {@link WrittenAfter}, which is the sender's.
 */
final class CountWrites {

    private final String prefix;

    /** On a cluster: a command per string key ({@link KeyCommands.StringWrites}). */
    private final boolean sharded;

    /** Whether Redis holds what the counter showed; the sender's alone. */
    private final WrittenAfter writtenAfter;

    CountWrites(String prefix, boolean sharded, WrittenAfter writtenAfter) {
        this.prefix = prefix;
        this.sharded = sharded;
        this.writtenAfter = writtenAfter;
    }

    /**
     * The commands writing {@code counts}, and each user's change message in {@code changes}; none
     * for a count that changes nothing where Redis holds what the counter showed ({@link
     * WrittenAfter}): most of a counter incarnation's first writes of a record, and a count that
     * went back to its value within the interval (a message and the inbox open after it).
     */
    void writes(
            Consumer<BiConsumer<Target, Update>> counts,
            List<RedisConnection.Command> commands,
            Map<Long, UnreadChanged> changes) {
        Map<String, KeyWrites> hashes = new HashMap<>();
        Map<String, KeyWrites> sets = new HashMap<>();
        StringWrites strings = new StringWrites(sharded);
        boolean skipUnchanged = writtenAfter.knowsRedis();
        counts.accept(
                (target, update) -> {
                    if (skipUnchanged && update.unchanged()) {
                        return;
                    }
                    long count = update.count;
                    write(target, count, strings, hashes, sets);
                    changes.computeIfAbsent(target.userId(), UnreadChanged::new)
                            .add(target.kind(), target.conversationId(), target.threadSeq(), count);
                });
        strings.commandsTo(commands);
        hashes.forEach(
                (key, writes) ->
                        writes.commandsTo(commands, key, KeyCommand.Op.HSET, KeyCommand.Op.HDEL));
        sets.forEach(
                (key, writes) ->
                        writes.commandsTo(commands, key, KeyCommand.Op.SADD, KeyCommand.Op.SREM));
    }

    /** The badge joins the flush's other string keys; a field or a member, its key's writes. */
    private void write(
            Target target,
            long count,
            StringWrites strings,
            Map<String, KeyWrites> hashes,
            Map<String, KeyWrites> sets) {
        Count kind = target.kind();
        String key = kind.key(prefix, target.userId());
        String field = kind.field(target.conversationId(), target.threadSeq());
        switch (kind.shape()) {
            case STRING -> {
                if (count == 0) {
                    strings.unset(key);
                } else {
                    strings.set(key, Long.toString(count));
                }
            }
            case HASH -> {
                KeyWrites writes = hashes.computeIfAbsent(key, k -> new KeyWrites());
                if (count == 0) {
                    writes.unset(field);
                } else {
                    writes.set(field, Long.toString(count));
                }
            }
            case SET -> {
                KeyWrites members = sets.computeIfAbsent(key, k -> new KeyWrites());
                if (count == 0) {
                    members.unset(field);
                } else {
                    members.add(field);
                }
            }
        }
    }
}
