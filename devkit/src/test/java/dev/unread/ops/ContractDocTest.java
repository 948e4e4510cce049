package dev.unread.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.UnreadJob;
import dev.unread.api.ApiConfig;
import dev.unread.api.StateQueryApi;
import dev.unread.config.FlinkConf;
import dev.unread.config.UnreadConfig;
import dev.unread.contract.Count;
import dev.unread.contract.DeadLetters;
import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;
import dev.unread.contract.MySqlSchema;
import dev.unread.contract.RedisNames;
import dev.unread.contract.Settings;
import dev.unread.contract.TrackJson;
import dev.unread.events.EventParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/contract.md is the project's contract, written by hand; each name the code defines (topics,
 * Redis keys and channel, dead-letter headers, table columns, settings, routes, operator uids) is
 * read from the code and must be in it, so the document cannot silently fall behind the code. The
 * links into it must land on a heading, and nothing may point at a contract outside the repository.
 */
class ContractDocTest {

    private static final Path ROOT = FlinkConf.findDir().getParent();

    private final String doc = read(ROOT.resolve("docs/contract.md"));

    @Test
    void namesEveryTopic() {
        Map<String, String> defaults = UnreadConfig.defaults();
        for (String topic : List.of("messages-topic", "reads-topic")) {
            assertThat(doc).as(topic).contains("### Topic " + defaults.get(topic) + "\n");
        }
        assertThat(doc).contains("Topic `" + defaults.get("dead-letter-topic") + "`");
    }

    @Test
    void namesEveryRedisKeyAndTheChannel() {
        assertThat(doc).contains("`" + RedisNames.SENDERS + "{userId}`");
        assertThat(doc).contains("`" + RedisNames.CONVERSATIONS + "{userId}`");
        assertThat(doc).contains("`" + RedisNames.READ_PROGRESS_CHANGED + "`");
        assertThat(doc).contains("`" + RedisNames.MENTIONS + "{userId}`");
        assertThat(doc).contains("`" + RedisNames.MARKED_UNREAD + "{userId}`");
        assertThat(doc).contains("`" + RedisNames.TOTALS + "{userId}`");
        // And every key of the count catalog.
        for (Count count : Count.values()) {
            String key = count.key("", 0).replaceFirst("0$", "{userId}");
            assertThat(doc).as(count.name()).contains("`" + key + "`");
        }
        // The live push's keys.
        assertThat(doc).contains("`" + RedisNames.VERSION + "{userId}`");
        assertThat(doc)
                .contains("`" + RedisNames.LIVE_USERS + "`")
                .contains("for " + RedisNames.LIVE_USER_TTL_MS / 1000 + " s when it opens")
                .contains("again every " + RedisNames.LIVE_USER_REFRESH_MS / 1000 + " s");
        for (String field :
                List.of(
                        RedisNames.TOTAL_MESSAGES,
                        RedisNames.TOTAL_MENTIONS,
                        RedisNames.TOTAL_CONVERSATIONS,
                        RedisNames.TOTAL_THREADS)) {
            assertThat(section(doc, "### Totals key")).contains("`" + field + "`");
        }
    }

    @Test
    void namesEveryChannelKeyAndTheReadersBounds() {
        String channels = section(doc, "### Channels in Redis");
        for (String key :
                List.of(
                        RedisNames.channelSeqsKey("", 0),
                        RedisNames.channelAllKey("", 0),
                        RedisNames.channelThreadKey("", 0, 0),
                        RedisNames.channelThreadAllKey("", 0, 0),
                        RedisNames.channelVersionKey("", 0),
                        RedisNames.channelChangedChannel("", 0))) {
            String named = key.replace("{0}", "{C}").replace(":t:0", ":t:T");
            assertThat(channels).as(key).contains("`" + named);
        }
        assertThat(channels)
                .contains("`" + RedisNames.channelTracksKey("", 0).replaceFirst("0$", "{userId}`"))
                .contains(String.format(Locale.ROOT, "past %,d characters", TrackJson.MAX_CHARS))
                .contains(String.format(Locale.ROOT, "or %,d intervals", TrackJson.MAX_INTERVALS));
    }

