package dev.unread.api;

import dev.unread.contract.RedisNames;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;

/**
 * What a stream reads of its user's channels before its snapshot (docs/contract.md, "Live push"):
 * which channels the user has a track of, then each one's index version.
 */
final class ChannelReads {

    private final RedisUnread redis;
    private final String keyPrefix;

    ChannelReads(RedisUnread redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    /**
     * The channels of {@code userId}'s tracks: the fields that name a channel alone. A field that
     * is not the job's is no channel; the snapshot's read says so.
     */
    Set<Long> channels(long userId) {
        Set<String> fields =
                redis.run(client -> client.hkeys(RedisNames.channelTracksKey(keyPrefix, userId)));
        Set<Long> channels = new TreeSet<>();
        for (String field : fields) {
            try {
                long id = Long.parseLong(field);
                if (id > 0) {
                    channels.add(id);
                }
            } catch (NumberFormatException notAChannel) {
                // A thread's field, or one that is not the job's.
            }
        }
        return channels;
    }

    /** Each channel's index version (0: none yet), in one pipeline. */
    Map<Long, Long> versions(Set<Long> channels) {
        if (channels.isEmpty()) {
            return Map.of();
        }
        return redis.run(
                client -> {
                    Map<Long, Response<String>> replies = new LinkedHashMap<>();
                    try (AbstractPipeline pipeline = client.pipelined()) {
                        for (long channel : channels) {
                            replies.put(
                                    channel,
                                    pipeline.get(RedisNames.channelVersionKey(keyPrefix, channel)));
                        }
                    }
                    Map<Long, Long> versions = new LinkedHashMap<>();
                    replies.forEach(
                            (channel, reply) -> {
                                versions.put(channel, version(reply.get()));
                            });
                    return versions;
                });
    }

    /** A version that is not the job's counts as none: any notice then makes a read. */
    private static long version(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value);
        } catch (NumberFormatException notTheJobs) {
            return 0;
        }
    }
}
