package dev.unread.contract;

/**
 * Writes one input record's JSON in the compact form producers write: {@code type} first when the
 * kind has one, then each field in the order put, formatted by its {@link InputField.Shape}. A
 * field the kind does not carry, or a value of another shape, is the caller's error.
 */
public final class InputJson {

    private final InputKind kind;
    private final StringBuilder json = new StringBuilder(128);

    private InputJson(InputKind kind) {
        this.kind = kind;
        json.append('{');
        if (kind.type() != null) {
            json.append("\"type\":\"").append(kind.type()).append('"');
        }
    }

    /** A record of {@code kind}, its {@code type} written. */
    public static InputJson of(InputKind kind) {
        return new InputJson(kind);
    }

    /** An integer field. */
    public InputJson put(InputField field, long value) {
        check(field, field.shape().integer());
        name(field).append(value);
        return this;
    }

    /** A flag. */
    public InputJson put(InputField field, boolean value) {
        check(field, field.shape() == InputField.Shape.FLAG);
        name(field).append(value);
        return this;
    }

    /** A count preference. */
    public InputJson put(InputField field, InputField.CountPreference value) {
        check(field, field.shape() == InputField.Shape.PREFERENCE);
        name(field).append('"').append(value.name()).append('"');
        return this;
    }

    /** An array of ids; left out when empty. */
    public InputJson putIds(InputField field, long... ids) {
        check(field, field.shape() == InputField.Shape.IDS);
        if (ids.length == 0) {
            return this;
        }
        name(field).append('[');
        for (int i = 0; i < ids.length; i++) {
            json.append(i == 0 ? "" : ",").append(ids[i]);
        }
        json.append(']');
        return this;
    }

    public String text() {
        return json.toString() + '}';
    }

    private void check(InputField field, boolean shapeFits) {
        if (!kind.carries(field) || !shapeFits) {
            throw new IllegalArgumentException(kind + " has no " + field + " of that shape");
        }
    }

    private StringBuilder name(InputField field) {
        if (json.length() > 1) {
            json.append(',');
        }
        return json.append('"').append(field.wireName()).append("\":");
    }
}
