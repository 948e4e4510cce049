package dev.unread.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.testing.ChannelTraffic.Arrival;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ChannelTraffic} keeps the contract's preconditions and nothing more, reaches the hostile
 * orders it is there for, and the oracle's channel counts do not depend on which allowed order the
 * traffic arrives in. Seeds 1..100 (the display name says which failed).
 */
class ChannelTrafficTest {

    private static final long MAX_SEQ = OracleChannels.DEFAULT_MAX_CHANNEL_SEQ;

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 100).boxed();
    }

    /** The traffic of {@code seed} and two of its arrival orders. */
    private record Case(ChannelTraffic.Traffic traffic, List<Arrival> one, List<Arrival> other) {
        static Case of(long seed) {
            Random random = new Random(seed);
            ChannelTraffic channels = new ChannelTraffic(random, 1, 70_001, MAX_SEQ);
            ChannelTraffic.Traffic traffic = channels.traffic(50 + random.nextInt(250), 8);
            return new Case(
                    traffic, channels.published(traffic, 0.2), channels.published(traffic, 0.2));
        }

        Oracle oracle(List<Arrival> order) {
            return Oracle.of(Arrival.facts(order), Arrival.records(order));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void arrivalsKeepThePreconditions(long seed) {
        List<Arrival> order = Case.of(seed).one;
        Set<Long> declared = new HashSet<>();
        Set<String> arrived = new HashSet<>();
        Set<String> messages = new HashSet<>();
        Map<Long, TreeMap<Long, Long>> sentAt = new HashMap<>();
        for (ConversationEvent e : Arrival.records(order)) {
            if (e.isMessage()) {
                messages.add(e.conversationId + "#" + e.seq);
                sentAt.computeIfAbsent(e.conversationId, c -> new TreeMap<>()).put(e.seq, e.sentAt);
            }
        }
        Map<Long, Long> erasedAt = new HashMap<>();
        for (Arrival a : order) {
            ConversationEvent e = a.record();
            if (e == null) {
                if (a.fact().kind == ChatEvent.Kind.USER_ERASED) {
                    erasedAt.putIfAbsent(a.fact().userId, a.fact().time);
                }
                continue;
            }
            assertThat(
                            declared.contains(e.conversationId)
                                    || e.kind == ConversationEvent.Kind.CHANNEL)
                    .as("CHANNEL first: %s", e)
                    .isTrue();
            declared.add(e.conversationId);
            String key = e.conversationId + "#" + e.seq;
            if (e.isMessage()) {
                arrived.add(key);
            }
            if (e.kind == ConversationEvent.Kind.MESSAGE_EDITED && messages.contains(key)) {
                assertThat(arrived).as("edit after its message: %s", e).contains(key);
            }
        }
        sentAt.values().forEach(bySeq -> assertThat(new ArrayList<>(bySeq.values())).isSorted());
        laterEventsComeAfterTheErasure(order);
    }

    /** "An event of U with a time after erasedAt(U)" arrives after the erasure. */
    private static void laterEventsComeAfterTheErasure(List<Arrival> order) {
        Map<Long, Long> erasedAt = new HashMap<>();
        for (Arrival a : order) {
            if (a.fact() != null && a.fact().kind == ChatEvent.Kind.USER_ERASED) {
                erasedAt.putIfAbsent(a.fact().userId, a.fact().time);
            }
        }
        Set<Long> erased = new HashSet<>();
        for (Arrival a : order) {
            ChatEvent f = a.fact();
            ConversationEvent e = a.record();
            if (f != null && f.kind == ChatEvent.Kind.USER_ERASED) {
                erased.add(f.userId);
            }
            List<Long> whose = new ArrayList<>();
            if (f != null) {
                whose.add(f.userId);
            } else if (e.isMessage()) {
                whose.add(e.senderId);
                whose.add(e.rootSenderId);
                for (long named : e.mentions) {
                    whose.add(named);
                }
            }
            for (long user : whose) {
                long time = f != null ? f.time : e.sentAt;
                if (time > erasedAt.getOrDefault(user, Long.MAX_VALUE)) {
                    assertThat(erased).as("after the erasure: %s", a).contains(user);
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theCountsAreTheSameInEveryAllowedOrder(long seed) {
        Case c = Case.of(seed);
        Oracle one = c.oracle(c.one);
        Oracle other = c.oracle(c.other);
        assertThat(one.channels().channels()).isNotEmpty();
        assertThat(counts(one)).isEqualTo(counts(other));
        for (long channel : one.channels().channels()) {
            for (long user : one.channels().users(channel)) {
                OracleChannels.Bounds cursor = one.channels().lastReadSeq(user, channel);
                assertThat(cursor.low()).isLessThanOrEqualTo(cursor.high());
                assertThat(cursor.low())
                        .isGreaterThanOrEqualTo(one.channels().readCursor(user, channel));
            }
        }
    }

    /**
     * Without its CHANNEL records the same traffic is a group's, which the oracle counts by
     * versions 1–4 with the root's sender following by the root itself (--track-root-senders, the
     * replies' rootSenderId taken out, as a channel reads none), and whose ALL_READ and erasure
     * read what the channel's floor hides while sentAt grows with seq. With each send a read of its
     * own (sending reads), the channel and the group count alike, their cursors too, and their
     * mentions where no message has tied edits that differ (tied edits are a channel's).
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aChannelCountsAsAGroupWhereTheirRulesAgree(long seed) {
        List<Arrival> order = Case.of(seed).one;
        List<ConversationEvent> records = Arrival.records(order);
        List<ChatEvent> facts = Arrival.facts(order);
        List<ChatEvent> withSends = new ArrayList<>(facts);
        Set<Long> tied = new HashSet<>();
        Map<String, List<ConversationEvent>> edits = new HashMap<>();
        for (ConversationEvent e : records) {
            if (e.isMessage() && e.seq <= MAX_SEQ) {
                withSends.add(
                        e.threadSeq == 0
                                ? ChatEvent.conversationRead(
                                        e.senderId, e.conversationId, e.seq, e.sentAt)
                                : ChatEvent.threadRead(
                                        e.senderId,
                                        e.conversationId,
                                        e.threadSeq,
                                        e.seq,
                                        e.sentAt));
            } else if (e.kind == ConversationEvent.Kind.MESSAGE_EDITED) {
                edits.computeIfAbsent(e.conversationId + "#" + e.seq, k -> new ArrayList<>())
                        .add(e);
            }
        }
        edits.values()
                .forEach(
                        its -> {
                            long newest = its.stream().mapToLong(e -> e.sentAt).max().getAsLong();
                            if (its.stream().filter(e -> e.sentAt == newest).distinct().count()
                                    > 1) {
                                tied.add(its.get(0).conversationId);
                            }
                        });
        OracleChannels channels = Oracle.of(facts, records).channels();
        Oracle group =
                Oracle.of(
                        withSends,
                        records.stream()
                                .filter(e -> e.kind != ConversationEvent.Kind.CHANNEL)
                                .filter(e -> !e.isMessage() || e.seq <= MAX_SEQ)
                                .map(ChannelTrafficTest::withoutRootSender)
                                .toList(),
                        true);
        long counted = 0;
        for (long c : channels.channels()) {
            for (long u : channels.users(c)) {
                String who = "user " + u + " in " + c;
                counted += channels.unread(u, c) + channels.mentions(u, c);
                assertThat(channels.unread(u, c)).as(who).isEqualTo(group.unread(u, c));
                assertThat(channels.lastReadSeq(u, c).holds(group.lastReadSeq(u, c)))
                        .as(who + " cursor " + channels.lastReadSeq(u, c))
                        .isTrue();
                boolean mentions = !tied.contains(c);
                if (mentions) {
                    assertThat(channels.mentions(u, c)).as(who).isEqualTo(group.mentions(u, c));
                    assertThat(channels.channelMentions(u, c))
                            .as(who)
                            .isEqualTo(group.channelMentions(u, c));
                }
                Set<Long> threads = new TreeSet<>(channels.followedThreads(u, c));
                group
                        .redisThreadHashes("", false)
                        .getOrDefault(Oracle.THREADS_KEY + u, Map.of())
                        .keySet()
                        .stream()
                        .filter(f -> f.startsWith(c + ":"))
                        .forEach(f -> threads.add(Long.parseLong(f.substring(f.indexOf(':') + 1))));
                for (long t : threads) {
                    String thread = who + " thread " + t;
                    assertThat(channels.threadUnread(u, c, t))
                            .as(thread)
                            .isEqualTo(group.threadUnread(u, c, t));
                    counted += channels.threadUnread(u, c, t);
                    if (mentions) {
                        assertThat(channels.threadMentions(u, c, t))
                                .as(thread)
                                .isEqualTo(group.threadMentions(u, c, t));
                    }
                }
            }
        }
        assertThat(counted).as("something to compare").isPositive();
    }

    /** A channel reads no reply's {@code rootSenderId}: the group's copy carries none either. */
    private static ConversationEvent withoutRootSender(ConversationEvent e) {
        if (e.rootSenderId == 0) {
            return e;
        }
        ConversationEvent copy = GroupStreams.copy(e);
        copy.rootSenderId = 0;
        return copy;
    }

    /** Every count of every user in every channel, and the totals a reader adds up, as text. */
    private static Map<String, String> counts(Oracle oracle) {
        OracleChannels channels = oracle.channels();
        Map<String, String> counts = new TreeMap<>();
        for (long c : channels.channels()) {
            for (long u : channels.users(c)) {
                long unread = channels.unread(u, c);
                long mentions = channels.mentions(u, c);
                assertThat(mentions).isBetween(channels.channelMentions(u, c), unread);
                List<Long> threads = new ArrayList<>();
                for (long t : channels.followedThreads(u, c)) {
                    threads.add(t);
                    threads.add(channels.threadUnread(u, c, t));
                    threads.add(channels.threadMentions(u, c, t));
                    threads.add(channels.threadChannelMentions(u, c, t));
                }
                counts.put(
                        c + "/" + u,
                        List.of(
                                        unread,
                                        mentions,
                                        channels.channelMentions(u, c),
                                        channels.floor(u, c))
                                + " threads "
                                + threads
                                + " totals "
                                + java.util.Arrays.toString(oracle.readerTotals(u)));
            }
        }
        return counts;
    }

    /**
     * The traffic of seeds 1..100 reaches each hostile case; else the tests that use it would pass
     * on traffic that never tries them.
     */
    @Test
    void trafficReachesEveryHostileCase() {
        Set<String> seen = new TreeSet<>();
        for (long seed = 1; seed <= 100; seed++) {
            Case c = Case.of(seed);
            ChannelCases.collect(c.one, c.oracle(c.one), seen);
        }
        assertThat(seen).containsExactlyInAnyOrder(ChannelCases.ALL);
    }
}
