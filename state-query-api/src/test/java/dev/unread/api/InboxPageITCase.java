package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.EventJson;
import dev.unread.contract.RedisNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The inbox page of {@code GET /} in headless Chromium (Debian's chromium and chromedriver, driven
 * by Selenium): "open inbox" posts INBOX_OPENED, which reaches Kafka; the test then plays the job's
 * part (the counts and version written, UNREAD_CHANGED published, as the job's Redis sink does) and
 * the badge goes to 0 without a reload. Saves docs/inbox-page.png.
 */
@ExtendWith(KafkaBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InboxPageITCase {

    private static final long USER = 10001;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private TestStores stores;
    private StateQueryApi api;
    private String topic;
    private WebDriver browser;
    private Path profile;

    @BeforeAll
    void start() throws Exception {
        stores = new TestStores();
        topic = KafkaBroker.createTopic();
        api = StateQueryApi.start(stores.config(topic).build());
        profile = Files.createTempDirectory("chromium-");
        ChromeOptions options =
                new ChromeOptions()
                        .setBinary("/usr/bin/chromium")
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
                                .usingDriverExecutable(Paths.get("/usr/bin/chromedriver").toFile())
                                .usingAnyFreePort()
                                .build(),
                        options);
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (api != null) {
            api.close();
        }
        stores.close();
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The job's sink in one flush: the user's counts, the version, then UNREAD_CHANGED. */
    private void jobFlush(long version, long badge, String conversations) {
        stores.redis.set(RedisNames.sendersKey(stores.keyPrefix, USER), Long.toString(badge));
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
    void openInboxTakesTheBadgeToZeroWithoutAReload() throws Exception {
        stores.redis.hset(RedisNames.conversationsKey(stores.keyPrefix, USER), "80001", "4");
        stores.redis.hset(RedisNames.conversationsKey(stores.keyPrefix, USER), "80002", "1");
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
        screenshot();

        browser.findElement(By.id("openInbox")).click();

        Poll.until(() -> !KafkaBroker.consumeAll(topic).isEmpty());
        ConsumerRecord<String, String> opened = KafkaBroker.consumeAll(topic).get(0);
        assertThat(opened.key()).isEqualTo(Long.toString(USER));
        assertThat(Http.JSON.readTree(opened.value()).get("type").asText())
                .isEqualTo(EventJson.INBOX_OPENED);
        jobFlush(300, 0, "");
        wait.until(b -> b.findElement(By.id("badge")).getText().equals("0"));
        assertThat(browser.findElement(By.id("status")).getText()).contains("version 300");
    }

    private void screenshot() throws IOException {
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Path docs = Paths.get("..", "docs");
        if (Files.isDirectory(docs)) {
            Files.write(docs.resolve("inbox-page.png"), png);
        }
    }
}
