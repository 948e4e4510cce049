package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.events.ChatEvent;
import dev.unread.events.ConversationEvent;
import dev.unread.events.EventParser;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficRecord;
import dev.unread.generator.Workload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ProducerFanOut} on generated group traffic: each group message becomes one {@code
 * chat-messages} record per member but the sender, and a reply stays a reply in the same thread on
 * every one of them (issue 25), as the value the job parses says.
 */
class ProducerFanOutTest {

    @Test
    void everyDeliveryOfAGroupReplyCarriesItsThread() throws Exception {
        Workload workload =
                Workload.builder()
                        .seed(3)
                        .receivers(500)
                        .publishedGroupShare(1)
                        .publishedGroups(4)
                        .publishedGroupMaxSize(20)
                        .malformedShare(0)
                        .replyShare(0.5)
                        .build();
        TrafficGenerator generator = TrafficGenerator.synthetic(workload, 1_767_225_600_000L, 1000);
        ProducerFanOut fanOut = new ProducerFanOut();
        EventParser parser = new EventParser();
        List<String> wrong = new ArrayList<>();
        long replies = 0;
        long deliveries = 0;

        for (int i = 0; i < 5_000; i++) {
            TrafficRecord record = generator.next();
            ConversationEvent group = record.conversation();
            boolean message = group != null && group.kind == ConversationEvent.Kind.MESSAGE;
            replies += message && group.threadSeq > 0 ? 1 : 0;
            List<TrafficRecord> out = new ArrayList<>();
            fanOut.apply(record, out::add);
            if (!message) {
                continue;
            }
            for (TrafficRecord delivery : out) {
                ChatEvent parsed = parser.parseMessage(delivery.value());
                deliveries++;
                if (parsed.threadSeq != group.threadSeq
                        || parsed.seq != group.seq
                        || parsed.senderId != group.senderId
                        || parsed.userId == group.senderId) {
                    wrong.add(group + " -> " + parsed);
                }
            }
        }

        assertThat(wrong).isEmpty();
        assertThat(replies).isPositive();
        assertThat(deliveries).isEqualTo(fanOut.deliveries()).isPositive();
    }
}
