package dev.unread.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers: a JSON body, and every failure as the JSON error of docs/contract.md ("Ids, bodies and
 * errors"), never an exception's text, once what is left of the refused request's body was read.
 */
final class Responses {

    static final String JSON = "application/json";

    private static final Logger LOG = LoggerFactory.getLogger(Responses.class);

    /** A refused body up to this size is read to its end so that the client receives the 413. */
    private static final int MAX_DRAINED_BYTES = 1024 * 1024;

    private Responses() {}

    static void respond(ObjectMapper json, Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType(JSON).result(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Turns what handlers and Javalin throw into answers, counting the dependencies' failures. */
    static void mapExceptions(JavalinDefaultRoutingApi routes, ApiMetrics metrics) {
        routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status, e.getMessage()));
        routes.exception(
                DependencyException.class,
                (e, ctx) -> {
                    metrics.dependencyError(e.dependency);
                    if (e.misconfigured) {
                        LOG.warn("{} {}: {}", ctx.method(), ctx.path(), e.getMessage());
                        error(ctx, 503, e.getMessage());
                        return;
                    }
                    // One line per failure: an outage must not flood the log with stack traces.
                    LOG.warn(
                            "{} {}: {} unavailable: {}",
                            ctx.method(),
                            ctx.path(),
                            e.dependency,
                            String.valueOf(e.getCause()));
                    LOG.debug("{} failure", e.dependency, e.getCause());
                    error(ctx, 503, e.getMessage());
                });
        routes.exception(
                HttpResponseException.class,
                (e, ctx) -> {
                    // Javalin's own (404, 405, 413 ...): its message may echo input; send the
                    // phrase.
                    error(ctx, e.getStatus(), HttpStatus.forStatus(e.getStatus()).getMessage());
                });
        routes.exception(
                Exception.class,
                (e, ctx) -> {
                    if (e instanceof IOException) {
                        // The client went away (a reset during a WebSocket upgrade, say): no one
                        // to answer, and anyone can do it, so no stack trace per request.
                        LOG.debug("{} {}: client gone: {}", ctx.method(), ctx.path(), e);
                        return;
                    }
                    LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
                    error(ctx, 500, "internal error");
                });
    }

    /**
     * Writes {@code refusal}'s JSON error to the response at once, where Javalin would not write
     * the result of its exception mapping: a refused WebSocket upgrade.
     */
    static void sendNow(Context ctx, ApiError refusal) {
        drainRefused(ctx);
        try {
            ctx.res().setStatus(refusal.status);
            ctx.res().setContentType(JSON);
            ctx.res()
                    .getOutputStream()
                    .write(
                            JsonErrorHandler.body(refusal.status, refusal.getMessage())
                                    .getBytes(StandardCharsets.UTF_8));
            ctx.res().flushBuffer();
        } catch (IOException e) {
            // The client is gone: no one to answer.
        }
    }

    private static void error(Context ctx, int status, String message) {
        drainRefused(ctx);
        ctx.status(status).contentType(JSON).result(JsonErrorHandler.body(status, message));
    }

    /**
     * Reads and drops what is left of a refused request's body, up to {@link #MAX_DRAINED_BYTES} (a
     * body said to be longer is not waited for): closing a connection with unread bytes makes TCP
     * reset it, and the reset can overtake the answer, so the client of a 401, 404 or 413 sees only
     * a broken connection.
     */
    private static void drainRefused(Context ctx) {
        if (ctx.req().getContentLengthLong() > MAX_DRAINED_BYTES) {
            return;
        }
        try (InputStream in = ctx.req().getInputStream()) {
            long left = MAX_DRAINED_BYTES;
            byte[] scrap = new byte[8192];
            int n;
            while (left > 0 && (n = in.read(scrap, 0, (int) Math.min(scrap.length, left))) > 0) {
                left -= n;
            }
        } catch (IOException | IllegalStateException e) {
            // The client is gone, sends less than it said, or the body was taken as a stream
            // already: it gets the answer or nothing.
        }
    }
}
