package dev.unread.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.ConversationParser;
import dev.unread.events.EventParser;
import dev.unread.events.InvalidRecordException;
import dev.unread.generator.TrafficRecord.Malformed;
import dev.unread.generator.TrafficRecord.Topic;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The generator's records against its {@link Workload}: each property is measured on the records
 * themselves by an independent count, not read from the generator's own counters.
 */
class TrafficGeneratorTest {

    private static final long START = 1_767_225_600_000L;
    private static final int RECORDS = 100_000;

    private final EventParser parser = new EventParser();

    @Test
    void theSameSeedGivesTheSameRecordsAndAnotherSeedOthers() {
        Workload workload = Workload.builder().seed(42).malformedShare(0.01).build();

        List<TrafficRecord> first = generate(workload, 50_000);
        List<TrafficRecord> again = generate(workload, 50_000);
        List<TrafficRecord> other = generate(workload.toBuilder().seed(43).build(), 50_000);

        assertThat(again).as("seed 42").isEqualTo(first);
        assertThat(other).isNotEqualTo(first);
    }

    @Test
    void validRecordsParseToTheirEventAndMalformedOnesAreRefused() {
        Workload workload = Workload.builder().seed(7).malformedShare(0.01).build();
        Map<Malformed, Integer> kinds = new EnumMap<>(Malformed.class);
        List<String> wrong = new ArrayList<>();

        for (TrafficRecord record : generate(workload, RECORDS)) {
            ChatEvent parsed;
            try {
                parsed = parse(record);
            } catch (InvalidRecordException e) {
                parsed = null;
            }
            if (record.valid()) {
                Topic topic =
                        record.event().kind == ChatEvent.Kind.MESSAGE
                                ? Topic.MESSAGES
                                : Topic.READS;
                if (!record.event().equals(parsed)
                        || !utf8(record.key()).equals(Long.toString(record.event().userId))
                        || record.topic() != topic) {
                    wrong.add(record + " parsed as " + parsed);
                }
            } else {
                if (parsed != null) {
                    wrong.add(record + " accepted as " + parsed);
                }
                kinds.merge(record.malformed(), 1, Integer::sum);
            }
        }

        assertThat(wrong).as("seed 7").isEmpty();
        assertThat(kinds).containsOnlyKeys(Malformed.values());
    }

    @Test
    void theShareOfMalformedRecordsIsTheWorkloads() {
        for (double share : new double[] {0.0, 0.002, 0.05}) {
            Workload workload = Workload.builder().seed(11).malformedShare(share).build();

            TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
            long malformed = 0;
            for (int i = 0; i < RECORDS; i++) {
                malformed += generator.next().valid() ? 0 : 1;
            }

            // Four standard deviations of a binomial count.
            double tolerance = 4 * Math.sqrt(share * (1 - share) / RECORDS);
            assertThat((double) malformed / RECORDS)
                    .as("seed 11, share %s", share)
                    .isCloseTo(share, within(tolerance + 1e-9));
        }
    }

    @Test
    void measuredRedundancyIsTheWorkloadsWhateverTheMix() {
        // A receiver's first message is never redundant: with 2,000 receivers the first messages
        // are a small part of 200,000 records, so the share must be reached within them.
        Workload base = Workload.builder().receivers(2000).build();
        List<Workload> workloads =
                List.of(
                        base.toBuilder().seed(3).build(),
                        base.toBuilder().seed(4).redundancy(0.5).inboxOpenRate(0.1).build(),
                        base.toBuilder().seed(5).redundancy(0.75).conversationShare(0).build(),
                        base.toBuilder()
                                .seed(6)
                                .redundancy(0.9)
                                .conversationShare(1)
                                .groupShare(1)
                                .groupSize(12)
                                .build());
        for (Workload workload : workloads) {
            TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
            Map<Long, Set<Long>> wroteSinceOpen = new HashMap<>();
            long messages = 0;
            long redundant = 0;
            for (int i = 0; i < 2 * RECORDS; i++) {
                ChatEvent e = generator.next().event();
                if (e == null) {
                    continue;
                }
                if (e.kind == ChatEvent.Kind.INBOX_OPENED) {
                    wroteSinceOpen.remove(e.userId);
                } else if (e.kind == ChatEvent.Kind.MESSAGE) {
                    messages++;
                    if (!wroteSinceOpen
                            .computeIfAbsent(e.userId, u -> new HashSet<>())
                            .add(e.senderId)) {
                        redundant++;
                    }
                }
            }

            assertThat((double) redundant / messages)
                    .as("%s", workload)
                    .isCloseTo(workload.redundancy(), within(0.005));
        }
    }

