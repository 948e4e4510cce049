package dev.unread.channels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unread.channels.ChannelRedisModel.Counts;
import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every count a reader computes from the channel stage's writes is a function of the set of events:
 * a fixed set of a channel's records and its members' facts (erasure aside, which acts on what the
 * stage holds), shuffled and with duplicates, gives the counts of the run in order.
 */
class ChannelOrderTest {

    private static final long C = 80001;
    private static final int USERS = 5;
    private static final int SEQS = 90;

    /** Between two messages: 37 s, so that marks all read fall in many buckets of the index. */
    private static final long TICK = 37_000;

    @Test
    void anyOrderAndDuplicatesGiveTheCountsOfTheRunInOrder() throws Exception {
        long base = Long.getLong("channel.seed", new Random().nextLong());
        System.out.println("ChannelOrderTest seed " + base);
        long counted = 0;
        for (int round = 0; round < Integer.getInteger("channel.rounds", 6); round++) {
            long seed = base + round;
            List<Object> events = events(new Random(seed));
            Map<String, Counts> inOrder = run(events);
            counted += inOrder.values().stream().filter(c -> c.mentions() > 0).count();
            Random random = new Random(seed ^ 0x5DEECE66DL);
            List<Object> shuffled = new ArrayList<>(events);
            for (Object e : events) {
                if (random.nextInt(5) == 0) {
                    shuffled.add(e);
                }
            }
            Collections.shuffle(shuffled, random);
            Map<String, Counts> any = run(editsAfterTheirMessages(shuffled));
            assertEquals(difference(inOrder, any), difference(any, inOrder), "seed " + seed);
            assertEquals(inOrder, any, "seed " + seed);
        }
        assertTrue(counted > 0, "the events count something");
    }

    /** The entries of {@code a} that {@code b} lacks or counts otherwise. */
    private static Map<String, Counts> difference(Map<String, Counts> a, Map<String, Counts> b) {
        Map<String, Counts> only = new java.util.TreeMap<>(a);
        only.entrySet().removeIf(e -> e.getValue().equals(b.get(e.getKey())));
        return only;
    }

    /** The contract's one order: an edit comes after the message it edits. */
    private static List<Object> editsAfterTheirMessages(List<Object> events) {
        Set<Long> messages = new HashSet<>();
        for (Object e : events) {
            if (e instanceof ConversationEvent m && m.isMessage()) {
                messages.add(m.seq);
            }
        }
        Set<Long> seen = new HashSet<>();
        Map<Long, List<Object>> waiting = new HashMap<>();
        List<Object> ordered = new ArrayList<>();
        for (Object e : events) {
            if (e instanceof ConversationEvent m
                    && m.kind == ConversationEvent.Kind.MESSAGE_EDITED
                    && messages.contains(m.seq)
                    && !seen.contains(m.seq)) {
                waiting.computeIfAbsent(m.seq, s -> new ArrayList<>()).add(e);
                continue;
            }
            ordered.add(e);
            if (e instanceof ConversationEvent m && m.isMessage() && seen.add(m.seq)) {
                ordered.addAll(waiting.getOrDefault(m.seq, List.of()));
            }
        }
        return ordered;
    }

    private static Map<String, Counts> run(List<Object> events) throws Exception {
        try (ChannelStageHarness stage = ChannelStageHarness.open()) {
            for (Object e : events) {
                if (e instanceof ConversationEvent record) {
                    stage.records(record);
                } else {
                    stage.facts((ChatEvent) e);
                }
            }
            Map<String, Counts> counts = new HashMap<>();
            for (long u = 1; u <= USERS; u++) {
                counts.put("u" + u, stage.counts(u, C));
                for (long t = 1; t <= SEQS; t++) {
                    Counts thread = stage.redis.threadCounts(u, C, t);
                    if (!thread.equals(Counts.NONE) || stage.redis.follows(u, C, t)) {
                        counts.put("u" + u + " t" + t, thread);
                    }
                }
            }
            return counts;
        }
    }

    private static List<Object> events(Random random) {
        List<Object> events = new ArrayList<>();
        List<Long> roots = new ArrayList<>();
        for (long seq = 1; seq <= SEQS; seq++) {
            long user = 1 + random.nextInt(USERS);
            if (random.nextInt(5) == 0) {
                events.add(
                        random.nextInt(3) == 0
                                ? ConversationEvent.left(C, user, seq)
                                : ConversationEvent.joined(C, user, seq));
                continue;
            }
            long[] mentions = random.longs(random.nextInt(3), 1, USERS + 1).toArray();
            ConversationEvent m =
                    roots.isEmpty() || random.nextInt(3) > 0
                            ? ConversationEvent.message(C, seq, user, seq * TICK, mentions)
                            : ConversationEvent.reply(
                                    C,
                                    seq,
                                    roots.get(random.nextInt(roots.size())),
                                    user,
                                    seq * TICK,
                                    mentions);
            m.mentionsAll = random.nextInt(5) == 0;
            if (m.threadSeq == 0) {
                roots.add(seq);
            }
            events.add(m);
            if (random.nextInt(6) == 0) {
                events.add(ConversationEvent.deleted(C, seq));
            }
            for (int edits = random.nextInt(3); edits > 0 && random.nextBoolean(); edits--) {
                ConversationEvent edit =
                        ConversationEvent.edited(
                                C,
                                seq,
                                1_000 + random.nextInt(2),
                                random.nextBoolean(),
                                random.longs(random.nextInt(3), 1, USERS + 1).toArray());
                edit.threadSeq = m.threadSeq;
                events.add(edit);
            }
        }
        events.add(ConversationEvent.deleted(C, SEQS + 5));
        for (int i = 0; i < 25; i++) {
            long user = 1 + random.nextInt(USERS);
            long time = (1 + random.nextInt(SEQS * 10)) * TICK / 10;
            events.add(
                    switch (random.nextInt(6)) {
                        case 0, 1 ->
                                ChatEvent.conversationRead(user, C, random.nextInt(SEQS), time);
                        case 2 -> {
                            ChatEvent all = ChatEvent.allRead(user, time);
                            all.conversationId = C;
                            yield all;
                        }
                        case 3 ->
                                ChatEvent.ignoreChannelMentions(
                                        user,
                                        C,
                                        random.nextInt(3),
                                        random.nextBoolean(),
                                        time % 7 + 1);
                        default ->
                                ChatEvent.threadRead(
                                        user,
                                        C,
                                        roots.get(random.nextInt(roots.size())),
                                        random.nextInt(SEQS),
                                        time);
                    });
            if (random.nextInt(3) == 0) {
                events.add(
                        ChatEvent.threadFollowed(
                                user,
                                C,
                                roots.get(random.nextInt(roots.size())),
                                random.nextBoolean(),
                                time % (20 * TICK) + 1));
            }
        }
        return events;
    }
}
