package dev.unread.events;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.InputField;
import dev.unread.contract.InputJson;
import dev.unread.contract.InputKind;
import org.junit.jupiter.api.Test;

/**
 * The parsers against the catalog ({@link InputKind}, {@link InputField}), kind by kind and field
 * by field: a record with the fields its kind requires parses; one without any of them is refused
 * as missing it; a value of another shape in a field of its kind is refused naming the field, in
 * any other field ignored.
 */
class InputCatalogTest {

    private final EventParser events = new EventParser();
    private final ConversationParser conversations = new ConversationParser();

    @Test
    void aRecordWithTheFieldsItsKindRequiresParses() throws Exception {
        for (InputKind kind : InputKind.values()) {
            assertThat(parse(kind, record(kind, null))).as("%s", kind).isNotNull();
        }
    }

    @Test
    void aRecordWithoutARequiredFieldIsRefusedAsMissingIt() {
        for (InputKind kind : InputKind.values()) {
            for (InputField field : kind.required()) {
                assertThatThrownBy(() -> parse(kind, record(kind, field)))
                        .as("%s without %s", kind, field)
                        .isInstanceOf(InvalidRecordException.class)
                        .hasMessage(field.wireName() + ": missing");
            }
        }
    }

    @Test
    void aValueOfAnotherShapeIsRefusedInAFieldOfTheKindAndIgnoredInAnyOther() throws Exception {
        for (InputKind kind : InputKind.values()) {
            for (InputField field : InputField.values()) {
                if (field == InputField.TYPE) {
                    continue;
                }
                String json = with(record(kind, field), field, otherShape(field));
                if (kind.carries(field)) {
                    assertThatThrownBy(() -> parse(kind, json))
                            .as("%s", json)
                            .isInstanceOf(InvalidRecordException.class)
                            .hasMessageContaining(field.wireName());
                } else {
                    assertThat(parse(kind, json)).as("%s", json).isNotNull();
                }
            }
        }
    }

    @Test
    void aWrongShapeIsWordedByTheCatalog() {
        for (InputKind kind : InputKind.values()) {
            for (InputField field : kind.required()) {
                String json = with(record(kind, field), field, otherShape(field));
                assertThatThrownBy(() -> parse(kind, json))
                        .as("%s", json)
                        .hasMessage(field.refusal(field.shape().wrongType()));
            }
        }
    }

    /**
     * A record of {@code kind} with every field it requires but {@code except} (null: none), and,
     * where it needs one of its optional fields, the first other than {@code except}.
     */
    private static String record(InputKind kind, InputField except) {
        InputJson json = InputJson.of(kind);
        for (InputField field : kind.required()) {
            if (field != except) {
                put(json, field);
            }
        }
        if (kind == InputKind.CONVERSATION_PREFERENCE) {
            put(json, kind.optional().stream().filter(f -> f != except).findFirst().orElseThrow());
        }
        return json.text();
    }

    private static void put(InputJson json, InputField field) {
        switch (field.shape()) {
            case POSITIVE, NON_NEGATIVE -> json.put(field, 5);
            case FLAG -> json.put(field, true);
            case PREFERENCE -> json.put(field, InputField.CountPreference.MENTIONS);
            case IDS -> json.putIds(field, 7);
            case TEXT, TYPE -> throw new IllegalArgumentException(field + " is never required");
        }
    }

    /** A JSON value that is not of {@code field}'s shape. */
    private static String otherShape(InputField field) {
        return field.shape().integer() || field.shape() == InputField.Shape.FLAG ? "\"x\"" : "5";
    }

    private static String with(String json, InputField field, String value) {
        return json.substring(0, json.length() - 1)
                + (json.length() > 2 ? "," : "")
                + "\""
                + field.wireName()
                + "\":"
                + value
                + "}";
    }

    private Object parse(InputKind kind, String json) throws InvalidRecordException {
        byte[] value = json.getBytes(UTF_8);
        return switch (kind.topic()) {
            case MESSAGES -> events.parseMessage(value);
            case READS -> events.parseRead(value);
            case CONVERSATIONS -> conversations.parse(value);
        };
    }
}