    @Test
    void receiversFollowZipfsLawWithTheWorkloadsExponent() {
        int receivers = 1000;
        for (double skew : new double[] {0.0, 0.6, 1.0, 1.3}) {
            // Messages outside conversations only: every receiver is drawn by rank.
            Workload workload =
                    Workload.builder()
                            .seed(9)
                            .receivers(receivers)
                            .receiverSkew(skew)
                            .conversationShare(0)
                            .malformedShare(0)
                            .build();
            TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
            Map<Long, Integer> perReceiver = new HashMap<>();
            long messages = 0;
            for (int i = 0; i < 2 * RECORDS; i++) {
                ChatEvent e = generator.next().event();
                if (e.kind == ChatEvent.Kind.MESSAGE) {
                    perReceiver.merge(e.userId, 1, Integer::sum);
                    messages++;
                }
            }

            for (int rank : new int[] {0, 1, 9, 99}) {
                double expected = ZipfSampler.probability(rank + 1, receivers, skew);
                double measured =
                        perReceiver.getOrDefault(generator.receiverOfRank(rank), 0)
                                / (double) messages;
                double tolerance = 4 * Math.sqrt(expected * (1 - expected) / messages);
                assertThat(measured)
                        .as("seed 9, skew %s, rank %d", skew, rank)
                        .isCloseTo(expected, within(tolerance));
            }
            // The exponent itself: the slope of log(count) over log(rank), ranks 1 to 100.
            double[] x = new double[100];
            double[] y = new double[100];
            for (int rank = 0; rank < 100; rank++) {
                x[rank] = Math.log(rank + 1);
                y[rank] = Math.log(perReceiver.get(generator.receiverOfRank(rank)));
            }
            assertThat(-slope(x, y)).as("seed 9, skew %s", skew).isCloseTo(skew, within(0.05));
        }
    }

