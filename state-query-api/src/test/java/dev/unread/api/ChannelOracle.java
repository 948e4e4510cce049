package dev.unread.api;

import dev.unread.api.ChannelFacts.Channel;
import dev.unread.api.ChannelFacts.Member;
import dev.unread.api.ChannelFacts.Message;
import dev.unread.contract.InputField;
import dev.unread.contract.RedisNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A member's counts from {@link ChannelFacts} by the contract's definitions, message by message
 * (docs/contract.md, "Channels", "Threads", "Count preferences"), never through the index: a root
 * counts for U when it is not deleted, from someone else, U is a member at its seq, it lies above
 * U's floor and cursor, and U has not left; a reply the same in a thread U follows, above the
 * thread's cursor. Mentions are by id, or channel-wide unless U ignores them. The totals add each
 * channel by the rules of versions 2 to 4 to what the job's totals hold for other conversations.
 */
final class ChannelOracle {

    private ChannelOracle() {}

    /** What the job holds for U's other conversations, beside the channels. */
    record Others(
            long senders,
            Map<Long, Long> conversations,
            Map<Long, Long> mentions,
            Map<String, Long> totals,
            List<Long> marked) {}

    /** The answer of {@code GET /api/users/{userId}/unread}, fields in the API's order. */
    static Map<String, Object> expected(ChannelFacts facts, long user, Others others) {
        TreeMap<Long, Long> conversations = new TreeMap<>(others.conversations());
        TreeMap<Long, Long> mentions = new TreeMap<>(others.mentions());
        TreeMap<Long, Long> channelMentions = new TreeMap<>();
        TreeMap<Long, TreeMap<Long, long[]>> threads = new TreeMap<>();
        Map<String, Long> totals = new LinkedHashMap<>(others.totals());
        TreeSet<Long> marked = new TreeSet<>(others.marked());
        for (Channel channel : facts.channels.values()) {
            Member member = channel.member(user);
            if (member.marked) {
                marked.add(channel.id);
            }
            long[] counts = new long[3];
            for (Message m : channel.messages.values()) {
                if (m.root()
                        && counts(channel, user, m, Math.max(member.floor, channel.cursor(user)))) {
                    add(counts, m, user, member.ignoreAll);
                }
            }
            putNonZero(conversations, channel.id, counts[0]);
            putNonZero(mentions, channel.id, counts[1]);
            putNonZero(channelMentions, channel.id, counts[2]);
            InputField.CountPreference preference = member.preference;
            if (preference == InputField.CountPreference.ALL) {
                totals.merge(RedisNames.TOTAL_MESSAGES, counts[0], Long::sum);
            }
            if (preference != InputField.CountPreference.NONE) {
                totals.merge(RedisNames.TOTAL_MENTIONS, counts[1], Long::sum);
            }
            if ((preference == InputField.CountPreference.ALL && counts[0] > 0)
                    || (preference == InputField.CountPreference.MENTIONS && counts[1] > 0)
                    || member.marked) {
                totals.merge(RedisNames.TOTAL_CONVERSATIONS, 1L, Long::sum);
            }
            for (long root : member.follows) {
                long[] thread = new long[3];
                long cut = Math.max(member.floor, channel.threadCursor(user, root));
                for (Message m : channel.messages.values()) {
                    if (m.thread() == root && counts(channel, user, m, cut)) {
                        add(thread, m, user, member.ignoreAll);
                    }
                }
                threads.computeIfAbsent(channel.id, c -> new TreeMap<>()).put(root, thread);
                if (preference != InputField.CountPreference.NONE) {
                    totals.merge(RedisNames.TOTAL_MENTIONS, thread[1], Long::sum);
                }
                if ((preference == InputField.CountPreference.ALL
                                && (thread[0] > 0 || thread[1] > 0))
                        || (preference == InputField.CountPreference.MENTIONS && thread[1] > 0)) {
                    totals.merge(RedisNames.TOTAL_THREADS, 1L, Long::sum);
                }
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("userId", user);
        answer.put("unreadSenders", others.senders());
        answer.put("conversations", byId(conversations));
        answer.put("mentions", byId(mentions));
        answer.put("channelMentions", byId(channelMentions));
        answer.put("totals", totals);
        answer.put("markedUnread", List.copyOf(marked));
        for (int i = 0; i < 3; i++) {
            Map<String, Long> section = new LinkedHashMap<>();
            int count = i;
            threads.forEach(
                    (c, roots) ->
                            roots.forEach(
                                    (root, n) -> {
                                        if (n[count] != 0) {
                                            section.put(RedisNames.threadField(c, root), n[count]);
                                        }
                                    }));
            answer.put(
                    new String[] {"threads", "threadMentions", "threadChannelMentions"}[i],
                    section);
        }
        return answer;
    }

    /** Whether message {@code m} counts for U above {@code cut}. */
    private static boolean counts(Channel channel, long user, Message m, long cut) {
        return !m.deleted()
                && m.sender() != user
                && m.seq() > cut
                && channel.memberAt(user, m.seq())
                && !channel.left(user);
    }

    /** Adds {@code m} to unread, mentions and channel-only mentions. */
    private static void add(long[] counts, Message m, long user, boolean ignoreAll) {
        boolean byId = m.named().contains(user);
        boolean everyone = m.all() && !ignoreAll;
        counts[0]++;
        counts[1] += byId || everyone ? 1 : 0;
        counts[2] += everyone && !byId ? 1 : 0;
    }

    private static void putNonZero(Map<Long, Long> counts, long id, long n) {
        if (n != 0) {
            counts.put(id, n);
        } else {
            counts.remove(id);
        }
    }

    private static Map<String, Long> byId(TreeMap<Long, Long> counts) {
        Map<String, Long> byId = new LinkedHashMap<>();
        counts.forEach((id, n) -> byId.put(Long.toString(id), n));
        return byId;
    }
}