    @Test
    void namesEveryDeadLetterHeaderInItsTable() {
        for (String header :
                List.of(
                        DeadLetters.REASON,
                        DeadLetters.SOURCE_TOPIC,
                        DeadLetters.SOURCE_PARTITION,
                        DeadLetters.SOURCE_OFFSET)) {
            assertThat(doc).as(header).contains("| `" + header + "` |");
        }
    }

    @Test
    void namesEveryInputFieldAndType() {
        for (InputField field : InputField.values()) {
            assertThat(doc).as(field.name()).contains("`" + field.wireName() + "`");
        }
        for (InputKind kind : InputKind.values()) {
            if (kind.type() != null) {
                assertThat(doc).as(kind.name()).contains(kind.type());
            }
        }
        assertThat(doc)
                .contains(String.format(Locale.ROOT, "%,d user ids", InputField.MENTIONS.max()));
    }

    @Test
    void statesTheParsersLimits() {
        assertThat(doc).contains("exceeds " + EventParser.MAX_RECORD_BYTES + "`");
        assertThat(doc).contains("longer than " + InputField.MESSAGE_ID.max() + " characters");
    }

    @Test
    void itsDdlHasEveryColumnAndKeyTheJobCreates() {
        String ddl = normalize(String.join("\n", sqlBlocks(doc)));
        for (String create :
                List.of(MySqlSchema.CREATE_USER_ACTIVITY, MySqlSchema.CREATE_CONVERSATION_MEMBER)) {
            String head = create.substring(0, create.indexOf('(')).trim();
            assertThat(ddl).as(head).contains(normalize(head) + " (");
            for (String definition : definitions(create)) {
                assertThat(ddl).as(head + ": " + definition).contains(normalize(definition));
            }
        }
        assertThat(doc).contains("### Table " + MySqlSchema.USER_ACTIVITY);
        assertThat(doc).contains("### Table " + MySqlSchema.CONVERSATION_MEMBER);
    }

    @Test
    void hasARowForEveryJobSetting() {
        UnreadConfig.defaults()
                .forEach(
                        (name, value) ->
                                assertThat(doc)
                                        .as("--" + name)
                                        .contains(
                                                "| `--"
                                                        + name
                                                        + "` | `"
                                                        + UnreadConfig.envName(name)
                                                        + "` | "
                                                        + (value.isEmpty()
                                                                ? "(empty)"
                                                                : "`" + value + "`")
                                                        + " |"));
        assertThat(doc).contains("| | `" + UnreadConfig.JDBC_PASSWORD_ENV + "` | (empty) |");
    }

