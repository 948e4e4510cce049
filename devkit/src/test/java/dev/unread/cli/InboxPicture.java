package dev.unread.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.UnreadJob;
import dev.unread.config.UnreadConfig;
import dev.unread.testing.MySqlTestDatabase;
import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The README's picture of the inbox page ({@code docs/inbox-page.png}), taken from the real local
 * stack: the job's own counts of generated traffic, in Debian's headless Chromium. A step of its
 * own, never part of {@code mvn verify} (the name matches neither test pattern):
 *
 * <pre>mvn -B -pl devkit -am verify -Dtest=NONE -Dit.test=InboxPicture \
 *     -Dsurefire.failIfNoSpecifiedTests=false</pre>
 *
 * {@code -Dunread.picture=FILE} writes it elsewhere.
 */
class InboxPicture {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void takesThePictureOfTheMostActiveUsersInbox() throws Exception {
        Path picture =
                Path.of(System.getProperty("unread.picture", "../docs/inbox-page.png"))
                        .toAbsolutePath();
        String prefix = TestRedis.uniquePrefix();
        Path profile = Files.createTempDirectory("chromium-");
        try (MySqlTestDatabase mysql = MySqlTestDatabase.create();
                LocalStack stack =
                        LocalStack.start(
                                LocalStack.Options.parse(
                                        List.of(
                                                "--kafka-port", "0",
                                                "--flink-ui-port", "0",
                                                "--api-port", "0",
                                                "--generate", "200",
                                                "--redis-key-prefix", prefix,
                                                "--jdbc-url", mysql.jdbcUrl(),
                                                "--jdbc-user", mysql.name),
                                        Map.of(UnreadConfig.JDBC_PASSWORD_ENV, mysql.password)),
                                Map.of(UnreadConfig.JDBC_PASSWORD_ENV, mysql.password),
                                UnreadJob::forProduction)) {
            assertThat(stack.awaitRunning(WAIT, new CountDownLatch(1))).isTrue();
            stack.startTraffic();
            long user = 10001;
            HttpClient http = HttpClient.newHttpClient();
            URI unread = URI.create(stack.apiUri() + "/api/users/" + user + "/unread");
            // A few conversations, a mention and a followed thread make a picture worth showing.
            Poll.until(
                    "user " + user + " with conversations, mentions and threads",
                    WAIT,
                    () -> {
                        JsonNode body =
                                JSON.readTree(
                                        http.send(
                                                        HttpRequest.newBuilder(unread).build(),
                                                        HttpResponse.BodyHandlers.ofString())
                                                .body());
                        return body.path("conversations").size() >= 3
                                        && body.path("mentions").size() > 0
                                        && body.path("threads").size() > 0
                                ? true
                                : null;
                    });
            WebDriver browser = chromium(profile);
            try {
                browser.get(stack.apiUri() + "/");
                browser.findElement(By.id("user")).clear();
                browser.findElement(By.id("user")).sendKeys(Long.toString(user));
                browser.findElement(By.id("connectButton")).click();
                new WebDriverWait(browser, WAIT)
                        .until(
                                b ->
                                        b.findElements(By.cssSelector("#conversations tr")).size()
                                                >= 3);
                byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
                Files.write(picture, png);
            } finally {
                browser.quit();
            }
        } finally {
            TestRedis.deleteKeys(0, prefix);
        }
        byte[] written = Files.readAllBytes(picture);
        assertThat(written).startsWith(0x89, 'P', 'N', 'G');
    }

    private static WebDriver chromium(Path profile) {
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
        return new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build(),
                options);
    }
}
