package dev.unread.testing;

import dev.unread.events.ChatEvent;
import dev.unread.events.OwnMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.util.Collector;

/** Threads added to a stream of {@code chat-messages} and {@code chat-reads} events, for tests. */
public final class ThreadStreams {

    private ThreadStreams() {}

    /**
     * The events with threads in their conversations: replies to some of each conversation's
     * messages between its users, some mentioning their receiver or the whole channel, some naming
     * their root's sender ({@code rootSenderId}) and some not, edits of them (some tied), thread
     * reads and follows (setAt from a few values about the replies' sentAt, so follows tie with
     * each other and with replies, and come before and after them). Reply seqs lie past every seq
     * and readSeq the events have, so no conversation read of these events passes a reply; {@link
     * #readsPastReplies} adds such reads.
     */
    public static List<ChatEvent> withThreads(Random random, List<ChatEvent> events) {
        List<ChatEvent> result = new ArrayList<>(events);
        result.addAll(threads(random, events));
        return result;
    }

    /**
     * At least {@code count} thread events for {@code events} (fewer only when its conversations
     * have too few users for threads), in rounds of {@link #threads}, each round's seqs past those
     * of the rounds before: one round replies only a few times in each conversation.
     */
    public static List<ChatEvent> threads(Random random, List<ChatEvent> events, int count) {
        List<ChatEvent> all = new ArrayList<>(events);
        for (int round = 0; round < 100 && all.size() - events.size() < count; round++) {
            all.addAll(threads(random, all));
        }
        return new ArrayList<>(all.subList(events.size(), all.size()));
    }

    /** The thread events {@link #withThreads} adds to {@code events}, without them. */
    public static List<ChatEvent> threads(Random random, List<ChatEvent> events) {
        Map<Long, TreeSet<Long>> users = new TreeMap<>();
        Map<Long, TreeSet<Long>> roots = new TreeMap<>();
        Map<Long, Long> top = new TreeMap<>();
        Map<String, Long> senders = new TreeMap<>();
        long time = 1;
        for (ChatEvent e : events) {
            time = Math.max(time, e.time);
            if (!e.hasConversation()) {
                continue;
            }
            top.merge(e.conversationId, e.seq, Math::max);
            if (e.kind == ChatEvent.Kind.MESSAGE) {
                TreeSet<Long> in = users.computeIfAbsent(e.conversationId, c -> new TreeSet<>());
                in.add(e.userId);
                in.add(e.senderId);
                roots.computeIfAbsent(e.conversationId, c -> new TreeSet<>()).add(e.seq);
                senders.putIfAbsent(e.conversationId + ":" + e.seq, e.senderId);
            }
        }
        List<ChatEvent> result = new ArrayList<>();
        for (Map.Entry<Long, TreeSet<Long>> conversation : roots.entrySet()) {
            long c = conversation.getKey();
            Long[] who = users.get(c).toArray(new Long[0]);
            if (who.length < 2 || random.nextInt(4) == 0) {
                continue;
            }
            Long[] candidates = conversation.getValue().toArray(new Long[0]);
            long seq = top.get(c);
            int replies = 1 + random.nextInt(8);
            for (int i = 0; i < replies; i++) {
                long root = candidates[random.nextInt(Math.min(2, candidates.length))];
                long sender = who[random.nextInt(who.length)];
                seq++;
                long sentAt = time + random.nextInt(5);
                // A producer of version 4 names the root's sender; one of version 3 does not.
                boolean named = random.nextBoolean();
                boolean mentionsAll = random.nextInt(5) == 0;
                for (long receiver : who) {
                    if (receiver != sender && random.nextInt(3) != 0) {
                        ChatEvent reply =
                                ChatEvent.reply(
                                        sender,
                                        receiver,
                                        c,
                                        seq,
                                        root,
                                        sentAt,
                                        random.nextInt(4) == 0);
                        if (named && random.nextInt(4) != 0) {
                            reply.rootSenderId = senders.get(c + ":" + root);
                        }
                        reply.mentionsAll = mentionsAll;
                        result.add(reply);
                    }
                    // Edits of the reply, to receivers it reached or not, tied now and then.
                    for (int e = random.nextInt(6) == 0 ? 1 + random.nextInt(2) : 0; e > 0; e--) {
                        result.add(
                                ChatEvent.edited(
                                        receiver,
                                        c,
                                        seq,
                                        root,
                                        time + random.nextInt(3),
                                        random.nextInt(3) == 0,
                                        random.nextInt(4) == 0));
                    }
                }
            }
            for (int i = random.nextInt(4); i > 0; i--) {
                long root = candidates[random.nextInt(Math.min(2, candidates.length))];
                result.add(
                        ChatEvent.threadRead(
                                who[random.nextInt(who.length)],
                                c,
                                root,
                                root + random.nextInt((int) (seq - root + 1)),
                                time + random.nextInt(5)));
            }
            for (int i = random.nextInt(4); i > 0; i--) {
                long root = candidates[random.nextInt(Math.min(2, candidates.length))];
                result.add(
                        ChatEvent.threadFollowed(
                                who[random.nextInt(who.length)],
                                c,
                                root,
                                random.nextBoolean(),
                                time + random.nextInt(5)));
            }
        }
        return result;
    }

    /**
     * Conversation reads by receivers of the replies in {@code events}, about one reply in three,
     * each up to that reply's seq or a little past it. With a deletion of the reply, they make the
     * order in which only the conversation's stage can tell the reply deleted: its deletion and a
     * conversation cursor past it both before the reply (the user's own memory of the deletion ends
     * at the conversation cursor, which does not govern a reply). Tests that run the counter
     * without that stage leave them out.
     */
    public static List<ChatEvent> readsPastReplies(Random random, List<ChatEvent> events) {
        List<ChatEvent> reads = new ArrayList<>();
        for (ChatEvent e : events) {
            if (e.kind == ChatEvent.Kind.MESSAGE && e.isReply() && random.nextInt(3) == 0) {
                reads.add(
                        ChatEvent.conversationRead(
                                e.userId,
                                e.conversationId,
                                e.seq + random.nextInt(3),
                                e.time + random.nextInt(3)));
            }
        }
        return reads;
    }

    /**
     * The events with the copies the job sends each reply's sender ({@link OwnMessages}), as a job
     * without {@code --track-root-senders}.
     */
    public static List<ChatEvent> withOwnCopies(List<ChatEvent> events) {
        return withOwnCopies(events, false);
    }

    /** The same for a job with {@code --track-root-senders} ({@code track}) or without. */
    public static List<ChatEvent> withOwnCopies(List<ChatEvent> events, boolean track) {
        List<ChatEvent> result = new ArrayList<>(events);
        OwnMessages own = new OwnMessages(track);
        Collector<ChatEvent> out =
                new Collector<>() {
                    @Override
                    public void collect(ChatEvent record) {
                        result.add(record);
                    }

                    @Override
                    public void close() {}
                };
        for (ChatEvent e : events) {
            own.flatMap(e, out);
        }
        return result;
    }
}
