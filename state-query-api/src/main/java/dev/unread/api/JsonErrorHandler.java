package dev.unread.api;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Errors Jetty answers before a request reaches Javalin (a URI or headers too large, a malformed
 * request line) in the API's JSON shape, with the status' reason phrase as the message: never
 * Jetty's HTML page or the text of an exception.
 */
final class JsonErrorHandler extends ErrorHandler {

    static String body(int status, String message) {
        return "{\"error\":\""
                + message.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\",\"status\":"
                + status
                + "}";
    }

    /**
     * Every method gets the JSON body. Jetty's default writes one only for GET, POST and HEAD, so a
     * PUT with headers too large (431) or an OPTIONS of {@code *} got an empty error.
     */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(
            Request request,
            Response response,
            int code,
            String message,
            Throwable cause,
            Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(bytes(code)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(bytes(status));
    }

    private static byte[] bytes(int status) {
        String reason = HttpStatus.getMessage(status);
        return body(status, reason == null ? "error" : reason).getBytes(StandardCharsets.UTF_8);
    }
}
