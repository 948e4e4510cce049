package dev.unread.contract;

/**
 * The Redis keys and channels of the contract (docs/contract.md, "Redis"). Every name takes the
 * deployment's key prefix (empty by default), so tenants and tests can share one Redis. A count's
 * key and field are the catalog's ({@link Count#key}, {@link Count#field}).
 */
public final class RedisNames {

    /** String: the distinct-sender badge, absent when 0. */
    public static final String SENDERS = "unread:senders:";

    /** Hash: field conversationId, value the unread count, field absent when 0. */
    public static final String CONVERSATIONS = "chat:unread:";

    /** Hash: field conversationId, value the mention count, field absent when 0. */
    public static final String MENTIONS = "chat:mentions:";

    /**
     * Hash: as {@link #MENTIONS}, value the unread mentions that mention the user only channel-wide
     * (@all, @channel, @here), 0 (absent) while the user ignores channel mentions there. Not in the
     * shared design: the inbox page marks such conversations.
     */
    public static final String CHANNEL_MENTIONS = "chat:channel-mentions:";

    /**
     * Hash: field {@link #threadField}, value the unread replies of a thread the user follows,
     * field absent when 0.
     */
    public static final String THREADS = "chat:threads:";

    /** Hash: as {@link #THREADS}, value the unread replies that mention the user. */
    public static final String THREAD_MENTIONS = "chat:thread-mentions:";

    /** Hash: as {@link #THREADS}, value the unread replies of {@link #CHANNEL_MENTIONS}' kind. */
    public static final String THREAD_CHANNEL_MENTIONS = "chat:thread-channel-mentions:";

    /** Set: the ids of the conversations marked unread, absent when empty. */
    public static final String MARKED_UNREAD = "chat:marked-unread:";

    /**
     * Hash: the app-icon totals, fields {@link #TOTAL_MESSAGES}, {@link #TOTAL_MENTIONS}, {@link
     * #TOTAL_CONVERSATIONS} and {@link #TOTAL_THREADS}, each absent when 0.
     */
    public static final String TOTALS = "unread:totals:";

    public static final String TOTAL_MESSAGES = "messages";
    public static final String TOTAL_MENTIONS = "mentions";
    public static final String TOTAL_CONVERSATIONS = "conversations";
    public static final String TOTAL_THREADS = "threads";

    /**
     * String: the version of the user's latest UNREAD_CHANGED, written with the counts so that a
     * snapshot of them has a version; expires after {@link #VERSION_TTL_SECONDS}. Like the message,
     * written only for a user in {@link #LIVE_USERS}.
     */
    public static final String VERSION = "unread:version:";

    /**
     * A day: a stream's snapshot needs the version only while changes may be in flight, and an
     * absent version means no change for a day, so one key per idle user is not kept forever.
     */
    public static final long VERSION_TTL_SECONDS = 86_400;

    /**
     * Sorted set per conversation: member userId, score the user's read cursor; scores only rise.
     */
    public static final String READERS = "chat:readers:";

    /** Pub/Sub channel of READ_RECEIPT messages, one per cursor that advanced. */
    public static final String READ_PROGRESS_CHANGED = "READ_PROGRESS_CHANGED";

    /**
     * Sorted set of the users with a live stream: member userId, score the time in epoch
     * milliseconds until which the user counts as live. The API adds a user (ZADD GT) before
     * reading a stream's snapshot and again every {@link #LIVE_USER_REFRESH_MS} while the user has
     * a stream; the job writes a version and publishes UNREAD_CHANGED only for users live here when
     * their counts were written, which spares the two commands per user and flush for everyone no
     * client is watching (issue 24).
     */
    public static final String LIVE_USERS = "unread:live-users";

    /**
     * Hash written and read by the job alone: field a key group of the counter (decimal, 0 to the
     * job's max parallelism less one), value the highest checkpoint id after whose barrier the job
     * may have written counts of that key group's users: 0 before the first checkpoint, {@link
     * #WRITTEN_ANY_TIME} when Redis may hold counts the job's state does not show. A restore from
     * checkpoint N finds Redis holding exactly what N's state shows when every field of it is below
     * N, and then spares the writes that change nothing.
     */
    public static final String COUNTS_WRITTEN_AFTER = "unread:counts-written-after";

    /** {@link #COUNTS_WRITTEN_AFTER}'s value for "at any time": the largest long. */
    public static final long WRITTEN_ANY_TIME = Long.MAX_VALUE;

    /** How long a user counts as live after the API last added it to {@link #LIVE_USERS}. */
    public static final long LIVE_USER_TTL_MS = 90_000;

    /** How often the API adds its streams' users to {@link #LIVE_USERS} again. */
    public static final long LIVE_USER_REFRESH_MS = 30_000;

    /**
     * Pub/Sub channel per user: UNREAD_CHANGED, one per live user per flush that changed counts.
     */
    public static final String UNREAD_CHANGED = MessageTypes.UNREAD_CHANGED + ":";

    /** Pub/Sub channel per user: the READ_RECEIPTs that concern the user. */
    public static final String READ_RECEIPTS = "READ_RECEIPTS:";

    private RedisNames() {}

    /**
     * {@code conversationId + ":" + threadSeq}: a thread's field in {@link #THREADS}, {@link
     * #THREAD_MENTIONS} and {@link #THREAD_CHANNEL_MENTIONS}, and its key in UNREAD_CHANGED's
     * sections of them.
     */
    public static String threadField(long conversationId, long threadSeq) {
        return conversationId + ":" + threadSeq;
    }

    /** {@code prefix + "chat:readers:" + conversationId}. */
    public static String readersKey(String prefix, long conversationId) {
        return prefix + READERS + conversationId;
    }

    /** {@code prefix + "READ_PROGRESS_CHANGED"}. */
    public static String readProgressChannel(String prefix) {
        return prefix + READ_PROGRESS_CHANGED;
    }

    /** {@code prefix + "unread:version:" + userId}. */
    public static String versionKey(String prefix, long userId) {
        return prefix + VERSION + userId;
    }

    /** {@code prefix + "unread:live-users"}. */
    public static String liveUsersKey(String prefix) {
        return prefix + LIVE_USERS;
    }

    /** {@code prefix + "unread:counts-written-after"}. */
    public static String countsWrittenAfterKey(String prefix) {
        return prefix + COUNTS_WRITTEN_AFTER;
    }

    /** {@code prefix + "UNREAD_CHANGED:" + userId}. */
    public static String unreadChangedChannel(String prefix, long userId) {
        return prefix + UNREAD_CHANGED + userId;
    }

    /** {@code prefix + "READ_RECEIPTS:" + userId}. */
    public static String readReceiptsChannel(String prefix, long userId) {
        return prefix + READ_RECEIPTS + userId;
    }

    /**
     * String, written by the API, and by the job at an erasure (raised to {@code erasedAt}): the
     * stamp of the user's newest action, so that every API instance stamps the user's next action
     * after it whatever its clock says. Expires after {@link #ACTION_STAMP_TTL_SECONDS}.
     */
    public static final String ACTION_STAMP = "unread:action-stamp:";

    /**
     * A day, the job's default bound on how far an action time may lie ahead: a skew larger than
     * that is refused by the job anyway, so an older stamp need not be kept.
     */
    public static final long ACTION_STAMP_TTL_SECONDS = 86_400;

    /** {@code prefix + "unread:action-stamp:" + userId}. */
    public static String actionStampKey(String prefix, long userId) {
        return prefix + ACTION_STAMP + userId;
    }
}
