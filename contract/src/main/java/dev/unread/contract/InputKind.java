package dev.unread.contract;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The kinds of input record (docs/contract.md, "Input"): the topic that carries each, its {@code
 * type}, and the time its record's timestamp bounds; which fields each requires or may carry is
 * {@link InputField}'s. The catalog the parsers, their tests and {@link InputJson} follow.
 *
 * <p>A new kind is a constant here and in its fields' kinds; the job's parsers do not compile until
 * they build its event.
 */
public enum InputKind {
    /** A message, without a {@code type}: a {@code type} other than an edit's is unknown to it. */
    MESSAGE(Topic.MESSAGES, null),
    MESSAGE_EDITED(Topic.MESSAGES, InputKind.EDITED),
    INBOX_OPENED(Topic.READS, "INBOX_OPENED"),
    CONVERSATION_READ(Topic.READS, "CONVERSATION_READ"),
    /** At least one of its optional fields is given. */
    CONVERSATION_PREFERENCE(Topic.READS, "CONVERSATION_PREFERENCE"),
    CONVERSATION_MARKED_UNREAD(Topic.READS, "CONVERSATION_MARKED_UNREAD"),
    THREAD_READ(Topic.READS, "THREAD_READ"),
    THREAD_FOLLOWED(Topic.READS, "THREAD_FOLLOWED"),
    ALL_READ(Topic.READS, "ALL_READ"),
    USER_ERASED(Topic.READS, "USER_ERASED"),
    MEMBER_JOINED(Topic.CONVERSATIONS, "MEMBER_JOINED"),
    MEMBER_LEFT(Topic.CONVERSATIONS, "MEMBER_LEFT"),
    /** A message published once for the whole conversation. */
    GROUP_MESSAGE(Topic.CONVERSATIONS, "MESSAGE"),
    /** For any conversation. */
    MESSAGE_DELETED(Topic.CONVERSATIONS, "MESSAGE_DELETED"),
    GROUP_MESSAGE_EDITED(Topic.CONVERSATIONS, InputKind.EDITED),
    /** The conversation is a channel: before every other record of it. */
    CHANNEL(Topic.CONVERSATIONS, "CHANNEL");

    /** The input topics, by their default names. */
    public enum Topic {
        MESSAGES(Topics.MESSAGES),
        READS(Topics.READS),
        CONVERSATIONS(Topics.CONVERSATIONS);

        private final String defaultName;

        Topic(String defaultName) {
            this.defaultName = defaultName;
        }

        public String defaultName() {
            return defaultName;
        }

        /** The kinds this topic carries, in declaration order. */
        public List<InputKind> kinds() {
            return Arrays.stream(InputKind.values()).filter(k -> k.topic == this).toList();
        }

        /** The fields some kind of this topic carries: the topic's known names. */
        public Set<InputField> fields() {
            Set<InputField> fields = EnumSet.noneOf(InputField.class);
            for (InputKind kind : kinds()) {
                fields.addAll(kind.fields());
            }
            if (kinds().stream().anyMatch(k -> k.type != null)) {
                fields.add(InputField.TYPE);
            }
            return fields;
        }
    }

    /** An edit's type on either topic that carries edits. */
    private static final String EDITED = "MESSAGE_EDITED";

    private final Topic topic;
    private final String type;

    InputKind(Topic topic, String type) {
        this.topic = topic;
        this.type = type;
    }

    public Topic topic() {
        return topic;
    }

    /** The value of {@code "type"}; null for a {@code chat-messages} message, which has none. */
    public String type() {
        return type;
    }

    /**
     * The field that holds the event's time, bounded by the record's timestamp (docs/contract.md,
     * "Rules for both topics"); null when the record's timestamp bounds none.
     */
    public InputField time() {
        return switch (this) {
            case MESSAGE, GROUP_MESSAGE -> InputField.SENT_AT;
            case MESSAGE_EDITED -> InputField.EDITED_AT;
            case INBOX_OPENED, CONVERSATION_READ, THREAD_READ, ALL_READ -> InputField.READ_AT;
            case CONVERSATION_PREFERENCE, THREAD_FOLLOWED -> InputField.SET_AT;
            case CONVERSATION_MARKED_UNREAD -> InputField.MARKED_AT;
            case USER_ERASED -> InputField.ERASED_AT;
            case MEMBER_JOINED, MEMBER_LEFT, MESSAGE_DELETED, GROUP_MESSAGE_EDITED, CHANNEL -> null;
        };
    }

    /** The fields a record of this kind must have, in the catalog's order. */
    public List<InputField> required() {
        return Arrays.stream(InputField.values()).filter(f -> f.requiredBy(this)).toList();
    }

    /** The fields a record of this kind may have beside {@code type} and {@link #required()}. */
    public List<InputField> optional() {
        return Arrays.stream(InputField.values()).filter(f -> f.optionalIn(this)).toList();
    }

    /** Required and optional fields, {@code type} aside. */
    public Set<InputField> fields() {
        Set<InputField> fields = EnumSet.noneOf(InputField.class);
        fields.addAll(required());
        fields.addAll(optional());
        return fields;
    }

    /** Whether a record of this kind carries {@code field}: its own, or its {@code type}. */
    public boolean carries(InputField field) {
        return field == InputField.TYPE
                ? type != null
                : field.requiredBy(this) || field.optionalIn(this);
    }
}
