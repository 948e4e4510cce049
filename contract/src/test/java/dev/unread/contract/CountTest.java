package dev.unread.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
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
