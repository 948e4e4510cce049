package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParamsTest {

    @Test
    void idsFromOneToLongMaxAreAccepted() {
        assertThat(Params.id("userId", "1")).isEqualTo(1);
        assertThat(Params.id("userId", "0010086")).isEqualTo(10086);
        assertThat(Params.id("userId", "9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "0",
                "00",
                "-1",
                "+1",
                " 1",
                "1 ",
                "1e3",
                "0x10",
                "1.0",
                "١",
                "9223372036854775808",
                "99999999999999999999",
                "18446744073709551615"
            })
    void anythingElseIsA400NamingTheParameter(String text) {
        assertThatThrownBy(() -> Params.id("userId", text))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status).isEqualTo(400))
                .hasMessage("userId must be an integer from 1 to 9223372036854775807");
    }

    @Test
    void anIdListKeepsOrderAndDuplicates() {
        assertThat(Params.idList("userIds", List.of("3,1,3"))).containsExactly(3, 1, 3);
    }

    @Test
    void anIdListHoldsOneToFiveHundredIds() {
        String five = "1,".repeat(499) + "1";
        assertThat(Params.idList("userIds", List.of(five))).hasSize(500);
        assertThatThrownBy(() -> Params.idList("userIds", List.of(five + ",1")))
                .hasMessage("userIds may list at most 500 ids");
        assertThatThrownBy(() -> Params.idList("userIds", List.of("")))
                .hasMessage("userIds must list at least one id");
        assertThatThrownBy(() -> Params.idList("userIds", List.of()))
                .hasMessage("query parameter userIds is required");
        assertThatThrownBy(() -> Params.idList("userIds", List.of("1", "2")))
                .hasMessage("query parameter userIds must be given once");
    }

    @Test
    void bodyFieldsMustBeIntegersInRange() throws Exception {
        ObjectMapper json = new ObjectMapper();
        var body = Params.jsonObject(json, bytes("{\"a\":5,\"b\":0,\"c\":5.0,\"d\":\"5\"}"));

        assertThat(Params.longField(body, "a", 1)).isEqualTo(5);
        assertThat(Params.longField(body, "b", 0)).isZero();
        assertThatThrownBy(() -> Params.longField(body, "b", 1))
                .hasMessage("field b must be an integer from 1 to 9223372036854775807");
        assertThatThrownBy(() -> Params.longField(body, "c", 0)).isInstanceOf(ApiError.class);
        assertThatThrownBy(() -> Params.longField(body, "d", 0)).isInstanceOf(ApiError.class);
        assertThatThrownBy(() -> Params.longField(body, "e", 0)).hasMessage("field e is required");
    }

    @Test
    void onlyAJsonObjectIsABody() {
        ObjectMapper json = new ObjectMapper();
        for (String text : new String[] {"", "null", "[]", "1", "{", "\"{}\""}) {
            assertThatThrownBy(() -> Params.jsonObject(json, bytes(text)))
                    .as(text)
                    .hasMessage("body must be a JSON object");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
