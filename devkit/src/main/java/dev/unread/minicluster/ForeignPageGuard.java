package dev.unread.minicluster;

import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.io.network.netty.InboundChannelHandlerFactory;
import org.apache.flink.runtime.rest.FileUploadHandler;
import org.apache.flink.runtime.rest.handler.FileUploads;
import org.apache.flink.runtime.rest.handler.util.HandlerUtils;
import org.apache.flink.runtime.rest.messages.ErrorResponseBody;
import org.apache.flink.shaded.netty4.io.netty.channel.ChannelHandler;
import org.apache.flink.shaded.netty4.io.netty.channel.ChannelHandlerContext;
import org.apache.flink.shaded.netty4.io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.flink.shaded.netty4.io.netty.handler.codec.http.HttpHeaderNames;
import org.apache.flink.shaded.netty4.io.netty.handler.codec.http.HttpRequest;
import org.apache.flink.shaded.netty4.io.netty.handler.codec.http.HttpResponseStatus;
import org.apache.flink.shaded.netty4.io.netty.handler.codec.http.HttpUtil;
import org.apache.flink.shaded.netty4.io.netty.util.ReferenceCountUtil;

/**
 * Refuses, on the REST endpoint of every Flink cluster in this JVM ({@code bin/unread local}'s),
 * what a web page of another site sends: a request naming another {@code Origin} than the UI's own
 * ({@code web.access-control-allow-origin}), or a {@code Host} other than the UI's address or
 * {@code localhost} (a DNS name rebound to 127.0.0.1). Without the jar routes a page could still
 * post a job graph to {@code /jobs} as a form, with no preflight, and its classes would run in this
 * process, which holds the API's secrets and the database password. Flink's CLI and the kit's REST
 * reads send no {@code Origin}; the UI's own pages send their own.
 *
 * <p>Flink loads it through {@code InboundChannelHandlerFactory}'s service file, one handler per
 * connection, after the request is decoded and before it is routed.
 */
public final class ForeignPageGuard implements InboundChannelHandlerFactory {

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Optional<ChannelHandler> createHandler(
            Configuration configuration, Map<String, String> responseHeaders) {
        return Optional.of(
                new Guard(
                        configuration.get(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN),
                        configuration.get(RestOptions.ADDRESS),
                        responseHeaders));
    }

    /** Why a request with these {@code origin} and {@code host} headers is refused, or null. */
    static String refusal(String origin, String host, String ownOrigin, String ownAddress) {
        if (origin != null && !origin.equals(ownOrigin)) {
            return "requests from the pages of " + origin + " are refused";
        }
        if (host != null) {
            String name = host.replaceFirst(":[0-9]*$", "");
            if (!name.equals(ownAddress) && !name.equalsIgnoreCase("localhost")) {
                return "requests for host " + name + " are refused";
            }
        }
        return null;
    }

    private static final class Guard extends ChannelInboundHandlerAdapter {

        private final String ownOrigin;
        private final String ownAddress;
        private final Map<String, String> responseHeaders;

        Guard(String ownOrigin, String ownAddress, Map<String, String> responseHeaders) {
            this.ownOrigin = ownOrigin;
            this.ownAddress = ownAddress;
            this.responseHeaders = responseHeaders;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof HttpRequest request) {
                String refusal =
                        refusal(
                                request.headers().get(HttpHeaderNames.ORIGIN),
                                request.headers().get(HttpHeaderNames.HOST),
                                ownOrigin,
                                ownAddress);
                if (refusal != null) {
                    boolean keepAlive = HttpUtil.isKeepAlive(request);
                    // A form post's files are on disk already: gone with the request.
                    try (FileUploads uploads = FileUploadHandler.getMultipartFileUploads(ctx)) {
                        ReferenceCountUtil.release(msg);
                    }
                    HandlerUtils.sendErrorResponse(
                            ctx,
                            keepAlive,
                            new ErrorResponseBody(refusal),
                            HttpResponseStatus.FORBIDDEN,
                            responseHeaders);
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }
}
