package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unread.contract.ChannelTrack;
import dev.unread.contract.Count;
import dev.unread.contract.InputField;
import dev.unread.contract.InputKind;
import dev.unread.contract.RedisNames;
import dev.unread.contract.TrackJson;
import dev.unread.local.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The inbox page of {@code GET /} in headless Chromium (Debian's chromium and chromedriver, driven
 * by Selenium): "open inbox" posts INBOX_OPENED, which reaches Kafka; the test then plays the job's
 * part (the counts and version written, UNREAD_CHANGED published, as the job's Redis sink does) and
 * the badge goes to 0 without a reload. A conversation's followed threads show under it, live, and
 * can be read and unfollowed. An "@" marks a conversation's or thread's unread channel-wide
 * mentions until they are read or ignored. Ids past 2^53 stay exact. The page runs under the
 * Content-Security-Policy the API serves it with, so a policy that blocked its own script fails
 * here. Runs where Chromium and its driver are installed; with CI=true it must run.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InboxPageITCase {

    private static final long USER = 10001;

    /** The thread test's user: its rows do not mix with the other tests'. */
    private static final long THREAD_USER = 10003;

    /** The channel mention test's user, for the same reason. */
    private static final long CHANNEL_USER = 10004;

    /** The linked page's user, a member of a channel. */
    private static final long LINK_USER = 10005;

    private static final Path CHROMIUM = Paths.get("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Paths.get("/usr/bin/chromedriver");

    /** 2^53 + 1: a JavaScript number would read it as 2^53. */
    private static final long BIG_USER = 9_007_199_254_740_993L;

    private static final long BIG_CONVERSATION = 9_007_199_254_740_995L;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension static final StartedApi STARTED = StartedApi.with(c -> c);

    private TestStores stores;
    private StateQueryApi api;
    private String topic;
    private WebDriver browser;
    private Path profile;

    @BeforeAll
    void start() throws Exception {
        if (!"true".equals(System.getenv("CI"))) {
            assumeTrue(
                    Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                    "InboxPageITCase skipped: install Debian's chromium and chromium-driver"
                            + " (/usr/bin/chromium, /usr/bin/chromedriver) to run it");
        }
        stores = STARTED.stores();
        topic = STARTED.topic();
        api = STARTED.api();
        profile = Files.createTempDirectory("chromium-");
        ChromeOptions options =
                new ChromeOptions()
                        .setBinary(CHROMIUM.toFile())
                        .addArguments(
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--window-size=900,600",
                                "--user-data-dir=" + profile);
        browser =
                new ChromeDriver(
                        new ChromeDriverService.Builder()
                                .usingDriverExecutable(CHROMEDRIVER.toFile())
                                .usingAnyFreePort()
                                .build(),
                        options);
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The job's sink in one flush: the user's counts, the version, then UNREAD_CHANGED. */
    private void jobFlush(long version, long badge, String conversations) {
        stores.redis.set(Count.SENDERS.key(stores.keyPrefix, USER), Long.toString(badge));
        stores.redis.setex(
                RedisNames.versionKey(stores.keyPrefix, USER),
                RedisNames.VERSION_TTL_SECONDS,
                Long.toString(version));
        stores.redis.publish(
                RedisNames.unreadChangedChannel(stores.keyPrefix, USER),
                "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                        + USER
                        + ",\"version\":"
                        + version
                        + ",\"unreadSenders\":"
                        + badge
                        + conversations
                        + "}");
    }

    @Test
    void markAllAsReadPublishesAllReadForTheUser() throws Exception {
        browser.get("http://127.0.0.1:" + api.port() + "/");
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys(Long.toString(USER));
        browser.findElement(By.id("connectButton")).click();
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> b.findElement(By.id("readAll")).isEnabled());

        browser.findElement(By.id("readAll")).click();

        ConsumerRecord<String, String> allRead =
                Await.until(
                        "the page's mark all as read in Kafka",
                        WAIT,
                        () ->
                                KafkaBroker.consumeAll(topic).stream()
                                        .filter(r -> r.value().contains(InputKind.ALL_READ.type()))
                                        .findFirst()
                                        .orElse(null));
        assertThat(allRead.key()).isEqualTo(Long.toString(USER));
        assertThat(Http.JSON.readTree(allRead.value()).get("userId").asLong()).isEqualTo(USER);
    }

    @Test
    void openInboxTakesTheBadgeToZeroWithoutAReload() throws Exception {
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, USER), "80001", "4");
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, USER), "80002", "1");
        jobFlush(100, 3, "");
        browser.get("http://127.0.0.1:" + api.port() + "/");
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys(Long.toString(USER));
        browser.findElement(By.id("connectButton")).click();
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> b.findElement(By.id("badge")).getText().equals("3"));
        wait.until(b -> b.findElements(By.cssSelector("#conversations tr")).size() == 2);
        // A change while the page is open arrives live too.
        jobFlush(200, 4, ",\"conversations\":{\"80002\":2}");
        wait.until(
                b ->
                        b.findElement(By.id("badge")).getText().equals("4")
                                && b.findElement(By.id("conversation-80002"))
                                        .getText()
                                        .startsWith("80002 2"));

        long versionBefore = shownVersion();
        browser.findElement(By.id("openInbox")).click();

        ConsumerRecord<String, String> opened =
                Await.until(
                        "the page's inbox open in Kafka",
                        WAIT,
                        () ->
                                KafkaBroker.consumeAll(topic).stream()
                                        .filter(
                                                r ->
                                                        r.value()
                                                                .contains(
                                                                        InputKind.INBOX_OPENED
                                                                                .type()))
                                        .findFirst()
                                        .orElse(null));
        assertThat(opened.key()).isEqualTo(Long.toString(USER));
        assertThat(Http.JSON.readTree(opened.value()).get("type").asText())
                .isEqualTo(InputKind.INBOX_OPENED.type());
        jobFlush(300, 0, "");
        wait.until(b -> b.findElement(By.id("badge")).getText().equals("0"));
        // The stream's version is the API's own, rising with every message it sends.
        assertThat(shownVersion()).isGreaterThan(versionBefore);
    }

    /** The stream version the page's status shows, as in "live (version 1796584663192000)". */
    private long shownVersion() {
        Matcher version =
                Pattern.compile("version (\\d+)")
                        .matcher(browser.findElement(By.id("status")).getText());
        assertThat(version.find()).as("the status names a version").isTrue();
        return Long.parseLong(version.group(1));
    }

    @Test
    void followedThreadsShowUnderTheirConversationLiveAndCanBeReadAndUnfollowed() throws Exception {
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, THREAD_USER), "80001", "2");
        stores.redis.hset(
                Count.THREAD.key(stores.keyPrefix, THREAD_USER),
                Map.of("80001:1038", "4", "80001:1040", "1"));
        stores.redis.hset(
                Count.THREAD_MENTIONS.key(stores.keyPrefix, THREAD_USER), "80001:1038", "1");
        stores.redis.hset(Count.TOTAL_MESSAGES.key(stores.keyPrefix, THREAD_USER), "threads", "2");
        browser.get("http://127.0.0.1:" + api.port() + "/");
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys(Long.toString(THREAD_USER));
        browser.findElement(By.id("connectButton")).click();
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> !b.findElements(By.id("thread-80001-1040")).isEmpty());
        assertThat(rowTexts()).containsExactly("80001 2 0", "thread 1038 4 1", "thread 1040 1 0");
        assertThat(browser.findElement(By.id("totals")).getText()).contains("2 threads");

        // The job's change: a reply in 1040, and a thread followed in a conversation that has
        // nothing else unread, which gets a row of its own for its thread to sit under.
        threadChange(100, "\"threads\":{\"80001:1040\":3,\"80002:7\":2}");
        wait.until(b -> !b.findElements(By.id("thread-80002-7")).isEmpty());
        assertThat(rowTexts())
                .containsExactly(
                        "80001 2 0",
                        "thread 1038 4 1",
                        "thread 1040 3 0",
                        "80002 0 0",
                        "thread 7 2 0");

        var thread = browser.findElement(By.id("thread-80001-1038"));
        thread.findElement(By.className("seq")).sendKeys("1060");
        thread.findElement(By.className("read")).click();
        var read = Http.JSON.readTree(published(InputKind.THREAD_READ.type()).value());
        assertThat(read.get("conversationId").asLong()).isEqualTo(80001);
        assertThat(read.get("threadSeq").asLong()).isEqualTo(1038);
        assertThat(read.get("readSeq").asLong()).isEqualTo(1060);

        browser.findElement(By.id("thread-80001-1040"))
                .findElement(By.className("unfollow"))
                .click();
        var unfollow = Http.JSON.readTree(published(InputKind.THREAD_FOLLOWED.type()).value());
        assertThat(unfollow.get("threadSeq").asLong()).isEqualTo(1040);
        assertThat(unfollow.get("following").asBoolean()).isFalse();

        // The job applies both: the read thread's counts drop, the unfollowed one's go to 0.
        threadChange(
                200,
                "\"threads\":{\"80001:1038\":0,\"80001:1040\":0},"
                        + "\"threadMentions\":{\"80001:1038\":0}");
        wait.until(b -> b.findElements(By.cssSelector("#conversations tr.thread")).size() == 1);
        assertThat(rowTexts()).containsExactly("80001 2 0", "80002 0 0", "thread 7 2 0");
    }

    /** Each row's first three cells: a conversation's or a thread's name, unread and mentions. */
    private List<String> rowTexts() {
        return browser.findElements(By.cssSelector("#conversations tr")).stream()
                .map(
                        row ->
                                row.findElements(By.tagName("td")).stream()
                                        .limit(3)
                                        .map(cell -> cell.getText())
                                        .collect(Collectors.joining(" ")))
                .toList();
    }

    /** UNREAD_CHANGED of the thread test's user with {@code fields}, as the job publishes it. */
    private void threadChange(long version, String fields) {
        change(THREAD_USER, version, fields);
    }

    /** UNREAD_CHANGED of {@code user} with {@code fields}, as the job publishes it. */
    private void change(long user, long version, String fields) {
        stores.redis.publish(
                RedisNames.unreadChangedChannel(stores.keyPrefix, user),
                "{\"type\":\"UNREAD_CHANGED\",\"userId\":"
                        + user
                        + ",\"version\":"
                        + version
                        + ","
                        + fields
                        + "}");
    }

    /** The thread test's user's first event of {@code type} on the topic, keyed by the user. */
    private ConsumerRecord<String, String> published(String type) throws Exception {
        return published(THREAD_USER, type);
    }

    /** {@code user}'s first event of {@code type} on the topic, keyed by the user. */
    private ConsumerRecord<String, String> published(long user, String type) throws Exception {
        return Await.until(
                "the page's " + type + " in Kafka",
                WAIT,
                () ->
                        KafkaBroker.consumeAll(topic).stream()
                                .filter(
                                        r ->
                                                r.key().equals(Long.toString(user))
                                                        && r.value().contains(type))
                                .findFirst()
                                .orElse(null));
    }

    @Test
    void anAtMarksUnreadChannelWideMentionsUntilTheConversationIsReadOrIgnoresThem()
            throws Exception {
        // Before the page opens: an @here in 80002 is unread, so the snapshot carries its mark.
        stores.redis.hset(
                Count.CONVERSATION.key(stores.keyPrefix, CHANNEL_USER),
                Map.of("80001", "1", "80002", "1"));
        stores.redis.hset(Count.MENTIONS.key(stores.keyPrefix, CHANNEL_USER), "80002", "1");
        stores.redis.hset(Count.CHANNEL_MENTIONS.key(stores.keyPrefix, CHANNEL_USER), "80002", "1");
        browser.get("http://127.0.0.1:" + api.port() + "/");
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys(Long.toString(CHANNEL_USER));
        browser.findElement(By.id("connectButton")).click();
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> hasAtMark("conversation-80002"));
        assertThat(hasAtMark("conversation-80001")).isFalse();

        // The job's flush after an @channel message in 80001 and an @all reply in its followed
        // thread 1038.
        change(
                CHANNEL_USER,
                100,
                "\"conversations\":{\"80001\":2},\"mentions\":{\"80001\":1},"
                        + "\"channelMentions\":{\"80001\":1},\"threads\":{\"80001:1038\":1},"
                        + "\"threadMentions\":{\"80001:1038\":1},"
                        + "\"threadChannelMentions\":{\"80001:1038\":1}");
        wait.until(b -> hasAtMark("conversation-80001") && hasAtMark("thread-80001-1038"));
        assertThat(rowTexts()).containsExactly("80001 2 1@", "thread 1038 1 1@", "80002 1 1@");

        var conversation = browser.findElement(By.id("conversation-80001"));
        conversation.findElement(By.className("seq")).sendKeys("2");
        conversation.findElement(By.className("read")).click();
        var read =
                Http.JSON.readTree(
                        published(CHANNEL_USER, InputKind.CONVERSATION_READ.type()).value());
        assertThat(read.get("conversationId").asLong()).isEqualTo(80001);
        assertThat(read.get("readSeq").asLong()).isEqualTo(2);
        // The job's answer: the conversation read, its thread still unread.
        change(
                CHANNEL_USER,
                200,
                "\"conversations\":{\"80001\":0},\"mentions\":{\"80001\":0},"
                        + "\"channelMentions\":{\"80001\":0}");
        wait.until(b -> !hasAtMark("conversation-80001"));
        assertThat(rowTexts()).containsExactly("80001 0 0", "thread 1038 1 1@", "80002 1 1@");

        browser.findElement(By.id("conversation-80002"))
                .findElement(By.className("ignore-channel-mentions"))
                .click();
        var ignore =
                Http.JSON.readTree(
                        published(CHANNEL_USER, InputKind.CONVERSATION_PREFERENCE.type()).value());
        assertThat(ignore.get("conversationId").asLong()).isEqualTo(80002);
        assertThat(ignore.get("ignoreChannelMentions").asBoolean()).isTrue();
        // The job's answer: the @here no longer counts as a mention, nor marks the conversation.
        change(CHANNEL_USER, 300, "\"mentions\":{\"80002\":0},\"channelMentions\":{\"80002\":0}");
        wait.until(b -> !hasAtMark("conversation-80002"));
        assertThat(rowTexts()).containsExactly("80001 0 0", "thread 1038 1 1@", "80002 1 0");
    }

    /**
     * Whether the row of this id shows the "@" of unread channel-wide mentions: one lookup, since
     * the page replaces its rows on every message.
     */
    private boolean hasAtMark(String rowId) {
        return !browser.findElements(By.cssSelector("#" + rowId + " .channel-mention")).isEmpty();
    }

    @Test
    void aLinkWithAUserOpensThePageConnectedAndShowsItsChannelsLikeAnyConversation()
            throws Exception {
        // A group counted by the job, and a channel counted from its index and the user's track:
        // roots 10 and 20 past the cursor at 5, 20 naming the user; a followed thread with a reply.
        stores.redis.hset(Count.CONVERSATION.key(stores.keyPrefix, LINK_USER), "80001", "1");
        long channel = 80009;
        stores.redis.setbit(RedisNames.channelSeqsKey(stores.keyPrefix, channel), 10, true);
        stores.redis.setbit(RedisNames.channelSeqsKey(stores.keyPrefix, channel), 20, true);
        stores.redis.zadd(RedisNames.channelThreadKey(stores.keyPrefix, channel, 10), 15, "15");
        String tracks = RedisNames.channelTracksKey(stores.keyPrefix, LINK_USER);
        stores.redis.hset(
                tracks,
                RedisNames.channelTrackField(channel),
                new TrackJson()
                        .write(
                                new ChannelTrack(
                                        List.of(ChannelTrack.Interval.open(2)),
                                        5,
                                        0,
                                        1,
                                        0,
                                        InputField.CountPreference.ALL,
                                        false,
                                        false)));
        stores.redis.hset(tracks, RedisNames.threadField(channel, 10), "{}");

        browser.get("http://127.0.0.1:" + api.port() + "/?user=" + LINK_USER);

        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> !b.findElements(By.id("thread-" + channel + "-10")).isEmpty());
        assertThat(browser.findElement(By.id("user")).getAttribute("value"))
                .isEqualTo(Long.toString(LINK_USER));
        assertThat(browser.findElement(By.id("status")).getText()).startsWith("live");
        assertThat(rowTexts()).containsExactly("80001 1 0", "80009 2 1", "thread 10 1 0");
        assertThat(browser.findElement(By.id("openInbox")).isEnabled()).isTrue();
    }

    @Test
    void idsPastTwoToTheFiftyThirdStayExact() throws Exception {
        stores.redis.hset(
                Count.CONVERSATION.key(stores.keyPrefix, BIG_USER),
                Long.toString(BIG_CONVERSATION),
                "2");
        browser.get("http://127.0.0.1:" + api.port() + "/");
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys(Long.toString(BIG_USER));
        browser.findElement(By.id("connectButton")).click();
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.until(b -> !b.findElements(By.id("conversation-" + BIG_CONVERSATION)).isEmpty());

        var row = browser.findElement(By.id("conversation-" + BIG_CONVERSATION));
        row.findElement(By.className("seq")).sendKeys("7");
        row.findElement(By.className("read")).click();

        ConsumerRecord<String, String> read =
                Await.until(
                        "the page's read in Kafka",
                        WAIT,
                        () ->
                                KafkaBroker.consumeAll(topic).stream()
                                        .filter(
                                                r ->
                                                        r.value()
                                                                .contains(
                                                                        InputKind.CONVERSATION_READ
                                                                                .type()))
                                        .findFirst()
                                        .orElse(null));
        assertThat(read.key()).isEqualTo(Long.toString(BIG_USER));
        var value = Http.JSON.readTree(read.value());
        assertThat(value.get("userId").asLong()).isEqualTo(BIG_USER);
        assertThat(value.get("conversationId").asLong()).isEqualTo(BIG_CONVERSATION);
        assertThat(value.get("readSeq").asLong()).isEqualTo(7);
    }
}
