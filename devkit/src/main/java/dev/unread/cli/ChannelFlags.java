package dev.unread.cli;

import dev.unread.bench.ChannelBench;
import picocli.CommandLine.Option;

/** {@code unread bench}'s flags of the channel runs (issue 47), its defaults the sizes. */
final class ChannelFlags {

    @Option(
            names = "--channel-messages",
            paramLabel = "N",
            defaultValue = "200000",
            description =
                    "messages in each channel of the channel runs (default ${DEFAULT-VALUE};"
                            + " 0: skip them)")
    long messages;

    @Option(
            names = "--channel-members",
            paramLabel = "N",
            defaultValue = "100000",
            description = "members of the large channel (default ${DEFAULT-VALUE})")
    int members;

    @Option(
            names = "--channel-small-members",
            paramLabel = "N",
            defaultValue = "1000",
            description =
                    "members of the small channel and of the group beside it"
                            + " (default ${DEFAULT-VALUE})")
    int smallMembers;

    @Option(
            names = "--channel-group-messages",
            paramLabel = "N",
            defaultValue = "10000",
            description =
                    "the first of the same messages in the group, fanned out by the job to each"
                            + " member (default ${DEFAULT-VALUE}; 0: skip the group)")
    long groupMessages;

    @Option(
            names = "--channel-mention-share",
            paramLabel = "SHARE",
            defaultValue = "0.02",
            description =
                    "share of the channel messages naming a member by id (default ${DEFAULT-VALUE})")
    double mentionShare;

    @Option(
            names = "--channel-mention-all-share",
            paramLabel = "SHARE",
            defaultValue = "0.01",
            description =
                    "share of the channel messages mentioning everyone (default ${DEFAULT-VALUE})")
    double mentionAllShare;

    @Option(
            names = "--channel-reply-share",
            paramLabel = "SHARE",
            defaultValue = "0.2",
            description =
                    "share of the channel messages replying to one of the recent roots"
                            + " (default ${DEFAULT-VALUE})")
    double replyShare;

    /** The channel runs' options; null when {@code --channel-messages 0} skips them. */
    ChannelBench.Options options() {
        if (messages < 0) {
            throw new IllegalArgumentException("--channel-messages must be >= 0, was " + messages);
        }
        if (messages == 0) {
            return null;
        }
        return new ChannelBench.Options(
                members,
                smallMembers,
                messages,
                groupMessages,
                mentionShare,
                mentionAllShare,
                replyShare);
    }
}
