package dev.unread.api;

import dev.unread.contract.InputField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * What happened in a few channels, as the contract states facts (docs/contract.md, "Channels"):
 * messages with their seq, sender, thread, mentions by id, channel-wide mention and deletion by
 * their final state; membership events; and per member the reads, thread reads, follows, floor,
 * preference, ignoreChannelMentions and mark. {@link ChannelIndexWrites} writes the index and the
 * tracks from them as the job does; {@link ChannelOracle} counts from them by the definitions.
 */
final class ChannelFacts {

    /** A message of a channel; {@code thread} 0 for a root. */
    record Message(
            long seq, long sender, long thread, Set<Long> named, boolean all, boolean deleted) {
        boolean root() {
            return thread == 0;
        }
    }

    /** A MEMBER_JOINED ({@code joined}) or MEMBER_LEFT of {@code user} at {@code seq}. */
    record Membership(long user, long seq, boolean joined) {}

    /** One member's own facts about one channel. */
    static final class Member {
        long read;
        long floor;
        InputField.CountPreference preference = InputField.CountPreference.ALL;
        boolean ignoreAll;
        boolean marked;
        final Map<Long, Long> threadReads = new HashMap<>();
        final Set<Long> follows = new HashSet<>();
    }

    /** One channel's facts. */
    static final class Channel {
        final long id;
        final TreeMap<Long, Message> messages = new TreeMap<>();
        final List<Membership> memberships = new ArrayList<>();
        final Map<Long, Member> members = new HashMap<>();
        long lastSeq;

        Channel(long id) {
            this.id = id;
        }

        Member member(long user) {
            return members.computeIfAbsent(user, u -> new Member());
        }

        /**
         * member(U,C,s): U's membership event with the largest seq below s is a join (a leave wins
         * a tie at one seq); none, not a member.
         */
        boolean memberAt(long user, long seq) {
            return stateAfter(user, seq - 1);
        }

        /** Whether U's newest membership event is a leave (a leave wins a tie). */
        boolean left(long user) {
            return hasMembership(user) && !stateAfter(user, Long.MAX_VALUE);
        }

        boolean hasMembership(long user) {
            return memberships.stream().anyMatch(m -> m.user() == user);
        }

        /** Joined after U's events up to {@code seq}, by the newest of them. */
        private boolean stateAfter(long user, long seq) {
            long newest = -1;
            boolean joined = false;
            for (Membership m : memberships) {
                if (m.user() != user || m.seq() > seq || m.seq() < newest) {
                    continue;
                }
                joined = m.seq() > newest ? m.joined() : joined && m.joined();
                newest = m.seq();
            }
            return joined;
        }

        /** lastReadSeq(U,C): the largest of U's reads and of the roots U sent. */
        long cursor(long user) {
            long cursor = member(user).read;
            for (Message m : messages.values()) {
                if (m.root() && m.sender() == user) {
                    cursor = Math.max(cursor, m.seq());
                }
            }
            return cursor;
        }

        /** threadCursor(U,C,T): the largest of U's thread reads and of the replies U sent. */
        long threadCursor(long user, long thread) {
            long cursor = member(user).threadReads.getOrDefault(thread, 0L);
            for (Message m : messages.values()) {
                if (m.thread() == thread && m.sender() == user) {
                    cursor = Math.max(cursor, m.seq());
                }
            }
            return cursor;
        }

        /** The roots of threads: every root, replied to or not. */
        List<Long> roots() {
            return messages.values().stream().filter(Message::root).map(Message::seq).toList();
        }
    }

    final List<Long> users;
    final Map<Long, Channel> channels = new TreeMap<>();

    ChannelFacts(List<Long> users) {
        this.users = List.copyOf(users);
    }

    Channel channel(long id) {
        return channels.computeIfAbsent(id, Channel::new);
    }

    /**
     * Random facts: each seq of a channel a membership event (now and then a join and a leave at
     * the same seq) or a message from anyone, member or not, root or reply, naming some users and
     * now and then everyone, some deleted; then random reads, floors, follows and settings.
     */
    static ChannelFacts random(Random random, List<Long> users, List<Long> channelIds, int seqs) {
        ChannelFacts facts = new ChannelFacts(users);
        InputField.CountPreference[] preferences = InputField.CountPreference.values();
        for (long id : channelIds) {
            Channel channel = facts.channel(id);
            for (long seq = 1; seq <= seqs; seq++) {
                long user = users.get(random.nextInt(users.size()));
                if (random.nextInt(100) < 18) {
                    channel.memberships.add(new Membership(user, seq, random.nextInt(3) > 0));
                    if (random.nextInt(10) == 0) {
                        channel.memberships.add(new Membership(user, seq, true));
                        channel.memberships.add(new Membership(user, seq, false));
                    }
                    continue;
                }
                List<Long> roots = channel.roots();
                long thread =
                        roots.isEmpty() || random.nextInt(100) < 55
                                ? 0
                                : roots.get(random.nextInt(roots.size()));
                Set<Long> named = new HashSet<>();
                for (long u : users) {
                    if (random.nextInt(100) < 15) {
                        named.add(u);
                    }
                }
                channel.messages.put(
                        seq,
                        new Message(
                                seq,
                                user,
                                thread,
                                named,
                                random.nextInt(100) < 20,
                                random.nextInt(100) < 15));
            }
            channel.lastSeq = seqs;
            List<Long> roots = channel.roots();
            for (long user : users) {
                Member member = channel.member(user);
                member.read = random.nextBoolean() ? 0 : random.nextInt(seqs + 1);
                member.floor = random.nextInt(4) > 0 ? 0 : random.nextInt(seqs + 1);
                member.preference = preferences[random.nextInt(3)];
                member.ignoreAll = random.nextInt(4) == 0;
                member.marked = channel.hasMembership(user) && random.nextInt(5) == 0;
                for (long root : roots) {
                    if (random.nextInt(3) == 0) {
                        member.follows.add(root);
                    }
                    if (random.nextInt(3) == 0) {
                        member.threadReads.put(root, (long) random.nextInt(seqs + 1));
                    }
                }
            }
        }
        return facts;
    }
}
