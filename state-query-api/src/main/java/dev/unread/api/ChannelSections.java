package dev.unread.api;

import dev.unread.api.ChannelCounts.Counts;
import dev.unread.api.ChannelCounts.ThreadCounts;
import dev.unread.contract.ChannelTrack;
import dev.unread.contract.Count;
import dev.unread.contract.InputField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * Adds a member's channel counts to the sections the job's keys gave (docs/contract.md, "Channels
 * in Redis"): each channel and followed thread where the job's hashes have a conversation's, and
 * into the totals by the rules of versions 2 to 4, which {@code unread:totals:{userId}} leaves
 * channels out of; the channel's mark comes from the user's marked set, read with the other keys.
 */
final class ChannelSections {

    private ChannelSections() {}

    /**
     * {@code sections} with the channels' counts in: {@link CountSection}'s values, numbers and
     * objects in numeric order of their keys.
     */
    static void add(
            Map<String, Object> sections,
            SortedMap<Long, ChannelTrack> tracks,
            SortedMap<Long, Counts> channels,
            Map<String, ThreadCounts> threads) {
        if (channels.isEmpty()) {
            return;
        }
        Set<Long> marked = new HashSet<>();
        for (Object id : (List<?>) sections.get(Count.MARKED.section())) {
            marked.add((Long) id);
        }
        Totals added = totals(tracks, channels, threads, marked);
        for (Count count : Count.values()) {
            switch (count) {
                case SENDERS, MARKED -> {}
                case CONVERSATION -> put(sections, count, byChannel(channels, Counts::unread));
                case MENTIONS -> put(sections, count, byChannel(channels, Counts::mentions));
                case CHANNEL_MENTIONS ->
                        put(sections, count, byChannel(channels, Counts::channelMentions));
                case THREAD -> put(sections, count, byThread(threads, Counts::unread));
                case THREAD_MENTIONS -> put(sections, count, byThread(threads, Counts::mentions));
                case THREAD_CHANNEL_MENTIONS ->
                        put(sections, count, byThread(threads, Counts::channelMentions));
                case TOTAL_MESSAGES, TOTAL_MENTIONS, TOTAL_CONVERSATIONS, TOTAL_THREADS ->
                        addTotal(sections, count, added);
            }
        }
    }

    private interface Value {
        long of(Counts counts);
    }

    private static Map<String, Long> byChannel(SortedMap<Long, Counts> channels, Value value) {
        Map<String, Long> counts = new LinkedHashMap<>();
        channels.forEach((channel, c) -> counts.put(Long.toString(channel), value.of(c)));
        return counts;
    }

    private static Map<String, Long> byThread(Map<String, ThreadCounts> threads, Value value) {
        Map<String, Long> counts = new LinkedHashMap<>();
        threads.forEach((field, c) -> counts.put(field, value.of(c.counts())));
        return counts;
    }

    /** A channel's count replaces any the job's hash holds for it; a 0 is no field. */
    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> sections, Count count, Map<String, Long> counts) {
        Map<String, Long> section =
                new LinkedHashMap<>((Map<String, Long>) sections.get(count.section()));
        counts.forEach(
                (field, n) -> {
                    if (n == 0) {
                        section.remove(field);
                    } else {
                        section.put(field, n);
                    }
                });
        List<Map.Entry<String, Long>> entries = new ArrayList<>(section.entrySet());
        entries.sort(Comparator.comparing(entry -> ids(entry.getKey()), ChannelSections::byIds));
        Map<String, Long> sorted = new LinkedHashMap<>();
        entries.forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
        sections.put(count.section(), sorted);
    }

    /** A field's ids: {@code {C}} or {@code {C}:{T}}, which CountSection already read as such. */
    private static long[] ids(String field) {
        int colon = field.indexOf(':');
        return colon < 0
                ? new long[] {Long.parseLong(field), 0}
                : new long[] {
                    Long.parseLong(field.substring(0, colon)),
                    Long.parseLong(field.substring(colon + 1))
                };
    }

    private static int byIds(long[] a, long[] b) {
        return a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]);
    }

    /** What the channels add to each of the totals. */
    private record Totals(long messages, long mentions, long conversations, long threads) {}

    private static Totals totals(
            SortedMap<Long, ChannelTrack> tracks,
            SortedMap<Long, Counts> channels,
            Map<String, ThreadCounts> threads,
            Set<Long> marked) {
        long messages = 0;
        long mentions = 0;
        long conversations = 0;
        long followed = 0;
        for (Map.Entry<Long, Counts> entry : channels.entrySet()) {
            InputField.CountPreference preference = tracks.get(entry.getKey()).preference();
            Counts c = entry.getValue();
            messages += preference == InputField.CountPreference.ALL ? c.unread() : 0;
            mentions += preference == InputField.CountPreference.NONE ? 0 : c.mentions();
            conversations +=
                    conversationCounts(preference, c) || marked.contains(entry.getKey()) ? 1 : 0;
        }
        for (ThreadCounts thread : threads.values()) {
            mentions +=
                    thread.preference() == InputField.CountPreference.NONE
                            ? 0
                            : thread.counts().mentions();
            followed += threadCounts(thread.preference(), thread.counts()) ? 1 : 0;
        }
        return new Totals(messages, mentions, conversations, followed);
    }

    @SuppressWarnings("unchecked")
    private static void addTotal(Map<String, Object> sections, Count total, Totals added) {
        long n =
                switch (total) {
                    case TOTAL_MESSAGES -> added.messages();
                    case TOTAL_MENTIONS -> added.mentions();
                    case TOTAL_CONVERSATIONS -> added.conversations();
                    case TOTAL_THREADS -> added.threads();
                    case SENDERS,
                            CONVERSATION,
                            MENTIONS,
                            CHANNEL_MENTIONS,
                            MARKED,
                            THREAD,
                            THREAD_MENTIONS,
                            THREAD_CHANNEL_MENTIONS ->
                            throw new IllegalStateException(total + " is not a total");
                };
        Map<String, Long> totals =
                new LinkedHashMap<>((Map<String, Long>) sections.get(total.section()));
        totals.merge(total.totalField(), n, Long::sum);
        sections.put(total.section(), totals);
    }

    /** Whether a channel enters the totals' {@code conversations}, its mark aside. */
    private static boolean conversationCounts(InputField.CountPreference preference, Counts c) {
        return switch (preference) {
            case ALL -> c.unread() > 0;
            case MENTIONS -> c.mentions() > 0;
            case NONE -> false;
        };
    }

    /** Whether a followed thread enters the totals' {@code threads}. */
    private static boolean threadCounts(InputField.CountPreference preference, Counts c) {
        return switch (preference) {
            case ALL -> c.unread() > 0 || c.mentions() > 0;
            case MENTIONS -> c.mentions() > 0;
            case NONE -> false;
        };
    }
}
