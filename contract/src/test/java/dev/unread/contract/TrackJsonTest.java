package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.unread.contract.ChannelTrack.Interval;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The tracks' JSON of docs/contract.md ("Channels in Redis"), both ways, and what it refuses. */
class TrackJsonTest {

    private final TrackJson json = new TrackJson();

    @Test
    void readsTheContractsExample() {
        ChannelTrack track =
                json.readChannel(
                        "{\"members\":[[1001,6200],[7001]],\"read\":7310,\"floor\":7290,"
                                + "\"named\":2,\"namedAll\":1,\"preference\":\"ALL\","
                                + "\"ignoreAll\":false,\"left\":false}");

        assertThat(track)
                .isEqualTo(
                        new ChannelTrack(
                                List.of(new Interval(1001, 6200), Interval.open(7001)),
                                7310,
                                7290,
                                2,
                                1,
                                InputField.CountPreference.ALL,
                                false,
                                false));
        assertThat(json.readThread("{\"read\":1060,\"named\":1,\"namedAll\":0}"))
                .isEqualTo(new ThreadTrack(1060, 1, 0));
    }

    @Test
    void absentFieldsAreAtTheirDefaultsAndDefaultsAreNotWritten() {
        assertThat(json.readChannel("{}")).isEqualTo(ChannelTrack.EMPTY);
        assertThat(json.readThread("{}")).isEqualTo(ThreadTrack.EMPTY);
        assertThat(json.write(ChannelTrack.EMPTY)).isEqualTo("{}");
        assertThat(json.write(ThreadTrack.EMPTY)).isEqualTo("{}");
        assertThat(json.readChannel("{\"read\":null,\"members\":null,\"other\":[1]}"))
                .isEqualTo(ChannelTrack.EMPTY);
    }

    /**
     * What is written reads back the same. The job writes the text directly; Jackson's tree of the
     * same fields, each left out at its default, is the oracle of the text: the same, so Redis
     * holds what it held before the direct writer.
     */
    @Test
    void whatIsWrittenIsJacksonsTreeAndReadsBackTheSame() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            ChannelTrack track = randomTrack(random);
            ThreadTrack thread =
                    new ThreadTrack(
                            random.nextBoolean() ? 0 : random.nextInt(9000),
                            random.nextBoolean() ? 0 : random.nextInt(3),
                            random.nextInt(2));