    @Test
    void hasARowForEveryApiSettingWithItsDefault() throws Exception {
        ApiConfig defaults = ApiConfig.builder().build();
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put(ApiConfig.HOST_ENV, "`" + defaults.host + "`");
        expected.put(ApiConfig.PORT_ENV, "`" + defaults.port + "`");
        expected.put(ApiConfig.TOKEN_ENV, "(unset)");
        expected.put(ApiConfig.JWT_SECRET_ENV, "(unset)");
        expected.put(ApiConfig.JWT_PUBLIC_KEY_ENV, "(unset)");
        expected.put(ApiConfig.TIMEOUT_ENV, "`" + defaults.timeoutMs + "`");
        expected.put(ApiConfig.OPEN_WITHOUT_AUTH.env(), "`false`");
        expected.put(ApiConfig.ALLOWED_ORIGINS.env(), "(empty)");
        expected.put(ApiConfig.JWT_ISSUER.env(), "(empty)");
        expected.put(ApiConfig.JWT_AUDIENCE.env(), "(empty)");
        expected.put(
                ApiConfig.JWT_MAX_LIFETIME_SECONDS.env(),
                "`" + defaults.jwtMaxLifetimeSeconds + "`");
        expected.put(ApiConfig.STREAM_HEARTBEAT_ENV, "`" + defaults.streamHeartbeatMs + "`");
        expected.put(ApiConfig.STREAM_BUFFER_ENV, "`" + defaults.streamBuffer + "`");
        expected.put(ApiConfig.STREAM_WRITE_TIMEOUT_ENV, "`" + defaults.streamWriteTimeoutMs + "`");
        expected.put(ApiConfig.STREAM_SENDER_THREADS_ENV, "`" + defaults.streamSenderThreads + "`");
        expected.put(ApiConfig.STREAM_MAX_PER_USER.env(), "`" + defaults.streamMaxPerUser + "`");
        expected.put(ApiConfig.STREAM_MAX_TOTAL.env(), "`" + defaults.streamMaxTotal + "`");
        expected.put(
                ApiConfig.USER_WRITES_PER_SECOND.env(), "`" + defaults.userWritesPerSecond + "`");
        expected.put(
                ApiConfig.USER_STREAM_OPENS_PER_MINUTE.env(),
                "`" + defaults.userStreamOpensPerMinute + "`");
        expected.put(
                ApiConfig.ADDRESS_REQUESTS_PER_SECOND.env(),
                "`" + defaults.addressRequestsPerSecond + "`");
        expected.put(ApiConfig.TRUSTED_PROXIES.env(), "(empty)");
        expected.put(
                ApiConfig.BATCH_MAX_ANSWER_BYTES.env(), "`" + defaults.batchMaxAnswerBytes + "`");
        expected.put(ApiConfig.LIMITER_MAX_KEYS.env(), "`" + defaults.limiterMaxKeys + "`");
        expected.put(ApiConfig.REDIS_URL_ENV, "`" + defaults.redisUrl + "`");
        expected.put(ApiConfig.REDIS_CLUSTER_NODES_ENV, "(empty)");
        expected.put(ApiConfig.REDIS_CA_FILE_ENV, "(empty)");
        expected.put(ApiConfig.REDIS_KEY_PREFIX_ENV, "(empty)");
        expected.put(ApiConfig.JDBC_URL_ENV, "`" + defaults.jdbcUrl + "`");
        expected.put(ApiConfig.JDBC_USER_ENV, "`" + defaults.jdbcUser + "`");
        expected.put(ApiConfig.JDBC_PASSWORD_ENV, "(empty)");
        expected.put(ApiConfig.KAFKA_BOOTSTRAP_ENV, "`" + defaults.kafkaBootstrap + "`");
        expected.put(ApiConfig.KAFKA_PROPERTIES_ENV, "(empty)");
        expected.put(ApiConfig.READS_TOPIC_ENV, "`" + defaults.readsTopic + "`");
        // Every variable ApiConfig defines, so that a new one fails here until it has a row.
        Set<String> defined = new HashSet<>();
        ApiConfig.SETTINGS.forEach(setting -> defined.add(setting.env()));
        for (Field field : ApiConfig.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_ENV")) {
                defined.add((String) field.get(null));
            }
        }
        assertThat(expected.keySet()).containsExactlyInAnyOrderElementsOf(defined);

