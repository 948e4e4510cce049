package dev.unread.peer;

import dev.unread.events.ChatEvent;
import dev.unread.events.EventParser;
import dev.unread.events.InvalidRecordException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The sender badge of docs/contract.md, one record at a time, on two RocksDB stores: {@value
 * BadgePeer#SENDERS_STORE} holds, per (receiver, sender), the newest time of a message after the
 * receiver's last inbox open, so the badge is the number of the receiver's entries; {@value
 * BadgePeer#INBOXES_STORE} holds per user that last open and the badge. An open deletes the entries
 * it covers. Each change of a badge is forwarded as the new absolute count under the input record's
 * key (the user), which {@link BadgePeer}'s cached table coalesces per commit.
 *
 * <p>Records are parsed by the job's own {@link EventParser}; refused ones are dropped (the job
 * dead-letters them). {@code CONVERSATION_READ} changes no badge.
 */
final class BadgeProcessor implements FixedKeyProcessor<byte[], byte[], Long> {

    private final String messagesTopic;
    private final AtomicLong processed;
    private final EventParser parser = new EventParser();

    private FixedKeyProcessorContext<byte[], Long> context;
    private KeyValueStore<Bytes, Long> senders;
    private KeyValueStore<Long, byte[]> inboxes;

    BadgeProcessor(String messagesTopic, AtomicLong processed) {
        this.messagesTopic = messagesTopic;
        this.processed = processed;
    }

    @Override
    public void init(FixedKeyProcessorContext<byte[], Long> context) {
        this.context = context;
        this.senders = context.getStateStore(BadgePeer.SENDERS_STORE);
        this.inboxes = context.getStateStore(BadgePeer.INBOXES_STORE);
    }

    @Override
    public void process(FixedKeyRecord<byte[], byte[]> record) {
        try {
            ChatEvent event = parse(record.value());
            if (event != null && event.kind == ChatEvent.Kind.MESSAGE) {
                message(record, event);
            } else if (event != null && event.kind == ChatEvent.Kind.INBOX_OPENED) {
                inboxOpened(record, event);
            }
        } finally {
            processed.incrementAndGet();
        }
    }

    private ChatEvent parse(byte[] value) {
        if (value == null) {
            return null;
        }
        boolean message =
                context.recordMetadata()
                        .map(RecordMetadata::topic)
                        .map(messagesTopic::equals)
                        .orElse(false);
        try {
            return message ? parser.parseMessage(value) : parser.parseRead(value);
        } catch (InvalidRecordException e) {
            return null;
        }
    }

    private void message(FixedKeyRecord<byte[], byte[]> record, ChatEvent event) {
        if (event.senderId == event.userId) {
            return;
        }
        byte[] inbox = inboxes.get(event.userId);
        long lastReadAt = inbox == null ? 0 : ByteBuffer.wrap(inbox).getLong(0);
        if (event.time <= lastReadAt) {
            return;
        }
        Bytes pair = pair(event.userId, event.senderId);
        Long newest = senders.get(pair);
        if (newest != null && newest >= event.time) {
            return;
        }
        senders.put(pair, event.time);
        if (newest == null) {
            long badge = (inbox == null ? 0 : ByteBuffer.wrap(inbox).getLong(8)) + 1;
            inboxes.put(event.userId, inbox(lastReadAt, badge));
            context.forward(record.withValue(badge));
        }
    }

    private void inboxOpened(FixedKeyRecord<byte[], byte[]> record, ChatEvent event) {
        byte[] inbox = inboxes.get(event.userId);
        long lastReadAt = inbox == null ? 0 : ByteBuffer.wrap(inbox).getLong(0);
        if (event.time <= lastReadAt) {
            return;
        }
        long before = inbox == null ? 0 : ByteBuffer.wrap(inbox).getLong(8);
        List<Bytes> covered = new ArrayList<>();
        long badge = 0;
        try (KeyValueIterator<Bytes, Long> it =
                senders.range(pair(event.userId, 0), pair(event.userId, Long.MAX_VALUE))) {
            while (it.hasNext()) {
                KeyValue<Bytes, Long> entry = it.next();
                if (entry.value <= event.time) {
                    covered.add(entry.key);
                } else {
                    badge++;
                }
            }
        }
        for (Bytes key : covered) {
            senders.delete(key);
        }
        inboxes.put(event.userId, inbox(event.time, badge));
        if (badge != before) {
            context.forward(record.withValue(badge));
        }
    }

    /** Big-endian, so that one receiver's senders are one range of keys. */
    private static Bytes pair(long receiverId, long senderId) {
        return Bytes.wrap(ByteBuffer.allocate(16).putLong(receiverId).putLong(senderId).array());
    }

    private static byte[] inbox(long lastReadAt, long badge) {
        return ByteBuffer.allocate(16).putLong(lastReadAt).putLong(badge).array();
    }
}
