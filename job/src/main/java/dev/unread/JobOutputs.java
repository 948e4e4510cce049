package dev.unread;

import dev.unread.events.ChannelWrite;
import dev.unread.events.ConversationCursor;
import dev.unread.events.DeadLetter;
import dev.unread.events.InboxCursor;
import dev.unread.events.ReadReceipt;
import dev.unread.events.ReaderUpdate;
import dev.unread.events.UnreadCount;
import org.apache.flink.api.connector.sink2.Sink;

/** Where the job's results go. */
public final class JobOutputs {
    private final Sink<UnreadCount> counts;
    private final Sink<ReadReceipt> receipts;
    private final Sink<InboxCursor> inboxCursors;
    private final Sink<ConversationCursor> conversationCursors;
    private final Sink<ReaderUpdate> readers;
    private final Sink<DeadLetter> deadLetters;
    private final Sink<ChannelWrite> channels;

    public JobOutputs(
            Sink<UnreadCount> counts,
            Sink<ReadReceipt> receipts,
            Sink<InboxCursor> inboxCursors,
            Sink<ConversationCursor> conversationCursors,
            Sink<ReaderUpdate> readers,
            Sink<DeadLetter> deadLetters,
            Sink<ChannelWrite> channels) {
        this.counts = counts;
        this.receipts = receipts;
        this.inboxCursors = inboxCursors;
        this.conversationCursors = conversationCursors;
        this.readers = readers;
        this.deadLetters = deadLetters;
        this.channels = channels;
    }

    public Sink<UnreadCount> counts() {
        return counts;
    }

    public Sink<ReadReceipt> receipts() {
        return receipts;
    }

    public Sink<InboxCursor> inboxCursors() {
        return inboxCursors;
    }

    public Sink<ConversationCursor> conversationCursors() {
        return conversationCursors;
    }

    public Sink<ReaderUpdate> readers() {
        return readers;
    }

    public Sink<DeadLetter> deadLetters() {
        return deadLetters;
    }

    public Sink<ChannelWrite> channels() {
        return channels;
    }
}