            assertThat(json.write(track)).as("seed %d", seed).isEqualTo(tree(track));
            assertThat(json.write(thread)).as("seed %d", seed).isEqualTo(tree(thread));
            assertThat(json.readChannel(json.write(track))).as("seed %d", seed).isEqualTo(track);
            assertThat(json.readThread(json.write(thread))).as("seed %d", seed).isEqualTo(thread);
        }
    }

    private static ChannelTrack randomTrack(Random random) {
        List<Interval> members = new ArrayList<>();
        long at = random.nextInt(5);
        int intervals = random.nextInt(4);
        for (int j = 0; j < intervals; j++) {
            long from = at + 1 + random.nextInt(1000);
            boolean open = j == intervals - 1 && random.nextBoolean();
            long to = open ? Interval.OPEN : from + random.nextInt(1000);
            members.add(new Interval(from, to));
            at = to;
        }
        return new ChannelTrack(
                members,
                random.nextBoolean() ? 0 : random.nextBoolean() ? TrackJson.MAX_NUMBER : 9000,
                random.nextBoolean() ? 0 : random.nextInt(9000),
                random.nextInt(3),
                random.nextInt(2),
                InputField.CountPreference.values()[random.nextInt(3)],
                random.nextBoolean(),
                random.nextBoolean());
    }

    private static String tree(ChannelTrack track) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        if (!track.members().isEmpty()) {
            ArrayNode members = node.putArray("members");
            for (Interval interval : track.members()) {
                ArrayNode pair = members.addArray().add(interval.from());
                if (!interval.open()) {
                    pair.add(interval.to());
                }
            }
        }
        putNonZero(node, "read", track.read());
        putNonZero(node, "floor", track.floor());
        putNonZero(node, "named", track.named());
        putNonZero(node, "namedAll", track.namedAll());
        if (track.preference() != InputField.CountPreference.ALL) {
            node.put("preference", track.preference().name());
        }
        if (track.ignoreAll()) {
            node.put("ignoreAll", true);
        }
        if (track.left()) {
            node.put("left", true);
        }
        return node.toString();
    }

    private static String tree(ThreadTrack track) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        putNonZero(node, "read", track.read());
        putNonZero(node, "named", track.named());
        putNonZero(node, "namedAll", track.namedAll());
        return node.toString();
    }

    private static void putNonZero(ObjectNode node, String field, long value) {
        if (value != 0) {
            node.put(field, value);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "not json",
                "[]",
                "7",
                "{\"read\":-1}",
                "{\"read\":9007199254740992}",
                "{\"read\":1.5}",
                "{\"read\":\"7\"}",
                "{\"floor\":true}",
                "{\"named\":99999999999999999999999}",
                "{\"preference\":\"LOUD\"}",
                "{\"preference\":1}",
                "{\"ignoreAll\":\"yes\"}",
                "{\"left\":1}",
                "{\"members\":7}",
                "{\"members\":[7]}",
                "{\"members\":[[]]}",
                "{\"members\":[[1,2,3]]}",
                "{\"members\":[[0,5]]}",
                "{\"members\":[[5,4]]}",
                "{\"members\":[[1],[5,6]]}",
                "{\"members\":[[1,5],[5,6]]}",
                "{\"members\":[[6,9],[1,2]]}",
                "{\"members\":[[1,\"2\"]]}"
            })
    void refusesWhatTheJobNeverWrites(String text) {
        assertThatThrownBy(() -> json.readChannel(text)).isInstanceOf(TrackJson.BadTrack.class);
    }

    @Test
    void refusesTracksPastItsBoundsBeforeReadingThem() {
        StringBuilder many = new StringBuilder("{\"members\":[");
        for (int i = 0; i <= TrackJson.MAX_INTERVALS; i++) {
            many.append(i == 0 ? "" : ",").append("[").append(2 * i + 1).append("]");
        }
        assertThatThrownBy(() -> json.readChannel(many + "]}"))
                .isInstanceOf(TrackJson.BadTrack.class);
        assertThatThrownBy(
                        () ->
                                json.readThread(
                                        "{\"x\":\"" + "a".repeat(TrackJson.MAX_CHARS) + "\"}"))
                .isInstanceOf(TrackJson.BadTrack.class);
        assertThatThrownBy(() -> json.readChannel(null)).isInstanceOf(TrackJson.BadTrack.class);
    }

    @Test
    void aHashKeepsWhatIsTheJobsAndNamesTheFieldsItLeftOut() {
        Map<String, String> hash = new LinkedHashMap<>();
        hash.put("80002", "{\"read\":5}");
        hash.put("80001", "{\"members\":[[3]]}");
        hash.put("80001:1038", "{\"read\":1060}");
        hash.put("80003", "{\"read\":-5}");
        hash.put("x", "{}");
        hash.put("80001:y", "{}");
        hash.put("0", "{}");
        List<String> skipped = new ArrayList<>();

        TrackJson.Tracks tracks = json.readAll(hash, skipped::add);

        assertThat(tracks.channels().keySet()).containsExactly(80001L, 80002L);
        assertThat(tracks.threads().get(80001L))
                .containsExactlyEntriesOf(Map.of(1038L, new ThreadTrack(1060, 0, 0)));
        assertThat(skipped).containsExactlyInAnyOrder("80003", "x", "80001:y", "0");
    }

    @Test
    void countedIntervalsAreTheMembershipCutAboveTheFloorOrTheCursorNoneWhileLeft() {
        ChannelTrack track =
                new ChannelTrack(
                        List.of(new Interval(10, 20), new Interval(31, 40), Interval.open(51)),
                        35,
                        12,
                        0,
                        0,
                        InputField.CountPreference.ALL,
                        false,
                        false);

        assertThat(track.counted()).containsExactly(new Interval(36, 40), Interval.open(51));
        assertThat(track.counted(new ThreadTrack(5, 0, 0)))
                .containsExactly(new Interval(13, 20), new Interval(31, 40), Interval.open(51));
        assertThat(track.counted(new ThreadTrack(60, 0, 0))).containsExactly(Interval.open(61));
        assertThat(
                        new ChannelTrack(
                                        track.members(),
                                        0,
                                        0,
                                        0,
                                        0,
                                        InputField.CountPreference.ALL,
                                        false,
                                        true)
                                .counted())
                .isEmpty();
    }
}
