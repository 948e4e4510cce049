package dev.unread.testing;

import static dev.unread.testing.EventStreams.TICK_MS;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/** One {@link ChannelTraffic} being generated, in production order. */
final class ChannelGeneration {

    private static final int ERASURES = 2;

    /** One channel: its seqs so far, its roster (the users that take part) and its messages. */
    private final class Channel {
        final long id;
        final List<Long> roster = new ArrayList<>();
        final Set<Long> withMembership = new HashSet<>();
        final List<Long> roots = new ArrayList<>();
        final Map<Long, Long> rootSenders = new HashMap<>();

        /**
         * Every message's seq: what an edit names (a hash set, whose order a seed's edits keep).
         */
        final Set<Long> sent = new HashSet<>();

        long seq;

        Channel(long id) {
            this.id = id;
            for (int u = 0; u < users; u++) {
                if (random.nextInt(3) != 0 || roster.size() < 2 && u >= users - 2) {
                    roster.add(firstUserId + u);
                }
            }
        }

        long member() {
            return roster.get(random.nextInt(roster.size()));
        }
    }

    private final Random random;
    private final long firstUserId;
    private final int users;
    private final long maxChannelSeq;
    private final List<Channel> channels = new ArrayList<>();
    private final Set<Long> erased = new HashSet<>();
    final List<ConversationEvent> records = new ArrayList<>();
    final List<ChatEvent> facts = new ArrayList<>();
    private long clock = EventStreams.T0;

    ChannelGeneration(Random random, long firstUserId, int users, long maxChannelSeq) {
        this.random = random;
        this.firstUserId = firstUserId;
        this.users = users;
        this.maxChannelSeq = maxChannelSeq;
    }

    /** Declares a channel: its CHANNEL before every other record of it. */
    void open(long channelId) {
        channels.add(new Channel(channelId));
        records.add(ConversationEvent.channel(channelId));
    }

    void step() {
        Channel c = channels.get(random.nextInt(channels.size()));
        c.seq += 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
        clock += random.nextInt(2) * TICK_MS;
        long user = c.member();
        int pick = random.nextInt(20);
        if (pick < 3) {
            membership(c, user, c.seq);
        } else if (pick == 9) {
            records.add(ConversationEvent.deleted(c.id, 1 + random.nextInt((int) c.seq)));
        } else if (pick == 10 || pick == 11) {
            edit(c);
        } else if (pick == 12) {
            facts.add(ChatEvent.conversationRead(user, c.id, seqUpTo(c.seq), clock));
        } else if (pick == 13) {
            facts.add(ChatEvent.threadRead(user, c.id, root(c), seqUpTo(c.seq), clock));
        } else if (pick == 14) {
            follow(c, user);
        } else if (pick == 15) {
            preference(c, user);
        } else if (pick == 16) {
            facts.add(ChatEvent.markedUnread(user, c.id, clock));
        } else if (pick == 17) {
            facts.add(ChatEvent.allRead(user, clock - random.nextInt(3) * TICK_MS));
        } else if (pick == 18 && erased.size() < ERASURES && erased.add(user)) {
            facts.add(ChatEvent.userErased(user, clock));
        } else {
            message(c, user, c.seq);
        }
    }

    /**
     * Gives every roster user without a membership event one (a join at an earlier seq, arriving
     * last: a late membership), and now and then a message past {@code --max-channel-seq}.
     */
    void close() {
        for (Channel c : channels) {
            for (long user : c.roster) {
                if (!c.withMembership.contains(user)) {
                    long seq = 1 + random.nextInt((int) c.seq + 1);
                    // A seq of its own, as the chat server gives every change one.
                    membership(c, user, c.sent.contains(seq) ? ++c.seq : seq);
                }
            }
            if (random.nextInt(3) == 0) {
                long seq = maxChannelSeq + 1 + random.nextInt(3);
                message(c, c.member(), seq);
                if (random.nextBoolean()) {
                    ConversationEvent reply =
                            ConversationEvent.reply(c.id, seq + 1, seq, c.member(), clock, user());
                    records.add(reply);
                }
                records.add(ConversationEvent.edited(c.id, seq, clock, true, user()));
            }
        }
    }

