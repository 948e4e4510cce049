package dev.unread.api;

import static dev.unread.api.AccessControl.caller;
import static dev.unread.api.AccessControl.userParam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.EventJson;
import dev.unread.contract.InputField;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.List;

/**
 * The routes that publish a user's action to {@code chat-reads} (docs/contract.md, "Action
 * stamps"): an inbox open, a conversation read, a count preference, a mark, a thread read and a
 * follow, each stamped with the user's action stamp and, with a user token, taken only where the
 * user takes part; and, for the service token alone, the user's erasure.
 */
final class UserActions {

    private final ObjectMapper json;
    private final RedisWrites redis;
    private final KafkaReads kafka;
    private final AccessControl access;

    UserActions(ObjectMapper json, RedisWrites redis, KafkaReads kafka, AccessControl access) {
        this.json = json;
        this.redis = redis;
        this.kafka = kafka;
        this.access = access;
    }

    void inboxOpened(Context ctx) {
        long userId = userParam(ctx);
        publish(ctx, userId, EventJson.inboxOpened(userId, actionStamp(ctx, userId)));
    }

    /** Everything the user received so far is read (ALL_READ, docs/contract.md). */
    void readAll(Context ctx) {
        long userId = userParam(ctx);
        publish(ctx, userId, EventJson.allRead(userId, actionStamp(ctx, userId)));
    }

    void conversationRead(Context ctx) {
        // The body first: an oversized one is a 413 whatever else is wrong, as with a length.
        byte[] bytes = Bodies.read(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        JsonNode body = Params.jsonObject(json, bytes);
        long userId = Params.longField(body, "userId", 1);
        long readSeq = Params.longField(body, "readSeq", 0);
        caller(ctx).require(userId);
        access.requireTakesPart(ctx, conversationId, 0, userId);
        publish(
                ctx,
                userId,
                EventJson.conversationRead(
                        userId, conversationId, readSeq, actionStamp(ctx, userId)));
    }

    /**
     * When a user's action happened, as the job orders the user's actions (docs/contract.md); 429
     * when the user's stamps ran the bound ahead of the clock (over a thousand actions a second for
     * a minute): the action would otherwise not be ordered after the one before.
     */
    private long actionStamp(Context ctx, long userId) {
        long stamp = redis.actionStamp(userId, System.currentTimeMillis());
        if (stamp == 0) {
            ctx.header("Retry-After", "1");
            throw new ApiError(429, "too many actions of this user a second; retry after 1 s");
        }
        return stamp;
    }

    private static final List<String> COUNT_PREFERENCES =
            Arrays.stream(InputField.CountPreference.values()).map(Enum::name).toList();

    /**
     * {@code countPreference}, {@code ignoreChannelMentions} or both; the event carries what the
     * body gave, since each field is decided on its own by the newest event that carries it.
     */
    void countPreference(Context ctx) {
        byte[] bytes = Bodies.read(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        JsonNode body = Params.jsonObject(json, bytes);
        boolean carriesIgnore = Params.has(body, "ignoreChannelMentions");
        String preference =
                carriesIgnore && !Params.has(body, "countPreference")
                        ? null
                        : Params.oneOf(body, "countPreference", COUNT_PREFERENCES);
        Boolean ignore = carriesIgnore ? Params.booleanField(body, "ignoreChannelMentions") : null;
        access.requireTakesPart(ctx, conversationId, 0, userId);
        long setAt = actionStamp(ctx, userId);
        publish(
                ctx,
                userId,
                ignore == null
                        ? EventJson.conversationPreference(
                                userId, conversationId, preference, setAt)
                        : EventJson.ignoreChannelMentions(
                                userId, conversationId, preference, ignore, setAt));
    }

    void markUnread(Context ctx) {
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        access.requireTakesPart(ctx, conversationId, 0, userId);
        publish(
                ctx,
                userId,
                EventJson.conversationMarkedUnread(
                        userId, conversationId, actionStamp(ctx, userId)));
    }

    void threadRead(Context ctx) {
        byte[] bytes = Bodies.read(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long threadSeq = Params.id("threadSeq", ctx.pathParam("threadSeq"));
        long readSeq = Params.longField(Params.jsonObject(json, bytes), "readSeq", 0);
        access.requireTakesPart(ctx, conversationId, threadSeq, userId);
        publish(
                ctx,
                userId,
                EventJson.threadRead(
                        userId, conversationId, threadSeq, readSeq, actionStamp(ctx, userId)));
    }

    void threadFollow(Context ctx) {
        byte[] bytes = Bodies.read(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long threadSeq = Params.id("threadSeq", ctx.pathParam("threadSeq"));
        boolean following = Params.booleanField(Params.jsonObject(json, bytes), "following");
        access.requireTakesPart(ctx, conversationId, threadSeq, userId);
        publish(
                ctx,
                userId,
                EventJson.threadFollowed(
                        userId, conversationId, threadSeq, following, actionStamp(ctx, userId)));
    }

    /**
     * USER_ERASED: stamped as the user's actions are, so that it comes after every action of the
     * user this API published before it, whatever the clock says.
     */
    void erase(Context ctx) {
        long userId = userParam(ctx);
        publish(ctx, userId, EventJson.userErased(userId, actionStamp(ctx, userId)));
    }

    private void publish(Context ctx, long userId, String text) {
        kafka.publish(userId, text);
        ctx.status(202).contentType(Responses.JSON).result(text);
    }
}
