package dev.unread.api;

import static dev.unread.api.AccessControl.caller;
import static dev.unread.api.AccessControl.userParam;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * The routes that read what the job wrote (docs/contract.md, "HTTP API"): a user's counts, many
 * users' counts, a user's read cursors, and a conversation's readers.
 */
final class CountRoutes {

    private final ApiConfig config;
    private final ObjectMapper json;
    private final RedisUnread redis;
    private final MySqlCursorReader mysql;
    private final AccessControl access;

    CountRoutes(
            ApiConfig config,
            ObjectMapper json,
            RedisUnread redis,
            MySqlCursorReader mysql,
            AccessControl access) {
        this.config = config;
        this.json = json;
        this.redis = redis;
        this.mysql = mysql;
        this.access = access;
    }

    void userUnread(Context ctx) {
        long userId = userParam(ctx);
        CountAnswers.UserAnswer answer = redis.read(new long[] {userId}).get(0);
        if (answer instanceof CountAnswers.Unreadable) {
            throw new ApiError(500, CountAnswers.Unreadable.MESSAGE);
        }
        Responses.respond(json, ctx, 200, answer);
    }

    /**
     * Each user once, however often listed (one user 500 times was a 72 MB answer), and an answer
     * of at most {@code batchMaxAnswerBytes}, refused with 413 before it is all in memory.
     */
    void usersUnread(Context ctx) {
        long[] userIds =
                LongStream.of(Params.idList("userIds", ctx.queryParams("userIds")))
                        .distinct()
                        .toArray();
        for (long userId : userIds) {
            caller(ctx).require(userId);
        }
        CappedBuffer answer = new CappedBuffer(config.batchMaxAnswerBytes);
        try {
            json.writeValue(answer, Map.of("users", redis.read(userIds)));
        } catch (IOException e) {
            if (!answer.full()) {
                throw new UncheckedIOException(e);
            }
            throw new ApiError(
                    413,
                    "the answer would exceed "
                            + config.batchMaxAnswerBytes
                            + " bytes: ask for fewer users at a time");
        }
        ctx.status(200).contentType(Responses.JSON).result(answer.toByteArray());
    }

    void cursors(Context ctx) {
        long userId = userParam(ctx);
        Responses.respond(json, ctx, 200, mysql.read(userId));
    }

    /**
     * Read by N. A user's token reads only a conversation the user has a cursor in or a count in;
     * the service token reads any.
     */
    void readers(Context ctx) {
        long conversationId = Params.id("conversationId", ctx.pathParam("cid"));
        long seq = Params.queryId("seq", ctx.queryParams("seq"));
        access.requireTakesPart(ctx, conversationId, 0, caller(ctx).userId());
        Responses.respond(json, ctx, 200, redis.readers(conversationId, seq));
    }
}
