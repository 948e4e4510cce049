package dev.unread.api;

import static dev.unread.api.StateQueryApi.body;
import static dev.unread.api.StateQueryApi.caller;
import static dev.unread.api.StateQueryApi.userParam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.unread.contract.EventJson;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.util.List;
import java.util.Set;

/**
 * The routes that publish a user's action to {@code chat-reads} (docs/contract.md, "Action
 * stamps"): an inbox open, a conversation read, a count preference, a mark, a thread read and a
 * follow, each stamped with the user's action stamp and, with a user token, taken only where the
 * user takes part. Apart from {@link StateQueryApi}, which routes to them, as one concern.
 */
final class UserActions {

    private final ObjectMapper json;
    private final RedisUnread redis;
    private final KafkaReads kafka;

    UserActions(ObjectMapper json, RedisUnread redis, KafkaReads kafka) {
        this.json = json;
        this.redis = redis;
        this.kafka = kafka;
    }

    void inboxOpened(Context ctx) {
        long userId = userParam(ctx);
        publish(ctx, userId, EventJson.inboxOpened(userId, actionStamp(ctx, userId)));
    }

    void conversationRead(Context ctx) {
        // The body first: an oversized one is a 413 whatever else is wrong, as with a length.
        byte[] bytes = body(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        JsonNode body = Params.jsonObject(json, bytes);
        long userId = Params.longField(body, "userId", 1);
        long readSeq = Params.longField(body, "readSeq", 0);
        caller(ctx).require(userId);
        requireTakesPart(ctx, conversationId, userId);
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

    /** The routes that read a JSON body. */
    private static final Set<String> BODY_ROUTES =
            Set.of(
                    "/api/conversations/{cid}/read",
                    "/api/users/{userId}/conversations/{cid}/preference",
                    "/api/users/{userId}/conversations/{cid}/threads/{threadSeq}/read",
                    "/api/users/{userId}/conversations/{cid}/threads/{threadSeq}/follow");

    /**
     * 415 unless a write's body is declared {@code application/json} (a route that reads none may
     * come without a type): a page of another site may send a form or {@code text/plain} to any
     * address without asking, which with auth off on loopback would act for any user, but never
     * JSON without a CORS preflight, which the API does not grant.
     */
    static void requireJson(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        String method = endpoint == null ? "" : endpoint.method.name();
        if (!method.equals("POST") && !method.equals("PUT")) {
            return;
        }
        String type = ctx.header("Content-Type");
        boolean json =
                type != null && type.split(";", 2)[0].trim().equalsIgnoreCase(StateQueryApi.JSON);
        if (!json && (type != null || BODY_ROUTES.contains(endpoint.path))) {
            throw new ApiError(415, "Content-Type must be " + StateQueryApi.JSON);
        }
    }

    private static final List<String> COUNT_PREFERENCES =
            List.of(EventJson.ALL, EventJson.MENTIONS, EventJson.NONE);

    void countPreference(Context ctx) {
        byte[] bytes = body(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        JsonNode body = Params.jsonObject(json, bytes);
        String preference = Params.oneOf(body, "countPreference", COUNT_PREFERENCES);
        requireTakesPart(ctx, conversationId, userId);
        publish(
                ctx,
                userId,
                EventJson.conversationPreference(
                        userId, conversationId, preference, actionStamp(ctx, userId)));
    }

    void markUnread(Context ctx) {
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        requireTakesPart(ctx, conversationId, userId);
        publish(
                ctx,
                userId,
                EventJson.conversationMarkedUnread(
                        userId, conversationId, actionStamp(ctx, userId)));
    }

    void threadRead(Context ctx) {
        byte[] bytes = body(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long threadSeq = Params.id("threadSeq", ctx.pathParam("threadSeq"));
        long readSeq = Params.longField(Params.jsonObject(json, bytes), "readSeq", 0);
        requireTakesPart(ctx, conversationId, threadSeq, userId);
        publish(
                ctx,
                userId,
                EventJson.threadRead(
                        userId, conversationId, threadSeq, readSeq, actionStamp(ctx, userId)));
    }

    void threadFollow(Context ctx) {
        byte[] bytes = body(ctx);
        long userId = userParam(ctx);
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long threadSeq = Params.id("threadSeq", ctx.pathParam("threadSeq"));
        boolean following = Params.booleanField(Params.jsonObject(json, bytes), "following");
        requireTakesPart(ctx, conversationId, threadSeq, userId);
        publish(
                ctx,
                userId,
                EventJson.threadFollowed(
                        userId, conversationId, threadSeq, following, actionStamp(ctx, userId)));
    }

    /**
     * 403 for a user token unless {@code userId} has a read cursor or an unread count in the
     * conversation: a user's own writes create state and Redis members per conversation, so they
     * are taken only where the user takes part; the service token (the chat server) acts anywhere.
     */
    private void requireTakesPart(Context ctx, long conversationId, long userId) {
        requireTakesPart(ctx, conversationId, 0, userId);
    }

    /**
     * As {@link #requireTakesPart(Context, long, long)}; for a thread's route ({@code threadSeq}
     * above 0) a count in that thread is taking part too.
     */
    void requireTakesPart(Context ctx, long conversationId, long threadSeq, long userId) {
        if (caller(ctx).userId() != 0 && !redis.concerns(conversationId, threadSeq, userId)) {
            throw new ApiError(403, "the token's user has no part in this conversation");
        }
    }

    private void publish(Context ctx, long userId, String text) {
        kafka.publish(userId, text);
        ctx.status(202).contentType(StateQueryApi.JSON).result(text);
    }
}
