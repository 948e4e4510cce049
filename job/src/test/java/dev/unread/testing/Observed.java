package dev.unread.testing;

import dev.unread.channels.ChannelRecipeReads;
import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.contract.MySqlSchema;
import dev.unread.testing.Oracle.Member;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the job's outputs hold right now, read from the real Redis and MySQL, in the oracle's shapes
 * so that one comparison says whether they agree.
 */
public final class Observed {

    public final Map<String, String> senderKeys;
    public final Map<String, Map<String, String>> conversationHashes;
    public final Map<Long, Long> userActivity;
    public final Map<Member, Long> conversationMember;
    public final Map<Member, Long> unreadCounts;
    public final Map<String, Map<String, Double>> readers;
    public final Map<String, Map<String, String>> mentionHashes;
    public final Map<String, Set<String>> markedSets;
    public final Map<String, Map<String, String>> totals;
    public final Map<String, Map<String, String>> threadHashes;
    public final Map<String, Map<String, String>> threadMentionHashes;
    public final Map<String, Map<String, String>> channelMentionHashes;
    public final Map<String, Map<String, String>> threadChannelMentionHashes;

    /** Each member's channel counts by the recipe, as {@link ChannelRecipeReads} keys them. */
    public final Map<String, Counts> channelCounts;

    private Observed(
            Map<String, String> senderKeys,
            Map<String, Map<String, String>> conversationHashes,
            Map<String, Map<String, Double>> readers,
            Map<Long, Long> userActivity,
            Map<Member, Long> conversationMember,
            Map<Member, Long> unreadCounts,
            Map<String, Map<String, String>> mentionHashes,
            Map<String, Set<String>> markedSets,
            Map<String, Map<String, String>> totals,
            Map<String, Map<String, String>> threadHashes,
            Map<String, Map<String, String>> threadMentionHashes,
            Map<String, Map<String, String>> channelMentionHashes,
            Map<String, Map<String, String>> threadChannelMentionHashes,
            Map<String, Counts> channelCounts) {
        this.channelCounts = channelCounts;
        this.threadHashes = threadHashes;
        this.channelMentionHashes = channelMentionHashes;
        this.threadChannelMentionHashes = threadChannelMentionHashes;
        this.threadMentionHashes = threadMentionHashes;
        this.mentionHashes = mentionHashes;
        this.markedSets = markedSets;
        this.totals = totals;
        this.senderKeys = senderKeys;
        this.conversationHashes = conversationHashes;
        this.userActivity = userActivity;
        this.conversationMember = conversationMember;
        this.unreadCounts = unreadCounts;
        this.readers = readers;
    }

    /** Redis under {@code prefix} and, when {@code db} is not null, both MySQL tables. */
    public static Observed read(String prefix, MySqlTestDatabase db) throws SQLException {
        Map<String, String> senders = TestRedis.strings(prefix + Oracle.SENDERS_KEY);
        Map<String, Map<String, String>> hashes =
                TestRedis.hashes(prefix + Oracle.CONVERSATIONS_KEY);
        Map<String, Map<String, Double>> readers =
                TestRedis.sortedSets(prefix + Oracle.READERS_KEY);
        Map<Long, Long> activity = new TreeMap<>();
        Map<Member, Long> members = new TreeMap<>();
        Map<Member, Long> unread = new TreeMap<>();
        if (db != null) {
            try (Connection c = db.connect();
                    Statement st = c.createStatement()) {
                if (db.tableExists(MySqlSchema.USER_ACTIVITY)) {
                    try (ResultSet rs =
                            st.executeQuery(
                                    "SELECT user_id,"
                                            // Zone-free arithmetic: the column holds UTC wall time.
                                            + " TIMESTAMPDIFF(MICROSECOND, '1970-01-01', last_read_at) DIV 1000"
                                            + " FROM "
                                            + MySqlSchema.USER_ACTIVITY)) {
                        while (rs.next()) {
                            activity.put(rs.getLong(1), rs.getLong(2));
                        }
                    }
                }
                if (db.tableExists(MySqlSchema.CONVERSATION_MEMBER)) {
                    try (ResultSet rs =
                            st.executeQuery(
                                    "SELECT conversation_id, user_id, last_read_seq, unread_count FROM "
                                            + MySqlSchema.CONVERSATION_MEMBER)) {
                        while (rs.next()) {
                            Member m = new Member(rs.getLong(1), rs.getLong(2));
                            members.put(m, rs.getLong(3));
                            unread.put(m, rs.getLong(4));
                        }
                    }
                }
            }
        }
        return new Observed(
                senders,
                hashes,
                readers,
                activity,
                members,
                unread,
                TestRedis.hashes(prefix + Oracle.MENTIONS_KEY),
                TestRedis.sets(prefix + Oracle.MARKED_UNREAD_KEY),
                TestRedis.hashes(prefix + Oracle.TOTALS_KEY),
                TestRedis.hashes(prefix + Oracle.THREADS_KEY),
                TestRedis.hashes(prefix + Oracle.THREAD_MENTIONS_KEY),
                TestRedis.hashes(prefix + Oracle.CHANNEL_MENTIONS_KEY),
                TestRedis.hashes(prefix + Oracle.THREAD_CHANNEL_MENTIONS_KEY),
                ObservedChannels.counts(prefix));
    }

    /** Whether Redis and MySQL equal the oracle; {@code unread_count} within its bounds. */
    public boolean agreesWith(Oracle oracle, String prefix, boolean withMySql) {
        return differenceFrom(oracle, prefix, withMySql).isEmpty();
    }

