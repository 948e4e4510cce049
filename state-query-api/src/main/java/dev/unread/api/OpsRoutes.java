package dev.unread.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The routes of no user's data, open to probes, scrapers and browsers: health, metrics, the OpenAPI
 * document and the inbox page.
 */
final class OpsRoutes {

    private static final String OPENAPI_RESOURCE = "/dev/unread/api/openapi.json";
    private static final String INBOX_RESOURCE = "/dev/unread/api/inbox.html";

    private final ObjectMapper json;
    private final ApiMetrics metrics;
    private final Health health;
    private final AccessControl access;
    private final byte[] openApi;
    private final byte[] inboxPage;

    /** The page's Content-Security-Policy: its own script and style only, from no other page. */
    private final String inboxPolicy;

    OpsRoutes(ObjectMapper json, ApiMetrics metrics, Health health, AccessControl access) {
        this.json = json;
        this.metrics = metrics;
        this.health = health;
        this.access = access;
        this.openApi = openApi(json, resource(OPENAPI_RESOURCE));
        this.inboxPage = resource(INBOX_RESOURCE);
        this.inboxPolicy = InboxPolicy.of(new String(inboxPage, StandardCharsets.UTF_8));
    }

    /**
     * Open to probes: the reasons of the failed checks (a refused password, an unreachable address)
     * only to the service token, or to anyone with auth off; the others see UP or DOWN.
     */
    void health(Context ctx) {
        Map<String, String> problems = health.check();
        List<String> failed = Health.failed(problems);
        boolean told = access.isService(ctx);
        ObjectNode body = json.createObjectNode().put("status", failed.isEmpty() ? "UP" : "DOWN");
        ObjectNode checks = body.putObject("checks");
        problems.forEach(
                (name, problem) ->
                        checks.put(
                                name, problem == null ? "UP" : told ? "DOWN: " + problem : "DOWN"));
        if (!failed.isEmpty()) {
            body.put("error", "unavailable: " + String.join(", ", failed));
        }
        Responses.respond(json, ctx, failed.isEmpty() ? 200 : 503, body);
    }

    void metrics(Context ctx) {
        ctx.contentType(ApiMetrics.CONTENT_TYPE).result(metrics.scrape());
    }

    void openApi(Context ctx) {
        ctx.contentType(Responses.JSON).result(openApi);
    }

    /** The inbox page: static, no user data, so open like /openapi.json; it asks for a token. */
    void inboxPage(Context ctx) {
        ctx.header("Content-Security-Policy", inboxPolicy);
        ctx.header("X-Frame-Options", "DENY");
        ctx.contentType("text/html; charset=utf-8").result(inboxPage);
    }

    /**
     * openapi.json with the counts of its answers' schema from the catalog ({@link CountSection}).
     */
    private static byte[] openApi(ObjectMapper json, byte[] resource) {
        try {
            JsonNode document = json.readTree(resource);
            CountSection.document(
                    (ObjectNode)
                            document.path("components").path("schemas").path(CountSection.SCHEMA));
            return json.writerWithDefaultPrettyPrinter().writeValueAsBytes(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = OpsRoutes.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
