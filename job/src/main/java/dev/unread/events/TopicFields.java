package dev.unread.events;

import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One input topic's field table, from the catalog ({@link InputKind}, {@link InputField}): the
 * names its records know and the types they may have, looked up as each reader needs them. A name
 * no kind of the topic carries is unknown to it, and ignored whatever its value.
 */
final class TopicFields {

    private static final Map<InputKind.Topic, TopicFields> TABLES = tables();

    /** The catalog's fields at their ordinal, which is their bit in {@link RecordFields}. */
    static final InputField[] FIELDS = InputField.values();

    final InputKind.Topic topic;

    private final Map<String, InputField> byName = new HashMap<>();

    /** Indexed by a name's length in bytes: the known names of that length, and their bits. */
    private final byte[][][] namesByLength;

    private final int[][] bitsByLength;

    /** The kinds with a type, and their types as bytes and as chars, at the same index. */
    private final InputKind[] typed;

    private final byte[][] typeBytes;
    private final char[][] typeChars;

    private TopicFields(InputKind.Topic topic) {
        this.topic = topic;
        int longest = 0;
        for (InputField field : topic.fields()) {
            byName.put(field.wireName(), field);
            longest = Math.max(longest, field.wireName().length());
        }
        namesByLength = new byte[longest + 1][][];
        bitsByLength = new int[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            List<InputField> ofLength = new ArrayList<>();
            for (InputField field : topic.fields()) {
                if (field.wireName().length() == length) {
                    ofLength.add(field);
                }
            }
            namesByLength[length] = new byte[ofLength.size()][];
            bitsByLength[length] = new int[ofLength.size()];
            for (int i = 0; i < ofLength.size(); i++) {
                namesByLength[length][i] = utf8(ofLength.get(i).wireName());
                bitsByLength[length][i] = ofLength.get(i).ordinal();
            }
        }
        typed = topic.kinds().stream().filter(k -> k.type() != null).toArray(InputKind[]::new);
        typeBytes = new byte[typed.length][];
        typeChars = new char[typed.length][];
        for (int i = 0; i < typed.length; i++) {
            typeBytes[i] = utf8(typed[i].type());
            typeChars[i] = typed[i].type().toCharArray();
        }
    }

    private static Map<InputKind.Topic, TopicFields> tables() {
        Map<InputKind.Topic, TopicFields> tables = new EnumMap<>(InputKind.Topic.class);
        for (InputKind.Topic topic : InputKind.Topic.values()) {
            tables.put(topic, new TopicFields(topic));
        }
        return tables;
    }

    static TopicFields of(InputKind.Topic topic) {
        return TABLES.get(topic);
    }

    /** The field {@code name} names on this topic, null for a name unknown to it. */
    InputField field(String name) {
        return byName.get(name);
    }

    /** The bit of the field named by {@code v[from..to)}, -1 for a name unknown to the topic. */
    int bit(byte[] v, int from, int to) {
        int length = to - from;
        if (length >= namesByLength.length) {
            return -1;
        }
        byte[][] names = namesByLength[length];
        for (int i = 0; i < names.length; i++) {
            if (names[i][0] == v[from] && equalBytes(v, from, names[i])) {
                return bitsByLength[length][i];
            }
        }
        return -1;
    }

    /** The kind whose type is {@code v[from..to)}, null for a type unknown to the topic. */
    InputKind kind(byte[] v, int from, int to) {
        for (int i = 0; i < typeBytes.length; i++) {
            if (typeBytes[i].length == to - from && equalBytes(v, from, typeBytes[i])) {
                return typed[i];
            }
        }
        return null;
    }

    /** The kind whose type is the text in Jackson's buffer, null for one unknown to the topic. */
    InputKind kind(char[] chars, int offset, int length) {
        for (int i = 0; i < typeChars.length; i++) {
            if (length == typeChars[i].length
                    && Arrays.equals(typeChars[i], 0, length, chars, offset, offset + length)) {
                return typed[i];
            }
        }
        return null;
    }

    /** Whether {@code v} holds {@code expected} at {@code from}; the caller checked the length. */
    private static boolean equalBytes(byte[] v, int from, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (v[from + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
