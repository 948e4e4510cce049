package dev.unread.contract;

import static dev.unread.contract.InputField.CONVERSATION_ID;
import static dev.unread.contract.InputField.COUNT_PREFERENCE;
import static dev.unread.contract.InputField.DELETED_AT;
import static dev.unread.contract.InputField.EDITED_AT;
import static dev.unread.contract.InputField.ERASED_AT;
import static dev.unread.contract.InputField.FOLLOWING;
import static dev.unread.contract.InputField.IGNORE_CHANNEL_MENTIONS;
import static dev.unread.contract.InputField.MARKED_AT;
import static dev.unread.contract.InputField.MENTIONED;
import static dev.unread.contract.InputField.MENTIONS;
import static dev.unread.contract.InputField.MENTIONS_ALL;
import static dev.unread.contract.InputField.MESSAGE_ID;
import static dev.unread.contract.InputField.READ_AT;
import static dev.unread.contract.InputField.READ_SEQ;
import static dev.unread.contract.InputField.RECEIVER_ID;
import static dev.unread.contract.InputField.ROOT_SENDER_ID;
import static dev.unread.contract.InputField.SENDER_ID;
import static dev.unread.contract.InputField.SENT_AT;
import static dev.unread.contract.InputField.SEQ;
import static dev.unread.contract.InputField.SET_AT;
import static dev.unread.contract.InputField.THREAD_SEQ;
import static dev.unread.contract.InputField.USER_ID;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The kinds of input record (docs/contract.md, "Input"): the topic that carries each, its {@code
 * type}, the fields it requires and those it may carry (any other field is unknown to it, and
 * ignored whatever its value), and the time its record's timestamp bounds. With {@link InputField},
 * the catalog the parsers, their tests and {@link InputJson} follow.
 *
 * <p>A new kind is a constant here; the job's parsers do not compile until they build its event.
 */
public enum InputKind {
    /** A message, without a {@code type}: a {@code type} other than an edit's is unknown to it. */
    MESSAGE(
            Topic.MESSAGES,
            null,
            SENT_AT,
            must(SENDER_ID, RECEIVER_ID, SENT_AT),
            may(
                    CONVERSATION_ID,
                    SEQ,
                    MESSAGE_ID,
                    MENTIONED,
                    MENTIONS_ALL,
                    THREAD_SEQ,
                    ROOT_SENDER_ID)),
    MESSAGE_EDITED(
            Topic.MESSAGES,
            InputKind.EDITED,
            EDITED_AT,
            must(RECEIVER_ID, CONVERSATION_ID, SEQ, EDITED_AT),
            may(MENTIONED, MENTIONS_ALL, THREAD_SEQ)),
    INBOX_OPENED(Topic.READS, "INBOX_OPENED", READ_AT, must(USER_ID, READ_AT), may()),
    CONVERSATION_READ(
            Topic.READS,
            "CONVERSATION_READ",
            READ_AT,
            must(USER_ID, CONVERSATION_ID, READ_SEQ, READ_AT),
            may()),
    /** At least one of its optional fields is given. */
    CONVERSATION_PREFERENCE(
            Topic.READS,
            "CONVERSATION_PREFERENCE",
            SET_AT,
            must(USER_ID, CONVERSATION_ID, SET_AT),
            may(COUNT_PREFERENCE, IGNORE_CHANNEL_MENTIONS)),
    CONVERSATION_MARKED_UNREAD(
            Topic.READS,
            "CONVERSATION_MARKED_UNREAD",
            MARKED_AT,
            must(USER_ID, CONVERSATION_ID, MARKED_AT),
            may()),
    THREAD_READ(
            Topic.READS,
            "THREAD_READ",
            READ_AT,
            must(USER_ID, CONVERSATION_ID, THREAD_SEQ, READ_SEQ, READ_AT),
            may()),
    THREAD_FOLLOWED(
            Topic.READS,
            "THREAD_FOLLOWED",
            SET_AT,
            must(USER_ID, CONVERSATION_ID, THREAD_SEQ, FOLLOWING, SET_AT),
            may()),
    ALL_READ(Topic.READS, "ALL_READ", READ_AT, must(USER_ID, READ_AT), may()),
    USER_ERASED(Topic.READS, "USER_ERASED", ERASED_AT, must(USER_ID, ERASED_AT), may()),
    MEMBER_JOINED(
            Topic.CONVERSATIONS, "MEMBER_JOINED", null, must(CONVERSATION_ID, USER_ID, SEQ), may()),
    MEMBER_LEFT(
            Topic.CONVERSATIONS, "MEMBER_LEFT", null, must(CONVERSATION_ID, USER_ID, SEQ), may()),
    /** A message published once for the whole conversation. */
    GROUP_MESSAGE(
            Topic.CONVERSATIONS,
            "MESSAGE",
            SENT_AT,
            must(CONVERSATION_ID, SEQ, SENDER_ID, SENT_AT),
            may(MESSAGE_ID, MENTIONS, MENTIONS_ALL, THREAD_SEQ, ROOT_SENDER_ID)),
    /** For any conversation; {@code deletedAt} is checked, and counts toward nothing. */
    MESSAGE_DELETED(
            Topic.CONVERSATIONS,
            "MESSAGE_DELETED",
            null,
            must(CONVERSATION_ID, SEQ, DELETED_AT),
            may()),
    GROUP_MESSAGE_EDITED(
            Topic.CONVERSATIONS,
            InputKind.EDITED,
            null,
            must(CONVERSATION_ID, SEQ, EDITED_AT),
            may(MENTIONS, MENTIONS_ALL));

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
            List<InputKind> kinds = new ArrayList<>();
            for (InputKind kind : InputKind.values()) {
                if (kind.topic == this) {
                    kinds.add(kind);
                }
            }
            return kinds;
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
    private final InputField time;
    private final List<InputField> required;
    private final List<InputField> optional;
    private final Set<InputField> fields;

    InputKind(
            Topic topic,
            String type,
            InputField time,
            List<InputField> required,
            List<InputField> optional) {
        this.topic = topic;
        this.type = type;
        this.time = time;
        this.required = required;
        this.optional = optional;
        this.fields = EnumSet.noneOf(InputField.class);
        fields.addAll(required);
        fields.addAll(optional);
    }

    private static List<InputField> must(InputField... fields) {
        return List.of(fields);
    }

    private static List<InputField> may(InputField... fields) {
        return List.of(fields);
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
        return time;
    }

    /** The fields a record of this kind must have, in the order they are checked. */
    public List<InputField> required() {
        return required;
    }

    /** The fields a record of this kind may have beside {@code type} and {@link #required()}. */
    public List<InputField> optional() {
        return optional;
    }

    /** Required and optional fields, {@code type} aside. */
    public Set<InputField> fields() {
        return EnumSet.copyOf(fields);
    }

    /** Whether a record of this kind carries {@code field}: its own, or its {@code type}. */
    public boolean carries(InputField field) {
        return field == InputField.TYPE ? type != null : fields.contains(field);
    }
}
