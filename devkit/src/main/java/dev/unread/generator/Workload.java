package dev.unread.generator;

/**
 * The shape of the chat traffic {@link TrafficGenerator} produces: one settings type for the local
 * stack's demo traffic and the benchmark. Rates are per message record, so that they keep their
 * meaning whatever the event rate; {@link #defaults()} is a plausible chat platform.
 *
 * <ul>
 *   <li>{@code receivers}: users who receive messages, ids {@code firstUserId} up.
 *   <li>{@code friends}: distinct people who write to each receiver outside groups (senders per
 *       receiver); with an even number friendship is mutual, so a reply goes to the same one-to-one
 *       conversation.
 *   <li>{@code receiverSkew}: Zipf exponent of how messages spread over receivers; 0 is uniform, 1
 *       is typical (the top user gets about 1/ln(receivers) of them). Opens and reads follow the
 *       messages each user receives.
 *   <li>{@code redundancy}: share of message records whose sender has already written to that
 *       receiver since its last inbox open, so that the badge does not change (real inboxes: about
 *       0.9). The generator steers toward it within what the other settings allow: a receiver's
 *       first message after an open is never redundant, and with rare opens (under one per {@code
 *       friends + groupSize} messages) most senders have written already. Each receiver's first
 *       message ever is new too, so it is reached once most receivers have had messages (10,000
 *       receivers: after some hundred thousand records).
 *   <li>{@code inboxOpenRate}: {@code INBOX_OPENED} events per message record.
 *   <li>{@code conversationReadRate}: {@code CONVERSATION_READ} events per message record.
 *   <li>{@code conversationShare}: share of messages sent in a conversation (with conversationId
 *       and seq); the rest count toward the sender badge only.
 *   <li>{@code groupShare}: share of those conversation messages sent in a group.
 *   <li>{@code groupSize}: members of each group; a group message reaches the other members, one
 *       record each, with the same conversationId and seq.
 *   <li>{@code publishedGroupShare}: share of message steps that are a group message published
 *       once, on {@code chat-conversations}, for the job to fan out by membership; 0 (the default)
 *       keeps the traffic of builds before groups, record for record.
 *   <li>{@code publishedGroups}: how many such groups; their activity is Zipf ({@code
 *       receiverSkew}) over them, and their sizes spread evenly on a log scale from 3 to {@code
 *       publishedGroupMaxSize} members, not in order of activity.
 *   <li>{@code publishedGroupMaxSize}: members of the largest published group.
 *   <li>{@code deletedShare}: share of conversation messages (one-to-one and published groups)
 *       deleted by a {@code MESSAGE_DELETED} right after them; 0 (the default) keeps the traffic of
 *       builds before deletions, record for record.
 *   <li>{@code replyShare}: share of the conversation messages that are not a thread's root which
 *       reply in a thread (see TrafficGenerator); with it above 0, some conversation read steps
 *       read or follow a thread instead, and some replies in a published group are followed by a
 *       member's read or follow of their thread; 0 (the default) keeps the traffic of builds before
 *       threads, record for record.
 *   <li>{@code editShare}: share of conversation messages (one-to-one and published groups) edited
 *       right after them (a {@code MESSAGE_EDITED} that moves their mentions) and, as many again,
 *       of conversation messages that mention the whole channel ({@code mentionsAll}); 0 (the
 *       default) keeps the traffic of builds before edits, record for record.
 *   <li>{@code malformedShare}: share of all records that break the input contract.
 *   <li>{@code seed}: the same seed (and clock) gives the same records.
 *   <li>{@code firstUserId}: the most active receiver's id; the others follow it in order of
 *       activity (Zipf rank).
 *   <li>{@code allReadShare}: share of the read steps (inbox opens and conversation reads) sent as
 *       an ALL_READ of the same user instead; 0 leaves the traffic of a seed as it was.
 *   <li>{@code channelMinSize}: a published group of at least this many members is declared a
 *       channel (a {@code CHANNEL} before its members' joins); 0 (the default) declares none and
 *       keeps the traffic of a seed as it was.
 * </ul>
 */
