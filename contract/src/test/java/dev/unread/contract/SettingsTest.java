package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheDefault() {
        Setting s = Settings.REDIS_KEY_PREFIX;
        assertThat(s.from(Map.of(), Map.of())).isEmpty();
        assertThat(s.from(Map.of(), Map.of("UNREAD_REDIS_KEY_PREFIX", "env:"))).isEqualTo("env:");
        assertThat(
                        s.from(
                                Map.of("redis-key-prefix", "flag:"),
                                Map.of("UNREAD_REDIS_KEY_PREFIX", "env:")))
                .isEqualTo("flag:");
        assertThat(s.flag()).isEqualTo("--redis-key-prefix");
    }

    @Test
    void flagsTakeTheirValueAfterASpaceOrAnEqualsSign() {
        assertThat(Settings.parseFlags(new String[] {"--a", "1", "--b=x=y"}))
                .containsExactly(Map.entry("a", "1"), Map.entry("b", "x=y"));
        assertThatThrownBy(() -> Settings.parseFlags(new String[] {"--a"}))
                .hasMessage("--a needs a value");
        assertThatThrownBy(() -> Settings.parseFlags(new String[] {"a"}))
                .hasMessage("expected --name value, got a");
    }

    @Test
    void wholeNumbersAreCheckedAgainstTheirMinimum() {
        assertThat(Settings.wholeNumber("--n", " 7 ", 1)).isEqualTo(7);
        assertThatThrownBy(() -> Settings.wholeNumber("--n", "7.5", 1))
                .hasMessage("--n must be a whole number, was 7.5");
        assertThatThrownBy(() -> Settings.wholeNumber("--n", "0", 1))
                .hasMessage("--n must be >= 1, was 0");
    }

    @Test
    void maskedUrlsKeepTheUserAndHideEveryPassword() {
        assertThat(Settings.masked("redis://:secret@host:6379/0"))
                .isEqualTo("redis://:***@host:6379/0");
        assertThat(Settings.masked("rediss://app:secret@host:6380/1"))
                .isEqualTo("rediss://app:***@host:6380/1");
        assertThat(Settings.masked("redis://host:6379/0")).isEqualTo("redis://host:6379/0");
        assertThat(Settings.masked("jdbc:mysql://db/x?user=u&password=secret&sslMode=REQUIRED"))
                .isEqualTo("jdbc:mysql://db/x?user=u&password=***&sslMode=REQUIRED");
    }
}