    @Test
    void aGroupMessageReachesEveryOtherMemberWithOneConversationIdSeqAndTime() {
        int groupSize = 6;
        Workload workload =
                Workload.builder()
                        .seed(13)
                        .receivers(6000)
                        .conversationShare(1)
                        .groupShare(1)
                        .groupSize(groupSize)
                        .malformedShare(0)
                        .build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        Map<Long, Set<Long>> membersOf = new HashMap<>();
        List<ChatEvent> batch = new ArrayList<>();
        long groupMessages = 0;
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e.kind != ChatEvent.Kind.MESSAGE) {
                // Nothing comes between the records of one group message.
                assertThat(batch).as("seed 13, record %d", i).isEmpty();
                continue;
            }
            batch.add(e);
            if (batch.size() < groupSize - 1) {
                continue;
            }
            ChatEvent first = batch.get(0);
            Set<Long> members = new HashSet<>();
            members.add(first.senderId);
            for (ChatEvent b : batch) {
                if (b.conversationId != first.conversationId
                        || b.seq != first.seq
                        || b.time != first.time
                        || b.senderId != first.senderId
                        || !members.add(b.userId)) {
                    throw new AssertionError("seed 13: not one group message: " + batch);
                }
            }
            assertThat(members).hasSize(groupSize);
            Set<Long> known = membersOf.putIfAbsent(first.conversationId, members);
            if (known != null) {
                assertThat(members).as("one group, one membership").isEqualTo(known);
            }
            groupMessages++;
            batch.clear();
        }

        assertThat(groupMessages).isGreaterThan(RECORDS / groupSize / 2);
        // Groups are disjoint: no user is in two.
        Set<Long> everyone = new HashSet<>();
        membersOf.values().forEach(m -> assertThat(everyone.addAll(m)).isTrue());
    }

    @Test
    void seqsRiseByOnePerConversationAndReadsNeverPassThem() {
        Workload workload = Workload.builder().seed(17).build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        Map<Long, Long> seqOf = new HashMap<>();
        Map<Long, Set<Long>> participants = new HashMap<>();
        long reads = 0;
        long behind = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e == null
                    || e.kind == ChatEvent.Kind.INBOX_OPENED
                    || e.kind == ChatEvent.Kind.CONVERSATION_PREFERENCE
                    || e.kind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.CONVERSATION_READ) {
                long current = seqOf.getOrDefault(e.conversationId, 0L);
                if (e.seq < 0 || e.seq > current) {
                    wrong.add(e + " beyond seq " + current);
                }
                reads++;
                behind += e.seq < current ? 1 : 0;
                continue;
            }
            if (!e.hasConversation()) {
                continue;
            }
            long previous = seqOf.getOrDefault(e.conversationId, 0L);
            // The next message's seq, or the same seq again for the next member of a group.
            if (e.seq != previous && e.seq != previous + 1) {
                wrong.add(e + " after seq " + previous);
            }
            seqOf.put(e.conversationId, e.seq);
            Set<Long> people = participants.computeIfAbsent(e.conversationId, c -> new HashSet<>());
            people.add(e.senderId);
            people.add(e.userId);
        }

        assertThat(wrong).as("seed 17").isEmpty();
        assertThat(reads).isGreaterThan(0);
        assertThat((double) behind / reads)
                .isCloseTo(TrafficGenerator.READ_BEHIND_SHARE, within(0.03));
        // One-to-one conversations hold both directions; groups their members.
        assertThat(participants.values())
                .extracting(Set::size)
                .allSatisfy(size -> assertThat(size).isIn(2, workload.groupSize()));
        assertThat(participants.values()).extracting(Set::size).contains(2, workload.groupSize());
    }

    @Test
    void inboxOpensAndConversationReadsComeAtTheWorkloadsRatePerMessage() {
        Workload workload =
                Workload.builder().seed(19).inboxOpenRate(0.03).conversationReadRate(0.08).build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        long messages = 0;
        long opens = 0;
        long reads = 0;
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e == null) {
                continue;
            }
            switch (e.kind) {
                case MESSAGE -> messages++;
                case INBOX_OPENED -> opens++;
                default -> reads++;
            }
        }

        assertThat((double) opens / messages).as("seed 19").isCloseTo(0.03, within(0.003));
        // A little under: a reader without any conversation message yet reads nothing.
        assertThat((double) reads / messages).as("seed 19").isCloseTo(0.08, within(0.008));
    }

    @Test
    void timeFollowsTheClockAndEverythingAfterAnInboxOpenIsLater() {
        // A clock that stays on one millisecond for 1000 readings: the worst case for ordering.
        AtomicLong readings = new AtomicLong();
        AtomicLong lastReading = new AtomicLong();
        TrafficGenerator generator =
                new TrafficGenerator(
                        Workload.builder().seed(23).inboxOpenRate(0.2).build(),
                        () -> {
                            lastReading.set(START + readings.incrementAndGet() / 1000);
                            return lastReading.get();
                        });
        long previous = 0;
        long lastOpen = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e == null) {
                continue;
            }
            if (e.time < previous
                    || e.kind == ChatEvent.Kind.MESSAGE && lastOpen > 0 && e.time <= lastOpen) {
                wrong.add(e + " after " + previous + ", last open at " + lastOpen);
            }
            if (e.kind == ChatEvent.Kind.INBOX_OPENED) {
                lastOpen = e.time;
            }
            previous = e.time;
        }

        assertThat(wrong).as("seed 23").isEmpty();
        // Ahead of the clock by at most one millisecond per open.
        assertThat(previous)
                .isBetween(lastReading.get(), lastReading.get() + generator.inboxOpens());
    }

    @Test
    void someMessagesMentionTheirReceiverAndSomeReadStepsSetPreferencesOrMarks() {
        TrafficGenerator generator =
                TrafficGenerator.synthetic(Workload.builder().seed(23).build(), START, 1000);
        long mentioned = 0;
        long preferences = 0;
        long marks = 0;
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e == null) {
                continue;
            }
            mentioned += e.mentioned ? 1 : 0;
            preferences += e.kind == ChatEvent.Kind.CONVERSATION_PREFERENCE ? 1 : 0;
            marks += e.kind == ChatEvent.Kind.CONVERSATION_MARKED_UNREAD ? 1 : 0;
        }
        assertThat(mentioned).isPositive();
        assertThat(preferences).isPositive().isEqualTo(generator.preferences());
        assertThat(marks).isPositive().isEqualTo(generator.marks());
    }

    @Test
    void aShareOfTheReadStepsMarkAllReadAndNoneWithoutIt() {
        TrafficGenerator without =
                TrafficGenerator.synthetic(Workload.builder().seed(23).build(), START, 1000);
        TrafficGenerator with =
                TrafficGenerator.synthetic(
                        Workload.builder().seed(23).allReadShare(0.5).build(), START, 1000);
        long allReads = 0;
        long reads = 0;
        long lastAllRead = 0;
        for (int i = 0; i < RECORDS; i++) {
            assertThat(without.next().event())
                    .satisfiesAnyOf(
                            e -> assertThat(e).isNull(),
                            e -> assertThat(e.kind).isNotEqualTo(ChatEvent.Kind.ALL_READ));
            ChatEvent e = with.next().event();
            if (e == null) {
                continue;
            }
            if (e.kind == ChatEvent.Kind.ALL_READ) {
                allReads++;
                lastAllRead = e.time;
            } else {
                // Everything after a mark is later than it, so it covers what came before.
                assertThat(e.time).isGreaterThan(lastAllRead);
            }
            reads +=
                    e.kind == ChatEvent.Kind.INBOX_OPENED
                                    || e.kind == ChatEvent.Kind.CONVERSATION_READ
                            ? 1
                            : 0;
        }
        assertThat(allReads).isEqualTo(with.allReads());
        assertThat((double) allReads / (allReads + reads)).isBetween(0.35, 0.65);
        assertThat(without.allReads()).isZero();
    }

    @Test
    void theSyntheticClockStampsRecordsAtTheGivenRate() {
        TrafficGenerator generator =
                TrafficGenerator.synthetic(
                        Workload.builder().seed(29).inboxOpenRate(0).build(), START, 500);
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ChatEvent e = generator.next().event();
            if (e != null) {
                times.add(e.time);
            }
        }

        assertThat(times.get(0)).isEqualTo(START);
        assertThat(times.get(times.size() - 1)).isBetween(START + 1990, START + 1998);
    }

    @Test
    void userIdsFollowTheRanksFromTheFirstUserId() {
        Workload workload = Workload.builder().seed(31).receivers(1000).firstUserId(500).build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        Map<Long, Integer> perReceiver = new HashMap<>();
        for (int i = 0; i < RECORDS; i++) {
            ChatEvent e = generator.next().event();
            if (e != null && e.kind == ChatEvent.Kind.MESSAGE) {
                perReceiver.merge(e.userId, 1, Integer::sum);
            }
        }

        assertThat(generator.mostActiveReceiver()).isEqualTo(500);
        assertThat(generator.receiverOfRank(999)).isEqualTo(1499);
        assertThat(perReceiver.keySet()).allSatisfy(id -> assertThat(id).isBetween(500L, 1499L));
        // Group messages reach every member, so only the top of the ranking is sharp.
        assertThat(perReceiver.get(500L)).isGreaterThan(perReceiver.get(501L));
        assertThat(perReceiver.get(501L)).isGreaterThan(perReceiver.get(510L));
        assertThat(perReceiver.get(510L)).isGreaterThan(perReceiver.getOrDefault(1400L, 0));
    }

    @Test
    void impossibleWorkloadsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> Workload.builder().redundancy(1.5).build())
                .hasMessageContaining("redundancy must be in 0..1, was 1.5");
        assertThatThrownBy(() -> Workload.builder().receivers(30).friends(40).build())
                .hasMessageContaining("receivers must be > 2 * max(friends / 2, groupSize - 1)");
        assertThatThrownBy(() -> Workload.builder().groupSize(2).build())
                .hasMessageContaining("groupSize must be >= 3");
        assertThatThrownBy(() -> Workload.builder().malformedShare(1).build())
                .hasMessageContaining("malformedShare must be >= 0 and < 1");
        assertThatThrownBy(() -> Workload.builder().receiverSkew(-1).build())
                .hasMessageContaining("receiverSkew must be >= 0");
        assertThatThrownBy(() -> TrafficGenerator.synthetic(Workload.defaults(), START, 0))
                .hasMessageContaining("recordsPerSecond must be > 0");
    }

    /** The least-squares slope of y over x. */
    private static double slope(double[] x, double[] y) {
        double mx = 0;
        double my = 0;
        for (int i = 0; i < x.length; i++) {
            mx += x[i] / x.length;
            my += y[i] / y.length;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxy / sxx;
    }

    /** The largest published groups are channels, each declared once before its first join. */
    @Test
    void publishedGroupsOfTheChannelSizeAreDeclaredChannelsBeforeTheirMembersJoin()
            throws Exception {
        Workload workload =
                Workload.builder()
                        .seed(11)
                        .receivers(5_000)
                        .publishedGroupShare(0.2)
                        .publishedGroups(12)
                        .publishedGroupMaxSize(2_000)
                        .channelMinSize(500)
                        .build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        ConversationParser conversations = new ConversationParser();
        Set<Long> declared = new HashSet<>();
        Set<Long> started = new HashSet<>();
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (record.topic() != Topic.CONVERSATIONS) {
                continue;
            }
            ConversationEvent event = conversations.parse(record.value());
            long conversation = event.conversationId;
            int rank = (int) (conversation - generator.publishedGroupConversation(0));
            if (event.kind == ConversationEvent.Kind.CHANNEL) {
                if (started.contains(conversation) || !declared.add(conversation)) {
                    wrong.add(record + ": declared after its records or twice");
                }
                if (!generator.isChannel(rank) || generator.publishedGroupSize(rank) < 500) {
                    wrong.add(record + ": a group of " + generator.publishedGroupSize(rank));
                }
                continue;
            }
            if (started.add(conversation)
                    && rank >= 0
                    && generator.isChannel(rank) != declared.contains(conversation)) {
                wrong.add(record + ": the first record of a channel not declared");
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(declared).isNotEmpty();
        assertThat(started).hasSizeGreaterThan(declared.size());
    }

    @Test
    void publishedGroupsJoinEveryMemberBeforeTheirFirstMessageAndParse() throws Exception {
        Workload workload =
                Workload.builder()
                        .seed(11)
                        .receivers(5_000)
                        .publishedGroupShare(0.2)
                        .deletedShare(0.02)
                        .publishedGroups(12)
                        .publishedGroupMaxSize(2_000)
                        .malformedShare(0.01)
                        .build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        ConversationParser conversations = new ConversationParser();
        Map<Long, Set<Long>> joined = new HashMap<>();
        Map<Long, Long> lastSeq = new HashMap<>();
        Set<Integer> sizes = new HashSet<>();
        List<String> wrong = new ArrayList<>();
        long messages = 0;
        long chatMessages = 0;
        long inConversations = 0;
        long deletions = 0;
        long deletionReceivers = 0;

        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            if (record.topic() != Topic.CONVERSATIONS) {
                boolean message = record.valid() && record.event().kind == ChatEvent.Kind.MESSAGE;
                chatMessages += message ? 1 : 0;
                inConversations += message && record.event().hasConversation() ? 1 : 0;
                continue;
            }
            ConversationEvent event = conversations.parse(record.value());
            long conversation = event.conversationId;
            if (!utf8(record.key()).equals(Long.toString(conversation))) {
                wrong.add(record + ": key");
            }
            if (event.kind == ConversationEvent.Kind.MESSAGE_DELETED) {
                // Right after its message: a one-to-one conversation's, or this group's last.
                boolean group = conversation >= generator.publishedGroupConversation(0);
                if (group && event.seq != lastSeq.getOrDefault(conversation, 0L)) {
                    wrong.add(record + ": deletes no group message just sent");
                }
                deletions++;
                // A group's members, or a one-to-one conversation's sender and receiver.
                deletionReceivers += group ? joined.get(conversation).size() : 2;
                continue;
            }
            if (event.kind == ConversationEvent.Kind.MEMBER_JOINED) {
                if (lastSeq.containsKey(conversation)) {
                    wrong.add(record + ": a join after the conversation's first message");
                }
                joined.computeIfAbsent(conversation, c -> new HashSet<>()).add(event.userId);
                continue;
            }
            messages++;
            Set<Long> members = joined.getOrDefault(conversation, Set.of());
            int rank = (int) (conversation - generator.publishedGroupConversation(0));
            if (members.size() != generator.publishedGroupSize(rank)
                    || !members.contains(event.senderId)) {
                wrong.add(
                        record
                                + ": "
                                + members.size()
                                + " members joined, sender in them: "
                                + members.contains(event.senderId));
            }
            if (event.seq != lastSeq.getOrDefault(conversation, 1L) + 1) {
                wrong.add(record + ": seq after " + lastSeq.get(conversation));
            }
            lastSeq.put(conversation, event.seq);
            sizes.add(members.size());
        }

        assertThat(wrong).isEmpty();
        assertThat(messages).isEqualTo(generator.publishedMessages()).isPositive();
        // A job tracking root senders copies each message with a conversation to its sender, on
        // either topic; one that does not, only the replies, of which this traffic has none.
        assertThat(generator.trackedOwnCopies()).isEqualTo(inConversations + messages);
        assertThat(generator.replies()).isZero();
        assertThat(generator.ownCopies()).isZero();
        // About 2% of the conversation messages, one-to-one and published.
        assertThat(deletions).isEqualTo(generator.deletions());
        assertThat(deletionReceivers).isEqualTo(generator.deletionDeliveries());
        assertThat((double) deletions / (messages + chatMessages)).isBetween(0.005, 0.03);
        assertThat(joined.values().stream().mapToLong(Set::size).sum())
                .isEqualTo(generator.memberships());
        // About a fifth of the message steps; chat-messages records are more per step.
        assertThat((double) messages / (messages + chatMessages)).isBetween(0.05, 0.3);
        assertThat(sizes).contains(3, 2_000);
        // Zipf by activity: the most active group has the most messages.
        assertThat(lastSeq.get(generator.publishedGroupConversation(0)))
                .isEqualTo(
                        lastSeq.values().stream().mapToLong(Long::longValue).max().orElseThrow());
    }

    /**
     * Edits come right after the message they edit (on chat-messages to its receiver, on
     * chat-conversations for a published group, as the precondition wants), parse as what they are,
     * and about as many messages mention the whole channel.
     */
    @Test
    void editsFollowTheirMessageAndChannelWideMentionsParse() throws Exception {
        Workload workload =
                Workload.builder()
                        .seed(13)
                        .receivers(5_000)
                        .publishedGroupShare(0.2)
                        .publishedGroups(12)
                        .publishedGroupMaxSize(200)
                        .editShare(0.05)
                        .build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        EventParser parser = new EventParser();
        ConversationParser conversations = new ConversationParser();
        List<String> wrong = new ArrayList<>();
        long edits = 0;
        long messages = 0;
        long mentionsAll = 0;
        long lastConversation = -1;
        long lastSeq = -1;
        for (int i = 0; i < RECORDS; i++) {
            TrafficRecord record = generator.next();
            long conversation;
            long seq;
            boolean edit;
            if (record.topic() == Topic.CONVERSATIONS) {
                ConversationEvent event = conversations.parse(record.value());
                if (event.kind != ConversationEvent.Kind.MESSAGE
                        && event.kind != ConversationEvent.Kind.MESSAGE_EDITED) {
                    continue;
                }
                conversation = event.conversationId;
                seq = event.seq;
                edit = event.kind == ConversationEvent.Kind.MESSAGE_EDITED;
                mentionsAll += !edit && event.mentionsAll ? 1 : 0;
            } else {
                if (!record.valid() || record.topic() != Topic.MESSAGES) {
                    continue;
                }
                ChatEvent event = parser.parseMessage(record.value());
                if (!event.hasConversation()) {
                    continue;
                }
                if (!event.equals(record.event())) {
                    wrong.add(record + " parsed as " + event);
                }
                conversation = event.conversationId;
                seq = event.seq;
                edit = event.kind == ChatEvent.Kind.MESSAGE_EDITED;
                mentionsAll += !edit && event.mentionsAll ? 1 : 0;
            }
            if (edit) {
                edits++;
                if (conversation != lastConversation || seq != lastSeq) {
                    wrong.add(record + ": edits no message just sent");
                }
            } else {
                messages++;
            }
            lastConversation = conversation;
            lastSeq = seq;
        }

        assertThat(wrong).isEmpty();
        assertThat(edits).isEqualTo(generator.edits());
        // Records of the groups the producer fans out are never edited (only one-to-one and
        // published messages are) but count among the messages here: fewer than 5%.
        assertThat((double) edits / messages).isBetween(0.01, 0.07);
        assertThat((double) mentionsAll / messages).isBetween(0.01, 0.1);
    }

    @Test
    void withoutPublishedGroupsNothingGoesToTheConversationsTopic() {
        assertThat(generate(Workload.builder().seed(5).build(), 50_000))
                .noneMatch(record -> record.topic() == Topic.CONVERSATIONS);
    }

    private static List<TrafficRecord> generate(Workload workload, int count) {
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, START, 1000);
        List<TrafficRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(generator.next());
        }
        return records;
    }

    private ChatEvent parse(TrafficRecord record) throws InvalidRecordException {
        return record.topic() == Topic.MESSAGES
                ? parser.parseMessage(record.value())
                : parser.parseRead(record.value());
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