    private void membership(Channel c, long user, long seq) {
        c.withMembership.add(user);
        boolean joined = random.nextInt(3) != 0;
        records.add(
                joined
                        ? ConversationEvent.joined(c.id, user, seq)
                        : ConversationEvent.left(c.id, user, seq));
        if (random.nextInt(10) == 0) {
            records.add(
                    joined
                            ? ConversationEvent.left(c.id, user, seq)
                            : ConversationEvent.joined(c.id, user, seq));
        }
    }

    private void message(Channel c, long sender, long seq) {
        ConversationEvent m = ConversationEvent.message(c.id, seq, sender, clock, mentions());
        m.mentionsAll = random.nextInt(6) == 0;
        if (seq > 1 && random.nextInt(5) < 2) {
            // Now and then a thread whose root is no message, as nothing forbids.
            m.threadSeq = random.nextInt(8) == 0 ? 1 + random.nextInt((int) seq - 1) : root(c);
            Long rootSender = c.rootSenders.get(m.threadSeq);
            int naming = random.nextInt(8);
            if (naming == 0) {
                m.rootSenderId = user();
            } else if (rootSender != null && naming > 3) {
                m.rootSenderId = rootSender;
            }
        } else {
            c.roots.add(seq);
            c.rootSenders.put(seq, sender);
        }
        c.sent.add(seq);
        records.add(m);
        if (random.nextInt(4) == 0) {
            long deleted = random.nextBoolean() ? seq : 1 + random.nextInt((int) c.seq);
            records.add(ConversationEvent.deleted(c.id, deleted));
        }
    }

    /**
     * An edit of one of the channel's messages (now and then of a seq no message has), at an
     * editedAt from a few values, so that edits tie.
     */
    private void edit(Channel c) {
        List<Long> sent = new ArrayList<>(c.sent);
        long seq =
                sent.isEmpty() || random.nextInt(8) == 0
                        ? 1 + random.nextInt((int) c.seq)
                        : sent.get(random.nextInt(sent.size()));
        // As chat-conversations carries it: no thread, which the job takes from the message.
        records.add(
                ConversationEvent.edited(
                        c.id,
                        seq,
                        clock + random.nextInt(3) * TICK_MS,
                        random.nextInt(4) == 0,
                        mentions()));
    }

    /** A follow or an unfollow; now and then an unfollow and a follow a tick later. */
    private void follow(Channel c, long user) {
        long root = root(c);
        long setAt = clock + (random.nextInt(3) - 1) * TICK_MS;
        if (random.nextInt(4) == 0) {
            facts.add(ChatEvent.threadFollowed(user, c.id, root, false, setAt));
            facts.add(ChatEvent.threadFollowed(user, c.id, root, true, setAt + TICK_MS));
        } else {
            facts.add(ChatEvent.threadFollowed(user, c.id, root, random.nextBoolean(), setAt));
        }
    }

    /** A count preference, {@code ignoreChannelMentions}, or both, at a setAt that may tie. */
    private void preference(Channel c, long user) {
        long setAt = clock - (clock - EventStreams.T0) % (4 * TICK_MS);
        long preference = random.nextInt(3);
        facts.add(
                random.nextBoolean()
                        ? ChatEvent.preference(user, c.id, preference, setAt)
                        : ChatEvent.ignoreChannelMentions(
                                user,
                                c.id,
                                random.nextBoolean() ? ChatEvent.NO_COUNT_PREFERENCE : preference,
                                random.nextBoolean(),
                                setAt));
    }

    /** Up to two users by id, any of them: members, non-members and the sender alike. */
    private long[] mentions() {
        long[] mentions = new long[random.nextInt(3)];
        for (int m = 0; m < mentions.length; m++) {
            mentions[m] = user();
        }
        return mentions;
    }

    private long user() {
        return firstUserId + random.nextInt(users);
    }

    /** One of the channel's first roots, so that threads gather replies; 1 if none. */
    private long root(Channel c) {
        return c.roots.isEmpty() ? 1 : c.roots.get(random.nextInt(Math.min(3, c.roots.size())));
    }

    private long seqUpTo(long seq) {
        return random.nextInt((int) seq + 1);
    }
}
