package dev.unread.bench;

import dev.unread.config.UnreadConfig;
import dev.unread.generator.TrafficGenerator;
import dev.unread.generator.TrafficProducer;
import dev.unread.generator.Workload;
import dev.unread.kafka.EmbeddedKafka;

/** One workload's records as published: the counts the figures are divided by. */
public record Traffic(
        String name,
        Workload workload,
        long records,
        long messages,
        long redundantMessages,
        long inboxOpens,
        long conversationReads,
        long malformed,
        long ownCopies) {
    long validEvents() {
        return records - malformed;
    }

    /**
     * What the counting operator takes in: the valid records and the copies the job makes of the
     * replies (every message with a conversation, with {@code --track-root-senders}) for their
     * senders (TrafficGenerator#ownCopies), which count toward nothing but tell the sender's thread
     * state who wrote.
     */
    long counterEvents() {
        return validEvents() + ownCopies;
    }

    long readEvents() {
        return inboxOpens + conversationReads;
    }

    /** The same records under another name, for a run that reads them again. */
    Traffic named(String newName) {
        return named(newName, ownCopies);
    }

    /**
     * The same records under another name, for a run whose job copies {@code copies} of them to
     * their senders.
     */
    Traffic named(String newName, long copies) {
        return new Traffic(
                newName,
                workload,
                records,
                messages,
                redundantMessages,
                inboxOpens,
                conversationReads,
                malformed,
                copies);
    }

    /** Publishes the generator's next {@code count} records to {@code config}'s topics. */
    static Traffic publish(
            EmbeddedKafka kafka,
            UnreadConfig config,
            String name,
            TrafficGenerator generator,
            long count)
            throws InterruptedException {
        long records = generator.records();
        long opens = generator.inboxOpens();
        long reads = generator.conversationReads();
        long malformed = generator.malformedRecords();
        long redundant = generator.redundantMessages();
        long ownCopies = ownCopies(generator, config);
        try (TrafficProducer producer =
                new TrafficProducer(
                        kafka.bootstrapServers(),
                        config.messagesTopic,
                        config.readsTopic,
                        config.conversationsTopic)) {
            producer.publish(generator, count);
            if (producer.failed() > 0) {
                throw new IllegalStateException(
                        producer.failed()
                                + " records could not be published to "
                                + kafka.bootstrapServers(),
                        producer.firstFailure());
            }
        }
        records = generator.records() - records;
        opens = generator.inboxOpens() - opens;
        reads = generator.conversationReads() - reads;
        malformed = generator.malformedRecords() - malformed;
        return new Traffic(
                name,
                generator.workload(),
                records,
                records - malformed - opens - reads,
                generator.redundantMessages() - redundant,
                opens,
                reads,
                malformed,
                ownCopies(generator, config) - ownCopies);
    }

    /**
     * The copies a job with {@code config} makes of the generator's records so far for their
     * senders' keys: of the replies, or with {@code --track-root-senders} of every message with a
     * conversation.
     */
    static long ownCopies(TrafficGenerator generator, UnreadConfig config) {
        return config.trackRootSenders ? generator.trackedOwnCopies() : generator.ownCopies();
    }
}
