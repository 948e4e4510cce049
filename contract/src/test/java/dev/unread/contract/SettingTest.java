package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {

    private static final Setting<Long> INTERVAL =
            Setting.wholeNumber("flush-interval-ms", 100, 1).described("one command per key");
    private static final Setting<Integer> PORT = Setting.integer("api-port", 8080, 0, 65535);
    private static final Setting<String> PASSWORD = Setting.secret("db-password", null);

    @Test
    void aValueIsParsedAndCheckedAgainstItsDeclaredBounds() {
        assertThat(INTERVAL.parse(INTERVAL.flag(), "50")).isEqualTo(50L);
        assertThat(INTERVAL.initial()).isEqualTo(100L);
        assertThatThrownBy(() -> INTERVAL.parse(INTERVAL.flag(), "0"))
                .hasMessage("--flush-interval-ms must be >= 1, was 0");
        assertThatThrownBy(() -> PORT.parse(PORT.env(), "eighty"))
                .hasMessage("UNREAD_API_PORT must be a whole number, was eighty");
        assertThatThrownBy(() -> PORT.parse(PORT.env(), "4294967296"))
                .hasMessage("UNREAD_API_PORT must be at most 2147483647, was 4294967296");
    }

    @Test
    void aValueSetInCodeIsCheckedNamingTheUnitItsNameEndsWith() {
        assertThat(PORT.check("port", 0)).isZero();
        assertThatThrownBy(() -> PORT.check("port", 70000))
                .hasMessage("port must be at most 65535, was 70000");
        assertThatThrownBy(() -> INTERVAL.check("flush interval", 0L))
                .hasMessage("flush interval must be >= 1 ms, was 0");
        assertThat(INTERVAL.words()).isEqualTo("flush interval");
        assertThat(PORT.words()).isEqualTo("api port");
    }

    @Test
    void aSecretNeverComesFromAFlagAndIsNeverShown() {
        Map<String, String> flags = Map.of("db-password", "flag");
        assertThat(PASSWORD.from(flags, Map.of())).isNull();
        assertThat(PASSWORD.from(flags, Map.of("UNREAD_DB_PASSWORD", "pw"))).isEqualTo("pw");
        assertThat(PASSWORD.shown("pw")).isEqualTo("***");
        assertThat(PASSWORD.shown(null)).isEmpty();
        assertThat(Settings.REDIS_URL.shown("redis://:pw@h:1/0")).isEqualTo("redis://:***@h:1/0");
    }

    @Test
    void theTableRowsSayTheBoundsTheDefaultAndWhatEachIsFor() {
        assertThat(Settings.table(List.of(INTERVAL, PASSWORD, PORT), true))
                .isEqualTo(
                        """
                        | flag | environment | default | rule |
                        | --- | --- | --- | --- |
                        | `--flush-interval-ms` | `UNREAD_FLUSH_INTERVAL_MS` | `100` | ≥ 1; one command per key |
                        | | `UNREAD_DB_PASSWORD` | (unset) | |
                        | `--api-port` | `UNREAD_API_PORT` | `8080` | 0..65535 |
                        """);
        assertThat(Settings.shown(List.of(INTERVAL, PASSWORD), s -> s == INTERVAL ? 5L : "pw"))
                .isEqualTo("flushIntervalMs=5, dbPassword=***");
    }
}
