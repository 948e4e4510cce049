package dev.unread.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.unread.contract.EventJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** USER_ERASED as docs/contract.md, "Erasure", gives it, and its refusals. */
class UserErasedParsingTest {

    private final EventParser parser = new EventParser();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anErasureParsesWithItsTimeAndRoundTrips() throws Exception {
        ChatEvent erasure = parser.parseRead(utf8(EventJson.userErased(10086, 1767225600000L)));
        assertThat(erasure).isEqualTo(ChatEvent.userErased(10086, 1767225600000L));
        assertThat(ChatEventJson.text(erasure))
                .isEqualTo(EventJson.userErased(10086, 1767225600000L));
        assertThat(ChatEventSerializer.INSTANCE.copy(erasure)).isEqualTo(erasure);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"type\":\"USER_ERASED\",\"userId\":1}|erasedAt: missing",
                "{\"type\":\"USER_ERASED\",\"userId\":1,\"erasedAt\":null}|erasedAt: missing",
                "{\"type\":\"USER_ERASED\",\"userId\":1,\"erasedAt\":\"2026-01-01\"}|erasedAt: must be an integer",
                "{\"type\":\"USER_ERASED\",\"userId\":1,\"erasedAt\":1.5}|erasedAt: must be an integer",
                "{\"type\":\"USER_ERASED\",\"userId\":1,\"erasedAt\":0}|erasedAt: must be > 0, was 0",
                "{\"type\":\"USER_ERASED\",\"erasedAt\":1}|userId: missing",
                "{\"type\":\"USER_ERASED\",\"userId\":-4,\"erasedAt\":1}|userId: must be > 0, was -4",
                "{\"type\":\"USER_ERASED\",\"userId\":1,\"readAt\":1}|erasedAt: missing"
            })
    void aBadErasureIsADeadLetterWithItsReason(String record, String reason) {
        assertThatThrownBy(() -> parser.parseRead(utf8(record)))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage(reason);
    }
}
