package dev.unread.counter;

import dev.unread.events.ChatEvent;
import dev.unread.state.ConversationState;
import dev.unread.state.InboxState;
import dev.unread.state.StateSchema;
import dev.unread.state.ThreadState;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The user's channels (docs/contract.md, "Channels"): the channel stage counts them, so the user's
 * state keeps only their list, and forwards to the stage each fact of the user about one of them.
 * It learns a channel from the user's first membership event in it, and then forwards what it held
 * of the channel before (a read, a preference or a thread's cursor and follow may come first), the
 * user's mark all read and erasure included; an ALL_READ, an erasure or the user's idle expiry
 * later goes to every channel of the list. The list outlives idle expiry and erasure.
 *
 * <p>A user in no channel pays nothing for this: {@link InboxState#channels}, read with every event
 * anyway, is 0, and the list is never looked at.
 */
final class Channels {

    private final MapState<Long, Boolean> channels;
    private final MapState<Tuple2<Long, Long>, ThreadState> threads;
    private final UserStates states;

    Channels(RuntimeContext context, UserStates states) {
        this.channels = context.getMapState(StateSchema.USER_CHANNELS);
        this.threads = context.getMapState(StateSchema.THREADS);
        this.states = states;
    }

    /** Whether the conversation is one of the user's channels. */
    boolean isChannel(InboxState user, long conversationId) throws Exception {
        return user.channels > 0 && conversationId != 0 && channels.contains(conversationId);
    }

    /** The user's channels, ascending; {@code user} as for {@link #toEach}. */
    long[] of(InboxState user) throws Exception {
        if (user == null || user.channels == 0) {
            return new long[0];
        }
        return StreamSupport.stream(channels.keys().spliterator(), false)
                .mapToLong(Long::longValue)
                .sorted()
                .toArray();
    }

    /**
     * CHANNEL_JOINED or CHANNEL_LEFT: a channel not yet in the list joins it, with what the user's
     * state holds of it forwarded; true when the caller must store {@code user}.
     */
    boolean membership(ChatEvent event, InboxState user, Consumer<ChatEvent> facts)
            throws Exception {
        long channel = event.conversationId;
        if (channels.contains(channel)) {
            return false;
        }
        channels.put(channel, true);
        user.channels++;
        forwardHeld(event.userId, channel, user, facts);
        return true;
    }

    /**
     * An ALL_READ, a USER_ERASED or a CHANNEL_EXPIRED of the user, to each of the user's channels;
     * {@code user} null for a user with no inbox state, who has none.
     */
    void toEach(ChatEvent event, InboxState user, Consumer<ChatEvent> facts) throws Exception {
        if (user == null || user.channels == 0) {
            return;
        }
        for (Long channel : channels.keys()) {
            facts.accept(ofChannel(event.kind, event.userId, channel, event.time));
        }
    }

    private void forwardHeld(long user, long channel, InboxState inbox, Consumer<ChatEvent> facts)
            throws Exception {
        // The erasure first: what the state holds came after it, and the stage drops at an
        // erasure what the user did before it.
        if (inbox.erasedAt > 0) {
            facts.accept(ofChannel(ChatEvent.Kind.USER_ERASED, user, channel, inbox.erasedAt));
        }
        ConversationState state = states.conversations.get(channel);
        if (state != null) {
            if (state.lastReadSeq > 0) {
                facts.accept(
                        ChatEvent.conversationRead(
                                user, channel, state.lastReadSeq, state.lastReadAt));
            }
            if (state.preferenceSetAt > 0) {
                facts.accept(
                        ChatEvent.preference(
                                user, channel, state.preference, state.preferenceSetAt));
            }
            if (state.ignoreChannelMentionsSetAt > 0) {
                facts.accept(
                        ChatEvent.ignoreChannelMentions(
                                user,
                                channel,
                                ChatEvent.NO_COUNT_PREFERENCE,
                                state.ignoresChannelMentions(),
                                state.ignoreChannelMentionsSetAt));
            }
        }
        // Once per channel and user: a walk over the user's threads finds those of the channel.
        for (Map.Entry<Tuple2<Long, Long>, ThreadState> entry : threads.entries()) {
            if (entry.getKey().f0 != channel) {
                continue;
            }
            long threadSeq = entry.getKey().f1;
            ThreadState thread = entry.getValue();
            if (thread.cursor > 0) {
                // The state keeps no time of a thread read, and the stage takes a fact only after
                // the erasure it holds: what the state holds came after the one forwarded above.
                facts.accept(
                        ChatEvent.threadRead(
                                user, channel, threadSeq, thread.cursor, inbox.erasedAt + 1));
            }
            if (thread.following != 0) {
                facts.accept(
                        ChatEvent.threadFollowed(
                                user,
                                channel,
                                threadSeq,
                                thread.following > 0,
                                thread.followSetAt));
            }
        }
        if (inbox.allReadAt > 0) {
            facts.accept(ofChannel(ChatEvent.Kind.ALL_READ, user, channel, inbox.allReadAt));
        }
    }

    private static ChatEvent ofChannel(ChatEvent.Kind kind, long user, long channel, long time) {
        if (kind == ChatEvent.Kind.CHANNEL_EXPIRED) {
            return ChatEvent.channelExpired(user, channel, time);
        }
        ChatEvent fact =
                kind == ChatEvent.Kind.ALL_READ
                        ? ChatEvent.allRead(user, time)
                        : ChatEvent.userErased(user, time);
        fact.conversationId = channel;
        return fact;
    }
}