public record Workload(
        int receivers,
        int friends,
        double receiverSkew,
        double redundancy,
        double inboxOpenRate,
        double conversationReadRate,
        double conversationShare,
        double groupShare,
        int groupSize,
        double publishedGroupShare,
        int publishedGroups,
        int publishedGroupMaxSize,
        double deletedShare,
        double replyShare,
        double malformedShare,
        long seed,
        long firstUserId,
        double allReadShare,
        double editShare,
        int channelMinSize) {

    public Workload {
        if (channelMinSize < 0) {
            throw new IllegalArgumentException(
                    "channelMinSize must be >= 0, was " + channelMinSize);
        }
        if (friends < 1) {
            throw new IllegalArgumentException("friends must be >= 1, was " + friends);
        }
        if (groupSize < 3) {
            throw new IllegalArgumentException(
                    "groupSize must be >= 3 (two people are a one-to-one conversation), was "
                            + groupSize);
        }
        // Everyone a receiver can hear from lies within this distance of it (see
        // TrafficGenerator); the two sides must not wrap around and meet.
        int reach = Math.max((friends + 1) / 2, groupSize - 1);
        if (receivers < 2 * reach + 1) {
            throw new IllegalArgumentException(
                    "receivers must be > 2 * max(friends / 2, groupSize - 1) = "
                            + 2 * reach
                            + ", was "
                            + receivers);
        }
        if ((long) receivers * ((friends + 1) / 2) > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(
                    "receivers * friends / 2 must fit one array (one seq per one-to-one"
                            + " conversation), was "
                            + (long) receivers * ((friends + 1) / 2));
        }
        if (!(receiverSkew >= 0) || Double.isInfinite(receiverSkew)) {
            throw new IllegalArgumentException("receiverSkew must be >= 0, was " + receiverSkew);
        }
        share("redundancy", redundancy);
        rate("inboxOpenRate", inboxOpenRate);
        rate("conversationReadRate", conversationReadRate);
        share("conversationShare", conversationShare);
        share("groupShare", groupShare);
        share("publishedGroupShare", publishedGroupShare);
        share("deletedShare", deletedShare);
        share("replyShare", replyShare);
        share("allReadShare", allReadShare);
        share("editShare", editShare);
        if (publishedGroups < 1) {
            throw new IllegalArgumentException(
                    "publishedGroups must be >= 1, was " + publishedGroups);
        }
        // Checked only when used, so that small test workloads keep the default.
        if (publishedGroupShare > 0
                && (publishedGroupMaxSize < 3 || publishedGroupMaxSize > receivers)) {
            throw new IllegalArgumentException(
                    "publishedGroupMaxSize must be 3..receivers, was " + publishedGroupMaxSize);
        }
        if (!(malformedShare >= 0 && malformedShare < 1)) {
            throw new IllegalArgumentException(
                    "malformedShare must be >= 0 and < 1, was " + malformedShare);
        }
        if (firstUserId < 1 || firstUserId > Long.MAX_VALUE - receivers) {
            throw new IllegalArgumentException(
                    "firstUserId must be >= 1 with room for every receiver, was " + firstUserId);
        }
    }

    /**
     * 10,000 receivers with 20 friends each, Zipf exponent 1, 90% redundant messages, an inbox open
     * every 50 message records and a conversation read every 20, 80% of messages in conversations,
     * a quarter of those in groups of 8, no group published once (64 of them, up to 2,000 members,
     * when turned on), no deletions, no thread replies, 0.2% malformed records, seed 1, ids from
     * 10001, no channel.
     */
    public static Workload defaults() {
        return new Workload(
                10_000, 20, 1.0, 0.9, 0.02, 0.05, 0.8, 0.25, 8, 0, 64, 2_000, 0, 0, 0.002, 1,
                10_001, 0, 0, 0);
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder(defaults());
    }

    private static void share(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " must be in 0..1, was " + value);
        }
    }

    private static void rate(String name, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + value);
        }
    }

    /** Changes a few settings; {@link #build()} checks them all. */
    public static final class Builder {
        private int receivers;
        private int friends;
        private double receiverSkew;
        private double redundancy;
        private double inboxOpenRate;
        private double conversationReadRate;
        private double conversationShare;
        private double groupShare;
        private int groupSize;
        private double publishedGroupShare;
        private int publishedGroups;
        private int publishedGroupMaxSize;
        private double deletedShare;
        private double replyShare;
        private double malformedShare;
        private long seed;
        private long firstUserId;
        private double allReadShare;
        private double editShare;
        private int channelMinSize;

        private Builder(Workload w) {
            receivers = w.receivers;
            friends = w.friends;
            receiverSkew = w.receiverSkew;
            redundancy = w.redundancy;
            inboxOpenRate = w.inboxOpenRate;
            conversationReadRate = w.conversationReadRate;
            conversationShare = w.conversationShare;
            groupShare = w.groupShare;
            groupSize = w.groupSize;
            publishedGroupShare = w.publishedGroupShare;
            publishedGroups = w.publishedGroups;
            publishedGroupMaxSize = w.publishedGroupMaxSize;
            deletedShare = w.deletedShare;
            replyShare = w.replyShare;
            malformedShare = w.malformedShare;
            seed = w.seed;
            firstUserId = w.firstUserId;
            allReadShare = w.allReadShare;
            editShare = w.editShare;
            channelMinSize = w.channelMinSize;
        }

        /** Share of the read steps (inbox opens and conversation reads) sent as ALL_READ. */
        public Builder allReadShare(double allReadShare) {
            this.allReadShare = allReadShare;
            return this;
        }

        public Builder receivers(int receivers) {
            this.receivers = receivers;
            return this;
        }

        public Builder friends(int friends) {
            this.friends = friends;
            return this;
        }

        public Builder receiverSkew(double receiverSkew) {
            this.receiverSkew = receiverSkew;
            return this;
        }

        public Builder redundancy(double redundancy) {
            this.redundancy = redundancy;
            return this;
        }

        public Builder inboxOpenRate(double inboxOpenRate) {
            this.inboxOpenRate = inboxOpenRate;
            return this;
        }

        public Builder conversationReadRate(double conversationReadRate) {
            this.conversationReadRate = conversationReadRate;
            return this;
        }

        public Builder conversationShare(double conversationShare) {
            this.conversationShare = conversationShare;
            return this;
        }

        public Builder groupShare(double groupShare) {
            this.groupShare = groupShare;
            return this;
        }

        public Builder groupSize(int groupSize) {
            this.groupSize = groupSize;
            return this;
        }

        public Builder publishedGroupShare(double publishedGroupShare) {
            this.publishedGroupShare = publishedGroupShare;
            return this;
        }

        public Builder publishedGroups(int publishedGroups) {
            this.publishedGroups = publishedGroups;
            return this;
        }

        public Builder publishedGroupMaxSize(int publishedGroupMaxSize) {
            this.publishedGroupMaxSize = publishedGroupMaxSize;
            return this;
        }

        public Builder deletedShare(double deletedShare) {
            this.deletedShare = deletedShare;
            return this;
        }

        public Builder replyShare(double replyShare) {
            this.replyShare = replyShare;
            return this;
        }

        public Builder editShare(double editShare) {
            this.editShare = editShare;
            return this;
        }

        public Builder channelMinSize(int channelMinSize) {
            this.channelMinSize = channelMinSize;
            return this;
        }

        public Builder malformedShare(double malformedShare) {
            this.malformedShare = malformedShare;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder firstUserId(long firstUserId) {
            this.firstUserId = firstUserId;
            return this;
        }

        public Workload build() {
            return new Workload(
                    receivers,
                    friends,
                    receiverSkew,
                    redundancy,
                    inboxOpenRate,
                    conversationReadRate,
                    conversationShare,
                    groupShare,
                    groupSize,
                    publishedGroupShare,
                    publishedGroups,
                    publishedGroupMaxSize,
                    deletedShare,
                    replyShare,
                    malformedShare,
                    seed,
                    firstUserId,
                    allReadShare,
                    editShare,
                    channelMinSize);
        }
    }
}
