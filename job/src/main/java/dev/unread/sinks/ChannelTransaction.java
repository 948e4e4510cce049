package dev.unread.sinks;

import dev.unread.contract.RedisNames;
import dev.unread.events.ChannelWrite;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * One flush's write of a channel's index as one Redis transaction (docs/contract.md, "Channels in
 * Redis"): {@code MULTI}, {@code SETRANGE} of each block of {@code chat:channel:{C}:seqs} at {@code
 * block * 64}, {@code ZADD} and {@code ZREM} of the sorted sets (member and score the seq), {@code
 * SET chat:channel:{C}:version}, {@code EXEC}. A reader never sees the index without the version
 * that stands for it. Every key of C carries the hash tag {@code {C}}, so on a Redis Cluster the
 * transaction is on one slot: {@code MULTI} and {@code EXEC}, which name no key, are routed to that
 * slot's primary ({@link OnSlot}), and the cluster pipeline keeps one node's commands in order.
 *
 * <p>A single {@link RedisConnection.Command}: it appends the whole transaction and answers with
 * {@code EXEC}'s replies, so a retried round trip sends it again whole. Redis runs the rest of a
 * transaction past a refused command, so a refusal is looked for among {@code EXEC}'s replies; a
 * key of the wrong type is replaced as the counts' keys are ({@link #replacingWrongType}).
 */
final class ChannelTransaction implements RedisConnection.Command {

    private static final String REPLACE_STRING_SCRIPT =
            RedisConnection.replacingScript("string", "");
    private static final String REPLACE_ZSET_SCRIPT = RedisConnection.replacingScript("zset", "");

    private final String seqsKey;
    private final byte[] seqsKeyBytes;
    private final String versionKey;
    private final String version;

    /** Block index to its 64 bytes, in rising order. */
    private final TreeMap<Long, byte[]> blocks;

    /** Per sorted set, the seqs it gains, and those it loses. */
    private final Map<String, Map<String, Double>> added;

    private final Map<String, List<String>> removed;

    /**
     * Whether the keys of another type are deleted first, each by a script in the transaction that
     * answers 1 when it deleted one: the replacement of a transaction Redis refused with WRONGTYPE.
     */
    private final boolean replacing;

    /**
     * @param blocks block index to its bytes, each {@link ChannelWrite#BLOCK_BYTES} long
     * @param members each sorted-set member and whether it is added (true) or removed
     */
    ChannelTransaction(
            String prefix,
            long channelId,
            Map<Long, byte[]> blocks,
            Map<ChannelBuffer.SetMember, Boolean> members,
            long version) {
        this.seqsKey = RedisNames.channelSeqsKey(prefix, channelId);
        this.seqsKeyBytes = seqsKey.getBytes(StandardCharsets.UTF_8);
        this.versionKey = RedisNames.channelVersionKey(prefix, channelId);
        this.version = Long.toString(version);
        this.blocks = new TreeMap<>(blocks);
        this.added = new LinkedHashMap<>();
        this.removed = new LinkedHashMap<>();
        members.forEach(
                (member, add) -> {
                    String key = member.key(prefix, channelId);
                    String seq = Long.toString(member.seq());
                    if (add) {
                        added.computeIfAbsent(key, k -> new LinkedHashMap<>())
                                .put(seq, (double) member.seq());
                    } else {
                        removed.computeIfAbsent(key, k -> new ArrayList<>()).add(seq);
                    }
                });
        this.replacing = false;
    }

    private ChannelTransaction(ChannelTransaction original) {
        this.seqsKey = original.seqsKey;
        this.seqsKeyBytes = original.seqsKeyBytes;
        this.versionKey = original.versionKey;
        this.version = original.version;
        this.blocks = original.blocks;
        this.added = original.added;
        this.removed = original.removed;
        this.replacing = true;
    }

    @Override
    public Response<?> appendTo(AbstractPipeline pipeline) {
        pipeline.sendCommand(new OnSlot(Protocol.Command.MULTI, versionKey));
        if (replacing) {
            for (String key : replacedKeys()) {
                String script = key.equals(seqsKey) ? REPLACE_STRING_SCRIPT : REPLACE_ZSET_SCRIPT;
                pipeline.eval(script, List.of(key), List.of());
            }
        }
        blocks.forEach(
                (block, bytes) ->
                        pipeline.setrange(seqsKeyBytes, block * ChannelWrite.BLOCK_BYTES, bytes));
        added.forEach(pipeline::zadd);
        removed.forEach((key, seqs) -> pipeline.zrem(key, seqs.toArray(new String[0])));
        // SET replaces a key of any type: the version needs no script.
        pipeline.set(versionKey, version);
        return pipeline.sendCommand(new OnSlot(Protocol.Command.EXEC, versionKey));
    }

    /** The keys the replacement checks, in the order of its scripts' replies. */
    private List<String> replacedKeys() {
        List<String> keys = new ArrayList<>();
        if (!blocks.isEmpty()) {
            keys.add(seqsKey);
        }
        keys.addAll(added.keySet());
        for (String key : removed.keySet()) {
            if (!added.containsKey(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** The refusal of {@code EXEC}, or the first among its replies. */
    @Override
    public JedisException refusal(Object reply) {
        if (reply instanceof JedisException refused) {
            return refused;
        }
        if (reply instanceof List<?> replies) {
            for (Object each : replies) {
                if (each instanceof JedisException refused) {
                    return refused;
                }
            }
        }
        return null;
    }

    @Override
    public RedisConnection.Command replacingWrongType() {
        return replacing ? null : new ChannelTransaction(this);
    }

    /** The replacement's scripts answer first, 1 for each key they deleted. */
    @Override
    public int replacedKeys(Object reply) {
        if (!(reply instanceof List<?> replies)) {
            return 0;
        }
        int replaced = 0;
        int scripts = replacedKeys().size();
        for (int i = 0; i < scripts && i < replies.size(); i++) {
            if (Long.valueOf(1).equals(replies.get(i))) {
                replaced++;
            }
        }
        return replaced;
    }

    /**
     * {@code MULTI} or {@code EXEC} routed as a command on {@code key}'s slot: a cluster pipeline
     * sends each command to the primary owning its keys' slot, and these two have none.
     */
    private static final class OnSlot extends CommandArguments {
        private final Set<Integer> slot;

        OnSlot(ProtocolCommand command, String key) {
            super(command);
            this.slot = Set.of(JedisClusterCRC16.getSlot(key));
        }

        @Override
        public Set<Integer> getKeyHashSlots() {
            return slot;
        }
    }
}
