package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CountTest {

    @Test
    void noTwoCountsWriteTheSamePlace() {
        Set<String> places = new HashSet<>();
        for (Count count : Count.values()) {
            assertThat(places.add(count.key("p:", 7) + " " + count.field(80001, 5)))
                    .as("%s writes where another count does", count)
                    .isTrue();
        }
    }

    /**
     * What the API's answers can hold (CountSection): a number, a hash of counts by conversation,
     * thread or total name, a set of conversations or threads; and one section per key, the totals
     * sharing theirs.
     */
    @Test
    void everyCountHasAShapeAndFieldTheAnswersHoldAndItsSectionAKeyOfItsOwn() {
        Map<String, String> keyOfSection = new HashMap<>();
        for (Count count : Count.values()) {
            Count.Field field = count.fieldKind();
            boolean held =
                    switch (count.shape()) {
                        case STRING -> field == Count.Field.NONE;
                        case HASH -> field != Count.Field.NONE;
                        case SET ->
                                field == Count.Field.CONVERSATION || field == Count.Field.THREAD;
                    };
            assertThat(held).as("%s: %s of %s", count, count.shape(), field).isTrue();
            String key = count.key("", 7);
            assertThat(keyOfSection.putIfAbsent(count.section(), key))
                    .as("%s shares its section with a count of another key", count)
                    .isIn(null, key);
            if (field != Count.Field.TOTAL) {
                assertThat(
                                Arrays.stream(Count.values())
                                        .filter(c -> c.section().equals(count.section())))
                        .as("%s shares its section, and is no total", count)
                        .containsExactly(count);
            }
        }
    }

    @Test
    void theCatalogNamesTheContractsKeysAndFields() {
        assertThat(Count.SENDERS.key("p:", 7)).isEqualTo("p:unread:senders:7");
        assertThat(Count.SENDERS.field(80001, 5)).isNull();
        assertThat(Count.CONVERSATION.key("", 7)).isEqualTo("chat:unread:7");
        assertThat(Count.CONVERSATION.field(80001, 5)).isEqualTo("80001");
        assertThat(Count.MARKED.key("", 7)).isEqualTo("chat:marked-unread:7");
        assertThat(Count.TOTAL_CONVERSATIONS.key("", 7)).isEqualTo("unread:totals:7");
        assertThat(Count.TOTAL_CONVERSATIONS.field(80001, 5)).isEqualTo("conversations");
        assertThat(Count.THREAD_MENTIONS.key("", 7)).isEqualTo("chat:thread-mentions:7");
        assertThat(Count.THREAD_MENTIONS.field(80001, 5)).isEqualTo("80001:5");
        assertThat(Count.CHANNEL_MENTIONS.key("", 7)).isEqualTo("chat:channel-mentions:7");
        assertThat(Count.CHANNEL_MENTIONS.field(80001, 5)).isEqualTo("80001");
        assertThat(Count.THREAD_CHANNEL_MENTIONS.key("", 7))
                .isEqualTo("chat:thread-channel-mentions:7");
        assertThat(Count.THREAD_CHANNEL_MENTIONS.field(80001, 5)).isEqualTo("80001:5");
    }

    @Test
    void everySectionOfUnreadChangedIsInTheContract() throws Exception {
        String contract = Files.readString(Path.of("../docs/contract.md"));
        for (Count count : Count.values()) {
            assertThat(contract).as("%s's section", count).contains("\"" + count.section() + "\"");
        }
    }
}