    /** What differs from the oracle, empty when nothing. */
    public String differenceFrom(Oracle oracle, String prefix, boolean withMySql) {
        StringBuilder diff = new StringBuilder();
        OracleChannels channels = oracle.channels();
        // A channel's cursors are bounded, not exact: compared apart from the others.
        Map<String, Map<String, Double>> groupReaders = new TreeMap<>(readers);
        Map<Member, Long> channelReaders =
                ObservedChannels.takeReaders(groupReaders, prefix, channels::isChannel);
        Map<Member, Long> groupRows = new TreeMap<>(conversationMember);
        Map<Member, Long> channelRows = ObservedChannels.takeRows(groupRows, channels::isChannel);
        Map<Member, Long> groupUnread = new TreeMap<>(unreadCounts);
        Map<Member, Long> channelUnread =
                ObservedChannels.takeRows(groupUnread, channels::isChannel);
        compare(diff, "Redis sender badges", oracle.redisSenderKeys(prefix), senderKeys);
        compare(
                diff,
                "Redis conversation counts",
                fields(oracle.redisConversationHashes(prefix)),
                fields(conversationHashes));
        compare(diff, "Redis readers", fields(oracle.redisReaders(prefix)), fields(groupReaders));
        compare(
                diff,
                "Redis mentions",
                fields(oracle.redisMentionHashes(prefix)),
                fields(mentionHashes));
        compare(diff, "Redis marked unread", oracle.redisMarkedSets(prefix), markedSets);
        compare(diff, "Redis totals", fields(oracle.redisTotals(prefix)), fields(totals));
        compare(
                diff,
                "Redis threads",
                fields(oracle.redisThreadHashes(prefix, false)),
                fields(threadHashes));
        compare(
                diff,
                "Redis thread mentions",
                fields(oracle.redisThreadHashes(prefix, true)),
                fields(threadMentionHashes));
        compare(
                diff,
                "Redis channel mentions",
                fields(oracle.redisChannelMentionHashes(prefix)),
                fields(channelMentionHashes));
        compare(
                diff,
                "Redis thread channel mentions",
                fields(oracle.redisThreadChannelMentionHashes(prefix)),
                fields(threadChannelMentionHashes));
        compare(
                diff,
                "Redis channel counts by the recipe",
                ChannelRecipeReads.expected(channels),
                channelCounts);
        ObservedChannels.compareCursors(
                diff, "Redis readers", channels.readersScores(), channelReaders);
        if (withMySql) {
            ObservedChannels.compareCursors(
                    diff, "conversation_member", channels.conversationMemberRows(), channelRows);
            ObservedChannels.compareUnreadCounts(diff, channels, channelUnread);
            compare(diff, "user_activity", oracle.userActivityRows(), userActivity);
            compare(diff, "conversation_member", oracle.conversationMemberRows(), groupRows);
            groupUnread.forEach(
                    (member, count) -> {
                        if (count < 0 || count > oracle.unreadCountUpperBound(member)) {
                            diff.append(
                                    String.format(
                                            "%nconversation_member.unread_count of %s is %d, outside 0..%d",
                                            member, count, oracle.unreadCountUpperBound(member)));
                        }
                    });
        }
        return diff.toString();
    }

    /**
     * Polls until Redis (and MySQL, when {@code db} is not null) agree with {@code oracle}, or
     * fails after {@code timeout} with what still differs.
     */
    public static Observed awaitAgreement(
            Oracle oracle, String prefix, MySqlTestDatabase db, Duration timeout, String context)
            throws Exception {
        String[] difference = {""};
        try {
            return Poll.until(
                    context + ": outputs agree with the oracle",
                    timeout,
                    () -> {
                        Observed observed = read(prefix, db);
                        difference[0] = observed.differenceFrom(oracle, prefix, db != null);
                        return difference[0].isEmpty() ? observed : null;
                    });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + difference[0], e);
        }
    }

    private static <K, V> void compare(
            StringBuilder diff, String what, Map<K, V> expected, Map<K, V> actual) {
        if (expected.equals(actual)) {
            return;
        }
        Map<K, V> missingOrWrong = new TreeMap<>();
        expected.forEach(
                (k, v) -> {
                    if (!v.equals(actual.get(k))) {
                        missingOrWrong.put(k, v);
                    }
                });
        Map<K, V> unexpected = new TreeMap<>();
        actual.forEach(
                (k, v) -> {
                    if (!v.equals(expected.get(k))) {
                        unexpected.put(k, v);
                    }
                });
        diff.append(
                String.format(
                        "%n%s: expected %d entries, got %d; expected but missing or different: %s;"
                                + " present but not expected or different: %s",
                        what,
                        expected.size(),
                        actual.size(),
                        abbreviate(missingOrWrong),
                        abbreviate(unexpected)));
    }

    /**
     * Each hash's fields as "{key} {field}", so that a difference names the field that differs
     * rather than the whole hash it sits in.
     */
    private static <V> Map<String, V> fields(Map<String, Map<String, V>> hashes) {
        Map<String, V> fields = new TreeMap<>();
        hashes.forEach((key, hash) -> hash.forEach((field, v) -> fields.put(key + " " + field, v)));
        return fields;
    }

    private static String abbreviate(Map<?, ?> map) {
        String s = map.toString();
        return s.length() <= 2000 ? s : s.substring(0, 2000) + "...";
    }
}
