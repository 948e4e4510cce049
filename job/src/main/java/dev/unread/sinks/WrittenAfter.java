package dev.unread.sinks;

import dev.unread.contract.RedisNames;
import dev.unread.sinks.KeyCommands.KeyCommand;
import dev.unread.sinks.KeyCommands.KeyWrites;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * Whether Redis holds exactly what the counter's state shows for the users of a counts writer, so
 * that the writer may leave out a count that changes nothing; kept in {@link
 * RedisNames#COUNTS_WRITTEN_AFTER}, one field per key group of the counter.
 *
 * <p>A counter incarnation writes every count of a record the first time it touches it (see
 * dev.unread.counter.UnreadCounter), because after a restore Redis may hold counts of events after
 * the checkpoint, which the replay may not write again. That is needed only where something was
 * written after the checkpoint's barrier; at production sparsity nearly every touch is a first
 * touch, and half of the commands were deletes of fields never written (issue 46). So before its
 * first write after the barrier of checkpoint C (and after the checkpoint it started from), a
 * writer sets its key groups' fields to C, in a round trip of its own that it awaits: on a cluster
 * the field and the counts live on nodes that answer independently. A writer starting
 *
 * <ul>
 *   <li>from checkpoint N finds Redis holding what N shows when each of its key groups' fields is
 *       below N: the job that took N wrote nothing after it (stopped with a savepoint, or failed
 *       before writing again);
 *   <li>with no checkpoint finds Redis holding what the empty state shows when none of its fields
 *       exists: no job wrote under the prefix (or, as a field, a build before this one did not);
 * </ul>
 *
 * and otherwise sets its fields to {@link RedisNames#WRITTEN_ANY_TIME}, for good: a restore from a
 * later checkpoint of this writer's lineage may still find Redis holding what the lost timeline
 * wrote of users this lineage has not touched since, so it writes every count as before. Fields by
 * key group rather than one value: the writers of one restore start one after the other, and a
 * writer must not read its siblings' marks, made after this restore, as writes after it; each key
 * group has one writer at a time, on any parallelism (the sink takes the counter's subtask's
 * records, with its key groups).
 *
 * <p>Used by the writer's sender thread alone, which runs {@link #start} before anything else.
 */
final class WrittenAfter {

    private static final String REPLACE_SCRIPT = RedisConnection.replacingScript("hash", "");

    private final String key;

    /** This writer's key groups, as the fields name them; empty: nothing is known, nor marked. */
    private final List<String> fields;

    /** The checkpoint the writer started from; empty when it started without one. */
    private final OptionalLong restoredFrom;

    /** Whether Redis holds what the counter shows, as {@link #start} found. */
    private boolean knowsRedis;

    /** The value this writer last set its fields to; -1 before it set any. */
    private long marked = -1;

    private WrittenAfter(String key, List<String> fields, OptionalLong restoredFrom) {
        this.key = key;
        this.fields = fields;
        this.restoredFrom = restoredFrom;
    }

    /**
     * Knows nothing and marks nothing: every count is written. For a writer outside the job's
     * counter (the savepoint republish, the bench's Kafka Streams peer), which has no key groups.
     */
    static WrittenAfter none() {
        return new WrittenAfter("", List.of(), OptionalLong.empty());
    }

    /**
     * The marks of the writer behind counter subtask {@code task}, started from {@code
     * restoredFrom}.
     */
    static WrittenAfter of(String prefix, TaskInfo task, OptionalLong restoredFrom) {
        KeyGroupRange range =
                KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                        task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks(),
                        task.getIndexOfThisSubtask());
        List<String> fields = new ArrayList<>(range.getNumberOfKeyGroups());
        for (int group : range) {
            fields.add(Integer.toString(group));
        }
        return new WrittenAfter(RedisNames.countsWrittenAfterKey(prefix), fields, restoredFrom);
    }

    /** Whether a count equal to what the counter showed before it may be left out. */
    boolean knowsRedis() {
        return knowsRedis;
    }

    /**
     * The commands to send first of all, and await: HMGET of this writer's fields, then the marks
     * its answer calls for.
     */
    List<RedisConnection.Command> start() {
        return fields.isEmpty() ? List.of() : List.of(new Read());
    }

    /**
     * What to send, and await, before the writer's first write after the barrier of {@code
     * checkpoint} (the one it started from, or 0); nothing once marked.
     */
    List<RedisConnection.Command> beforeWriting(long checkpoint) {
        if (fields.isEmpty() || checkpoint <= marked) {
            return List.of();
        }
        return mark(checkpoint);
    }

    private List<RedisConnection.Command> mark(long checkpoint) {
        marked = checkpoint;
        KeyWrites writes = new KeyWrites();
        String value = Long.toString(checkpoint);
        for (String field : fields) {
            writes.set(field, value);
        }
        List<RedisConnection.Command> commands = new ArrayList<>();
        writes.commandsTo(commands, key, KeyCommand.Op.HSET, KeyCommand.Op.HDEL);
        return commands;
    }

    /** Whether a field's value says Redis holds what the state of the start shows. */
    private boolean holdsStart(Object value) {
        if (restoredFrom.isEmpty()) {
            return value == null;
        }
        try {
            return value instanceof String written
                    && Long.parseLong(written) < restoredFrom.getAsLong();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** HMGET of the fields; its answer decides {@link #knowsRedis} and the first marks. */
    private final class Read implements RedisConnection.Then {
        @Override
        public Response<?> appendTo(AbstractPipeline pipeline) {
            return pipeline.hmget(key, fields.toArray(new String[0]));
        }

        /** Another type's key there is replaced; what it held says nothing, so nothing is known. */
        @Override
        public RedisConnection.Command replacingWrongType() {
            return p -> p.eval(REPLACE_SCRIPT, List.of(key), List.of());
        }

        @Override
        public List<RedisConnection.Command> then(Object reply) {
            boolean holds = reply instanceof List<?>;
            if (holds) {
                for (Object value : (List<?>) reply) {
                    holds &= holdsStart(value);
                }
            }
            knowsRedis = holds;
            if (!holds) {
                return mark(RedisNames.WRITTEN_ANY_TIME);
            }
            // From a checkpoint the fields stay as they are until the first write after it.
            return restoredFrom.isEmpty() ? mark(0) : List.of();
        }
    }
}
