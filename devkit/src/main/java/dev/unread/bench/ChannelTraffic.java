package dev.unread.bench;

import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationEventJson;
import dev.unread.generator.TrafficRecord;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The traffic of one conversation of {@link ChannelBench}: its declaration as a channel (or none,
 * for a group), every member's MEMBER_JOINED, then messages from the members, a share of them
 * naming a member by id, a share mentioning everyone, a share replying to one of the recent roots.
 *
 * <p>The draws are the same whatever the members: two conversations of different sizes get the same
 * messages, mentions and threads, their users scaled to the members. The last member never sends,
 * so that the counts of a member who is not a sender (whom neither of a channel's two differences
 * from a group touches) can be checked against version 4's rules.
 */
final class ChannelTraffic {

    /** The conversation every run uses: each run has topics, state and Redis keys of its own. */
    static final long CONVERSATION = 1;

    static final long FIRST_USER = 10_001;

    /** Replies go to one of the last roots, as a conversation's threads are mostly recent. */
    private static final int RECENT_ROOTS = 16;

    private static final long SEED = 47;

    /** Messages are stamped as if sent this far apart, from the bench's synthetic clock. */
    private static final long MILLIS_PER_SEQ = 20;

    private final boolean channel;
    private final int members;
    private final double mentionShare;
    private final double mentionAllShare;
    private final double replyShare;
    private final long startMillis;
    private final SplittableRandom random = new SplittableRandom(SEED);
    private final long[] roots = new long[RECENT_ROOTS];
    private final long[] rootSenders = new long[RECENT_ROOTS];
    private long rootCount;
    private long seq;
    private long messages;
    private long named;
    private long mentionsAll;
    private long replies;

    ChannelTraffic(boolean channel, int members, ChannelBench.Options options, long startMillis) {
        if (members < 2) {
            throw new IllegalArgumentException("a conversation of the bench has 2 members or more");
        }
        this.channel = channel;
        this.members = members;
        this.mentionShare = options.mentionShare();
        this.mentionAllShare = options.mentionAllShare();
        this.replyShare = options.replyShare();
        this.startMillis = startMillis;
    }

    /** The member who never sends. */
    long lurker() {
        return FIRST_USER + members - 1;
    }

    /** CHANNEL, if a channel, then a MEMBER_JOINED per member; returns how many records. */
    long memberships(Consumer<TrafficRecord> out) {
        long records = 0;
        if (channel) {
            out.accept(record(ConversationEvent.channel(CONVERSATION)));
            records++;
        }
        for (int i = 0; i < members; i++) {
            out.accept(record(ConversationEvent.joined(CONVERSATION, FIRST_USER + i, ++seq)));
            records++;
        }
        return records;
    }

    /** The next {@code count} messages. */
    void messages(long count, Consumer<TrafficRecord> out) {
        for (long i = 0; i < count; i++) {
            out.accept(record(next()));
        }
    }

    private ConversationEvent next() {
        long sender = (long) (random.nextDouble() * (members - 1));
        long drawn = (long) (random.nextDouble() * members);
        // Never the sender, so that every size names as many users.
        long mention = FIRST_USER + (drawn == sender ? (drawn + 1) % members : drawn);
        sender += FIRST_USER;
        boolean names = random.nextDouble() < mentionShare;
        boolean all = random.nextDouble() < mentionAllShare;
        boolean reply = random.nextDouble() < replyShare && rootCount > 0;
        long back = random.nextInt(RECENT_ROOTS) % Math.max(1, Math.min(rootCount, RECENT_ROOTS));
        int root = (int) ((rootCount - 1 - back) % RECENT_ROOTS);
        long at = startMillis + ++seq * MILLIS_PER_SEQ;
        long[] mentions = names ? new long[] {mention} : new long[0];
        ConversationEvent message;
        if (reply) {
            message = ConversationEvent.reply(CONVERSATION, seq, roots[root], sender, at, mentions);
            message.rootSenderId = rootSenders[root];
            replies++;
        } else {
            message = ConversationEvent.message(CONVERSATION, seq, sender, at, mentions);
            roots[(int) (rootCount % RECENT_ROOTS)] = seq;
            rootSenders[(int) (rootCount % RECENT_ROOTS)] = sender;
            rootCount++;
        }
        message.mentionsAll = all;
        messages++;
        named += mentions.length;
        mentionsAll += all ? 1 : 0;
        return message;
    }

    private TrafficRecord record(ConversationEvent event) {
        return TrafficRecord.conversation(event, ConversationEventJson.text(event, 0));
    }

    long messages() {
        return messages;
    }

    /** Users named by id so far, one per message that names one (never its sender). */
    long named() {
        return named;
    }

    long mentionsAll() {
        return mentionsAll;
    }

    long replies() {
        return replies;
    }
}
