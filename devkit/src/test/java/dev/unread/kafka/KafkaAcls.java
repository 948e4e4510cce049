package dev.unread.kafka;

import dev.unread.config.UnreadConfig;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on a secured Kafka: the one list of grants that {@link SecuredKafkaITCase} puts
 * on its broker and that docs/operations.md ("Who may write each topic") shows as {@code
 * kafka-acls.sh} commands ({@code OperationsDocTest} compares the two). Whoever can write an input
 * topic acts as any user, so each principal gets the least its clients need, found by running the
 * job and the API with only these grants.
 */
public final class KafkaAcls {

    /** The job: its two sources' consumers and admin client, and the dead-letter producer. */
    public static final String JOB = "unread-job";

    /** The API: the producer of its POST routes and the admin client of {@code /health}. */
    public static final String API = "unread-api";

    /** The chat servers, which publish every input event. */
    public static final String CHAT_SERVER = "chat-server";

    /** One grant: {@code operation} on each resource named, of one type, for one principal. */
    public record Grant(
            String user, AclOperation operation, ResourceType type, List<String> names) {

        List<AclBinding> bindings() {
            return names.stream()
                    .map(
                            name ->
                                    new AclBinding(
                                            new ResourcePattern(type, name, PatternType.LITERAL),
                                            new AccessControlEntry(
                                                    "User:" + user,
                                                    "*",
                                                    operation,
                                                    AclPermissionType.ALLOW)))
                    .toList();
        }

        /** The arguments of {@code kafka-acls.sh --add} that make this grant. */
        String command() {
            StringBuilder args =
                    new StringBuilder("--allow-principal User:")
                            .append(user)
                            .append(" --operation ")
                            .append(camel(operation.name()));
            String flag = " --" + type.name().toLowerCase(Locale.ROOT) + " ";
            names.forEach(name -> args.append(flag).append(name));
            return args.toString();
        }

        private static String camel(String constant) {
            return constant.charAt(0) + constant.substring(1).toLowerCase(Locale.ROOT);
        }
    }

    private KafkaAcls() {}

    /**
     * The grants for the topics and consumer group of {@code config}. Reading implies describing,
     * and writing a topic lets a producer be idempotent (KIP-679), so READ and WRITE are all three
     * need; the job's sinks write no Kafka transaction (the dead letters are at-least-once), so it
     * needs no transactional id.
     */
    public static List<Grant> grants(UnreadConfig config) {
        List<String> inputs =
                List.of(config.messagesTopic, config.readsTopic, config.conversationsTopic);
        return List.of(
                new Grant(JOB, AclOperation.READ, ResourceType.TOPIC, inputs),
                // Offsets are committed and read back under the job's group.
                new Grant(JOB, AclOperation.READ, ResourceType.GROUP, List.of(config.groupId)),
                new Grant(
                        JOB,
                        AclOperation.WRITE,
                        ResourceType.TOPIC,
                        List.of(config.deadLetterTopic)),
                new Grant(API, AclOperation.WRITE, ResourceType.TOPIC, List.of(config.readsTopic)),
                new Grant(CHAT_SERVER, AclOperation.WRITE, ResourceType.TOPIC, inputs));
    }

    /** Every grant of {@link #grants} as the ACL bindings Kafka's admin client creates. */
    public static List<AclBinding> bindings(UnreadConfig config) {
        return grants(config).stream().flatMap(g -> g.bindings().stream()).toList();
    }

    /** Every grant of {@link #grants} as the arguments of one {@code kafka-acls.sh --add}. */
    public static List<String> commands(UnreadConfig config) {
        return grants(config).stream().map(Grant::command).toList();
    }
}
