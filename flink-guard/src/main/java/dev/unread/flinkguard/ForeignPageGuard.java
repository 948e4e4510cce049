package dev.unread.flinkguard;

import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
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
 * Refuses, on the REST endpoint of a Flink cluster (its web UI), what a web page of another site
 * sends: a request naming another {@code Origin} than the UI's own, or a {@code Host} that is none
 * of the UI's names (a DNS name rebound to the UI's address). With the jar routes off a page could
 * still post a job graph to {@code /jobs} as a form, with no preflight, and its classes would run
 * in the JobManager; under a rebound name it could read every answer. Flink's CLI, the Kubernetes
 * operator and the kit's REST reads send no {@code Origin}; the UI's own pages send their own.
 *
 * <p>Every name comes from the cluster's configuration ({@link Allowed#of}), so one jar serves
 * every cluster the project starts: {@code bin/unread local}'s MiniCluster, the JobManager of
 * docker-compose.yml and of the {@code FlinkDeployment} (both from lib/ of the project's image),
 * and the tests' multi-process cluster. Flink loads it through {@code
 * InboundChannelHandlerFactory}'s service file, one handler per connection, after the request is
 * decoded and before it is routed.
 */
public final class ForeignPageGuard implements InboundChannelHandlerFactory {

    /** Set by native Kubernetes (the operator): the cluster's name, its REST service's prefix. */
    public static final ConfigOption<String> KUBERNETES_CLUSTER_ID =
            ConfigOptions.key("kubernetes.cluster-id").stringType().noDefaultValue();

    /** Set by native Kubernetes (the operator): the namespace of the cluster's pods. */
    public static final ConfigOption<String> KUBERNETES_NAMESPACE =
            ConfigOptions.key("kubernetes.namespace").stringType().defaultValue("default");

    private static final String LOCALHOST = "localhost";

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Optional<ChannelHandler> createHandler(
            Configuration configuration, Map<String, String> responseHeaders) {
        return Optional.of(new Guard(Allowed.of(configuration), responseHeaders));
    }

    /**
     * The one origin a request may name and the host names it may be sent to.
     *
     * @param origin {@code web.access-control-allow-origin}, the UI's own origin
     * @param hosts lower case, without port
     */
    public record Allowed(String origin, Set<String> hosts) {

        /**
         * What {@code configuration} names as the UI's own: its origin ({@code
         * web.access-control-allow-origin}); as hosts, that origin's host (the address a browser
         * reaches the UI at: compose's published port, {@code kubectl port-forward}'s), {@code
         * rest.address} (which falls back to {@code jobmanager.rpc.address}: the name Flink's CLI
         * is pointed at), {@code localhost}, and on native Kubernetes the REST service, {@code
         * CLUSTER-ID-rest} and {@code CLUSTER-ID-rest.NAMESPACE} (the operator's client). Flink's
         * default origin, {@code *}, names no host and lets no page's origin in.
         */
        public static Allowed of(Configuration configuration) {
            String origin = configuration.get(WebOptions.ACCESS_CONTROL_ALLOW_ORIGIN);
            Set<String> hosts = new LinkedHashSet<>();
            hostOf(origin).ifPresent(hosts::add);
            configuration.getOptional(RestOptions.ADDRESS).ifPresent(hosts::add);
            hosts.add(LOCALHOST);
            configuration
                    .getOptional(KUBERNETES_CLUSTER_ID)
                    .ifPresent(
                            cluster -> {
                                hosts.add(cluster + "-rest");
                                hosts.add(
                                        cluster
                                                + "-rest."
                                                + configuration.get(KUBERNETES_NAMESPACE));
                            });
            Set<String> lowerCase = new LinkedHashSet<>();
            hosts.forEach(host -> lowerCase.add(host.toLowerCase(Locale.ROOT)));
            return new Allowed(origin, Set.copyOf(lowerCase));
        }

        /**
         * Why a request with these {@code Origin} and {@code Host} headers (either null when
         * absent) is refused, or null when it is let through.
         */
        public String refusal(String requestOrigin, String requestHost) {
            if (requestOrigin != null && !requestOrigin.equals(origin)) {
                return "requests from the pages of " + requestOrigin + " are refused";
            }
            if (requestHost != null) {
                String name = requestHost.replaceFirst(":[0-9]*$", "").toLowerCase(Locale.ROOT);
                if (!hosts.contains(name)) {
                    return "requests for host " + name + " are refused";
                }
            }
            return null;
        }

        private static Optional<String> hostOf(String origin) {
            try {
                return Optional.ofNullable(URI.create(origin).getHost());
            } catch (IllegalArgumentException notAnOrigin) {
                return Optional.empty();
            }
        }
    }

    private static final class Guard extends ChannelInboundHandlerAdapter {

        private final Allowed allowed;
        private final Map<String, String> responseHeaders;

        Guard(Allowed allowed, Map<String, String> responseHeaders) {
            this.allowed = allowed;
            this.responseHeaders = responseHeaders;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof HttpRequest request) {
                String refusal =
                        allowed.refusal(
                                request.headers().get(HttpHeaderNames.ORIGIN),
                                request.headers().get(HttpHeaderNames.HOST));
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