        String section = section(doc, "### API settings");
        expected.forEach(
                (env, value) ->
                        assertThat(section).as(env).contains("| `" + env + "` | " + value + " |"));
    }

    @Test
    void itsSettingsTablesAreTheDeclaredSettings() {
        assertThat(section(doc, "### Job settings"))
                .contains(Settings.table(UnreadConfig.settings(), true));
        assertThat(section(doc, "### API settings")).contains(Settings.table(ApiConfig.ALL, false));
    }

    @Test
    void hasASectionForEveryRouteTheApiServes() throws IOException {
        JsonNode openApi;
        try (InputStream in =
                StateQueryApi.class.getResourceAsStream("/dev/unread/api/openapi.json")) {
            assertThat(in).as("openapi.json").isNotNull();
            openApi = new ObjectMapper().readTree(in);
        }
        int routes = 0;
        for (Map.Entry<String, JsonNode> path : openApi.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                String method = operation.getKey().toUpperCase(Locale.ROOT);
                String heading = "### " + method + " " + path.getKey();
                assertThat(doc).as(heading).contains(heading + "\n");
                routes++;
            }
        }
        assertThat(routes).isGreaterThan(5);
    }

    @Test
    void namesEveryOperatorUid() throws Exception {
        int uids = 0;
        for (Field field : UnreadJob.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_UID")) {
                assertThat(doc).as(field.getName()).contains("`" + field.get(null) + "`");
                uids++;
            }
        }
        assertThat(uids).isGreaterThan(5);
    }

    @Test
    void everyLinkIntoItLandsOnAHeading() {
        Set<String> anchors = anchors(doc);
        List<String> links = new ArrayList<>();
        Matcher local = Pattern.compile("\\]\\(#([^)]+)\\)").matcher(doc);
        while (local.find()) {
            links.add(local.group(1));
        }
        for (String file :
                List.of("README.md", "state-query-api/README.md", "docs/reliability.md")) {
            Matcher link =
                    Pattern.compile("contract\\.md#([^)]+)\\)").matcher(read(ROOT.resolve(file)));
            while (link.find()) {
                links.add(link.group(1));
            }
        }
        assertThat(links).hasSizeGreaterThan(5);
        assertThat(links).allSatisfy(anchor -> assertThat(anchors).contains(anchor));
    }

    @Test
    void nothingPointsAtAContractOutsideTheRepository() throws IOException {
        List<Path> files =
                new ArrayList<>(
                        List.of(
                                ROOT.resolve("README.md"),
                                ROOT.resolve("state-query-api/README.md")));
        for (String dir :
                List.of(
                        "docs",
                        "docker",
                        "contract/src",
                        "local-kafka/src",
                        "job/src",
                        "savepoint-tools/src",
                        "state-query-api/src",
                        "devkit/src")) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(dir))) {
                walk.filter(Files::isRegularFile)
                        .filter(p -> p.toString().matches(".*\\.(java|md|sql|yml|yaml|xml)$"))
                        .forEach(files::add);
            }
        }
        // Built so that this file does not name what it looks for.
        String design = "DESIGN" + ".md";
        String shared = "../" + "shared";
        assertThat(files)
                .hasSizeGreaterThan(50)
                .allSatisfy(
                        file ->
                                assertThat(read(file))
                                        .as(ROOT.relativize(file).toString())
                                        .doesNotContain(design)
                                        .doesNotContain(shared));
    }

    /** GitHub's heading ids: lower case, punctuation but '-' and '_' dropped, spaces to '-'. */
    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Matcher heading = Pattern.compile("(?m)^#{1,6} (.+)$").matcher(markdown);
        while (heading.find()) {
            anchors.add(
                    heading.group(1)
                            .trim()
                            .toLowerCase(Locale.ROOT)
                            .replaceAll("[^a-z0-9 _-]", "")
                            .replace(' ', '-'));
        }
        return anchors;
    }

    /** The text from {@code heading} to the next heading of the same or a higher level. */
    private static String section(String markdown, String heading) {
        int start = markdown.indexOf(heading + "\n");
        assertThat(start).as(heading).isNotNegative();
        String level = heading.substring(0, heading.indexOf(' ') + 1);
        Matcher next = Pattern.compile("(?m)^#{1," + (level.length() - 1) + "} ").matcher(markdown);
        int end = next.find(start + heading.length()) ? next.start() : markdown.length();
        return markdown.substring(start, end);
    }

    private static List<String> sqlBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher block = Pattern.compile("(?s)```sql\\n(.*?)```").matcher(markdown);
        while (block.find()) {
            // SQL comments explain the columns to readers; they are not part of the DDL.
            blocks.add(block.group(1).replaceAll("--[^\\n]*", ""));
        }
        return blocks;
    }

    /** The column and key definitions of a CREATE TABLE, split at the top-level commas. */
    private static List<String> definitions(String create) {
        String body = create.substring(create.indexOf('(') + 1, create.lastIndexOf(')'));
        List<String> definitions = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                definitions.add(body.substring(from, i).trim());
                from = i + 1;
            }
        }
        definitions.add(body.substring(from).trim());
        return definitions;
    }

    private static String normalize(String sql) {
        return sql.replaceAll("\\s+", " ").replace("( ", "(").replace(" )", ")");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
