package dev.unread.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.ChannelTrack.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The JSON of {@link ChannelTrack} and {@link ThreadTrack} (docs/contract.md, "Channels in Redis"),
 * for the job that writes them and every reader: an absent field is at its default, and a field at
 * its default is not written. Reading refuses what the job never writes, with {@link BadTrack}, in
 * work bounded by {@link #MAX_CHARS}: a hash anyone can write must not make a reader count without
 * end.
 */
public final class TrackJson {

    /** Numbers are below 2^53, so that a reader in JavaScript reads them exactly. */
    public static final long MAX_NUMBER = (1L << 53) - 1;

    /** A track's JSON past this many characters is not the job's. */
    public static final int MAX_CHARS = 65_536;

    /**
     * A track of more membership intervals is not the job's: each is a join and a leave, and each
     * costs a reader two commands.
     */
    public static final int MAX_INTERVALS = 1_024;

    private static final Set<String> PREFERENCES =
            Set.of(
                    InputField.CountPreference.ALL.name(),
                    InputField.CountPreference.MENTIONS.name(),
                    InputField.CountPreference.NONE.name());

    private final ObjectMapper json = new ObjectMapper();

    /** A track's value that is not the job's; its message names the field, never the value. */
    public static final class BadTrack extends IllegalArgumentException {
        BadTrack(String reason) {
            super(reason);
        }
    }

    /**
     * {@code track} as the job writes it. Written directly rather than through a Jackson tree: the
     * channel stage writes a track with every message (its sender's, as sending reads), and the
     * tree's building and serializing took 14% of the stage's thread in a channel of 100,000
     * (docs/benchmarks.md). The fields are numbers, booleans and a preference's name, none of which
     * JSON escapes; {@code TrackJsonTest} checks the text against the tree's.
     */
    public String write(ChannelTrack track) {
        StringBuilder out = new StringBuilder(64).append('{');
        if (!track.members().isEmpty()) {
            out.append("\"members\":[");
            List<Interval> members = track.members();
            for (int i = 0; i < members.size(); i++) {
                Interval interval = members.get(i);
                out.append(i == 0 ? "[" : ",[").append(interval.from());
                if (!interval.open()) {
                    out.append(',').append(interval.to());
                }
                out.append(']');
            }
            out.append(']');
        }
        number(out, "read", track.read());
        number(out, "floor", track.floor());
        number(out, "named", track.named());
        number(out, "namedAll", track.namedAll());
        if (track.preference() != InputField.CountPreference.ALL) {
            field(out, "preference").append('"').append(track.preference().name()).append('"');
        }
        if (track.ignoreAll()) {
            field(out, "ignoreAll").append("true");
        }
        if (track.left()) {
            field(out, "left").append("true");
        }
        return out.append('}').toString();
    }

    /** {@code track} as the job writes it; directly, as {@link #write(ChannelTrack)}. */
    public String write(ThreadTrack track) {
        StringBuilder out = new StringBuilder(48).append('{');
        number(out, "read", track.read());
        number(out, "named", track.named());
        number(out, "namedAll", track.namedAll());
        return out.append('}').toString();
    }

    /** A number field, left out at 0, its default. */
    private static void number(StringBuilder out, String name, long value) {
        if (value != 0) {
            field(out, name).append(value);
        }
    }

    /** {@code "name":}, after a comma unless it is the object's first field. */
    private static StringBuilder field(StringBuilder out, String name) {
        if (out.length() > 1) {
            out.append(',');
        }
        return out.append('"').append(name).append("\":");
    }

    /**
     * A channel's track.
     *
     * @throws BadTrack for text the job never writes: not a JSON object, a field of the wrong type,
     *     a number out of range, intervals out of order or overlapping, an open one not last
     */
    public ChannelTrack readChannel(String text) {
        JsonNode node = object(text);
        return new ChannelTrack(
                members(node.get("members")),
                number(node, "read"),
                number(node, "floor"),
                number(node, "named"),
                number(node, "namedAll"),
                preference(node.get("preference")),
                bool(node, "ignoreAll"),
                bool(node, "left"));
    }

    /**
     * A followed thread's track.
     *
     * @throws BadTrack as {@link #readChannel}
     */
    public ThreadTrack readThread(String text) {
        JsonNode node = object(text);
        return new ThreadTrack(
                number(node, "read"), number(node, "named"), number(node, "namedAll"));
    }

    private JsonNode object(String text) {
        if (text == null || text.length() > MAX_CHARS) {
            throw new BadTrack("absent or longer than " + MAX_CHARS + " characters");
        }
        JsonNode node;
        try {
            node = json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadTrack("not JSON");
        }
        if (node == null || !node.isObject()) {
            throw new BadTrack("not a JSON object");
        }
        return node;
    }

    private static long number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return 0;
        }
        return inRange(value, field);
    }

    private static long inRange(JsonNode value, String field) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new BadTrack(field + " is not an integer");
        }
        long n = value.asLong();
        if (n < 0 || n > MAX_NUMBER) {
            throw new BadTrack(field + " is out of range");
        }
        return n;
    }

    private static boolean bool(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new BadTrack(field + " is not a boolean");
        }
        return value.asBoolean();
    }

    private static InputField.CountPreference preference(JsonNode value) {
        if (value == null || value.isNull()) {
            return InputField.CountPreference.ALL;
        }
        if (!value.isTextual() || !PREFERENCES.contains(value.asText())) {
            throw new BadTrack("preference is not ALL, MENTIONS or NONE");
        }
        return InputField.CountPreference.valueOf(value.asText());
    }

    private static List<Interval> members(JsonNode value) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || value.size() > MAX_INTERVALS) {
            throw new BadTrack("members is not an array of at most " + MAX_INTERVALS);
        }
        List<Interval> members = new ArrayList<>(value.size());
        long after = 0;
        for (int i = 0; i < value.size(); i++) {
            JsonNode pair = value.get(i);
            boolean last = i == value.size() - 1;
            if (!pair.isArray()
                    || pair.size() < 1
                    || pair.size() > 2
                    || (pair.size() == 1 && !last)) {
                throw new BadTrack("members holds an interval that is not [a,b], or [a] last");
            }
            long from = inRange(pair.get(0), "members");
            long to = pair.size() == 2 ? inRange(pair.get(1), "members") : Interval.OPEN;
            if (from <= after || to < from) {
                throw new BadTrack("members' intervals are not in rising order apart");
            }
            members.add(new Interval(from, to));
            after = to;
        }
        return members;
    }

    /**
     * The tracks of one {@code chat:channel-tracks:{userId}} hash, by field: each channel's, and
     * each followed thread's by {@link RedisNames#threadField}. A field or value that is not the
     * job's is left out and handed to {@code skipped} by its field, without its value.
     */
    public Tracks readAll(Map<String, String> hash, Consumer<String> skipped) {
        Tracks tracks = new Tracks(new TreeMap<>(), new TreeMap<>());
        hash.forEach(
                (field, value) -> {
                    try {
                        int colon = field.indexOf(':');
                        if (colon < 0) {
                            tracks.channels().put(id(field), readChannel(value));
                        } else {
                            long channel = id(field.substring(0, colon));
                            long thread = id(field.substring(colon + 1));
                            tracks.threads()
                                    .computeIfAbsent(channel, c -> new TreeMap<>())
                                    .put(thread, readThread(value));
                        }
                    } catch (BadTrack e) {
                        skipped.accept(field);
                    }
                });
        return tracks;
    }

    private static long id(String text) {
        try {
            long id = Long.parseLong(text);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // the field is not the job's; refused below
        }
        throw new BadTrack("the field is not an id or {C}:{T}");
    }

    /**
     * A member's tracks: each channel's by id, and the followed threads' by channel id then thread
     * root, both in rising order.
     */
    public static final class Tracks {
        private final SortedMap<Long, ChannelTrack> channels;
        private final SortedMap<Long, SortedMap<Long, ThreadTrack>> threads;

        public Tracks(
                SortedMap<Long, ChannelTrack> channels,
                SortedMap<Long, SortedMap<Long, ThreadTrack>> threads) {
            this.channels = channels;
            this.threads = threads;
        }

        public SortedMap<Long, ChannelTrack> channels() {
            return channels;
        }

        public SortedMap<Long, SortedMap<Long, ThreadTrack>> threads() {
            return threads;
        }
    }
}
