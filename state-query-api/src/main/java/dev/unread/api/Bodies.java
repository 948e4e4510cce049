package dev.unread.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import java.io.IOException;

/** Request bodies: their size, their declared type, and reading them. */
final class Bodies {

    /** Request bodies are a few small fields; anything larger is refused with 413. */
    static final int MAX_BODY_BYTES = 16 * 1024;

    private Bodies() {}

    /** Before the handler: a body said to be over the limit is refused without reading it. */
    static void limitByLength(Context ctx) {
        if (ctx.req().getContentLengthLong() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
    }

    /**
     * 415 unless a write's body is declared {@code application/json} (a route that reads none may
     * come without a type): a page of another site may send a form or {@code text/plain} to any
     * address without asking, which with auth off on loopback would act for any user, but never
     * JSON without a CORS preflight, which the API does not grant.
     */
    static void requireJson(Context ctx) {
        Endpoint endpoint = ctx.endpoints().matchedHttpEndpoint();
        ApiRoute route = endpoint == null ? null : endpoint.metadata(ApiRoute.class);
        if (route == null || !route.write()) {
            return;
        }
        String type = ctx.header("Content-Type");
        boolean json =
                type != null && type.split(";", 2)[0].trim().equalsIgnoreCase(Responses.JSON);
        if (!json && (type != null || route.readsJson())) {
            throw new ApiError(415, "Content-Type must be " + Responses.JSON);
        }
    }

    /** Reads the body, refusing one over the limit even when it comes without a length. */
    static byte[] read(Context ctx) {
        // Left open: a refusal reads the rest of an oversized body from the same stream (see
        // Responses.drainRefused), and closing it first would leave those bytes for TCP to reset.
        try {
            byte[] body = ctx.req().getInputStream().readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw tooLarge();
            }
            return body;
        } catch (IOException e) {
            throw ApiError.badRequest("body could not be read");
        }
    }

    private static ApiError tooLarge() {
        return new ApiError(413, "body larger than " + MAX_BODY_BYTES + " bytes");
    }
}
