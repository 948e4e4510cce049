package dev.unread.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.unread.testing.Poll;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.ObjectOutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rest.FileUploadHandler;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * What a web page of another site can do to a Flink web UI on this machine: the two requests the
 * outside review sent from a browser, neither of which needs a preflight (a multipart form post to
 * {@code /jars/upload}, then a bodiless post to {@code /jars/ID/run}), and whether the answers let
 * that page read them.
 */
public final class WebUiProbe {

    static final String FOREIGN_ORIGIN = "http://evil.example";

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** How long a cluster just started may take to elect its REST endpoint on a busy machine. */
    private static final Duration LEADER_TIMEOUT = Duration.ofMinutes(1);

    /** One answer of the UI to the foreign page: its status, body and CORS header. */
    record Answer(int status, String body, String allowOrigin) {}

    private WebUiProbe() {}

    /**
     * The UI's {@code /config} feature flags, as its dashboard reads them, all off; a jar posted
     * from a page of another site refused, and its answer readable by no such page. Prints what it
     * saw, for docs/reliability.md.
     */
    public static void assertLockedDown(URI rest) throws Exception {
        JsonNode features = config(rest).path("features");
        Answer overview = send(rest, HttpRequest.newBuilder(rest.resolve("/overview")).GET());
        Answer upload = uploadFromForeignPage(rest);
        System.out.printf(
                "WebUiProbe %s: features %s; /overview for %s answered %d, Access-Control-Allow-Origin %s;"
                        + " cross-site upload answered %d, Access-Control-Allow-Origin %s%n",
                rest,
                features,
                FOREIGN_ORIGIN,
                overview.status(),
                overview.allowOrigin(),
                upload.status(),
                upload.allowOrigin());

        assertThat(features.path("web-submit").asBoolean(true)).as("web-submit").isFalse();
        assertThat(features.path("web-cancel").asBoolean(true)).as("web-cancel").isFalse();
        assertThat(features.path("web-rescale").asBoolean(true)).as("web-rescale").isFalse();
        assertThat(overview.allowOrigin())
                .as("Access-Control-Allow-Origin of an answer to the foreign page")
                .isEqualTo("http://" + rest.getHost() + ":" + rest.getPort());
        assertThat(upload.allowOrigin())
                .as("Access-Control-Allow-Origin of the upload's answer")
                .isNotIn("*", FOREIGN_ORIGIN);
        assertThat(upload.status())
                .as("a cross-site jar upload: %s", upload.body())
                .isNotEqualTo(200);
    }

    /**
     * A job graph posted to {@code /jobs} from a page of another site refused (403) and no job
     * taken, which {@code jobs} counts; {@code /config} refused for a DNS name rebound to the UI's
     * address; the UI's own address and {@code localhost} still answered. Prints what it saw, for
     * docs/reliability.md.
     */
    public static void assertGuarded(URI rest, Callable<Integer> jobs) throws Exception {
        config(rest);
        Answer job = jobFromForeignPage(rest);
        int rebound = statusForRebound(rest, "rebound.example");
        System.out.printf(
                "WebUiProbe %s: a job graph from %s answered %d (%s); /config for a rebound name"
                        + " answered %d%n",
                rest, FOREIGN_ORIGIN, job.status(), job.body(), rebound);
        assertThat(job.status()).as("a cross-site job graph: %s", job.body()).isEqualTo(403);
        assertThat(jobs.call()).as("jobs taken").isZero();
        assertThat(rebound).as("/config for Host rebound.example").isEqualTo(403);
        assertThat(statusForRebound(rest, "localhost")).as("Host localhost").isEqualTo(200);
        assertThat(statusForRebound(rest, rest.getHost()))
                .as("Host " + rest.getHost())
                .isEqualTo(200);
    }

    /**
     * The UI's {@code /config} once it answers: a cluster just started answers 503 until its REST
     * endpoint is elected leader.
     */
    private static JsonNode config(URI rest) throws Exception {
        FlinkRest api = new FlinkRest(rest);
        return Poll.until(
                "the web UI's /config at " + rest,
                LEADER_TIMEOUT,
                () -> {
                    try {
                        return api.get("/config");
                    } catch (IOException notYet) {
                        return null;
                    }
                });
    }

    /** A jar posted to {@code /jars/upload} as a form of the foreign page would post it. */
    private static Answer uploadFromForeignPage(URI rest) throws IOException, InterruptedException {
        return postForm(rest, "/jars/upload", Map.of(), "jarfile", "probe.jar", emptyJar());
    }

    /**
     * A job graph posted to {@code /jobs} as a form of the foreign page would post it, as {@code
     * flink run} posts one: a pipeline of Flink's own classes, which would run once accepted (202).
     */
    private static Answer jobFromForeignPage(URI rest) throws IOException, InterruptedException {
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
        env.fromSequence(1, 1).sinkTo(new DiscardingSink<>());
        ByteArrayOutputStream graph = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(graph)) {
            out.writeObject(env.getStreamGraph().getJobGraph());
        }
        return postForm(
                rest,
                "/jobs",
                Map.of(
                        FileUploadHandler.HTTP_ATTRIBUTE_REQUEST,
                        "{\"jobGraphFileName\":\"job.graph\",\"jobJarFileNames\":[],"
                                + "\"jobArtifactFileNames\":[]}"),
                "file_0",
                "job.graph",
                graph.toByteArray());
    }

    /**
     * A {@code multipart/form-data} post to {@code path}, as a page's form sends one: the text
     * {@code fields}, then {@code file} named {@code fileName} in the field {@code fileField}.
     */
    private static Answer postForm(
            URI rest,
            String path,
            Map<String, String> fields,
            String fileField,
            String fileName,
            byte[] file)
            throws IOException, InterruptedException {
        String boundary = "----probe" + System.nanoTime();
        StringBuilder head = new StringBuilder();
        fields.forEach(
                (name, value) ->
                        head.append("--")
                                .append(boundary)
                                .append("\r\nContent-Disposition: form-data; name=\"")
                                .append(name)
                                .append("\"\r\n\r\n")
                                .append(value)
                                .append("\r\n"));
        head.append("--")
                .append(boundary)
                .append("\r\nContent-Disposition: form-data; name=\"")
                .append(fileField)
                .append("\"; filename=\"")
                .append(fileName)
                .append("\"\r\nContent-Type: application/octet-stream\r\n\r\n");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(head.toString().getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(file);
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return send(
                rest,
                HttpRequest.newBuilder(rest.resolve(path))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
    }

    /**
     * The status of {@code GET /config} as a page whose DNS name {@code name} was rebound to the
     * UI's address sends it: same-origin to the browser, no {@code Origin}, its own {@code Host}.
     */
    private static int statusForRebound(URI rest, String name) throws IOException {
        try (Socket socket = new Socket(rest.getHost(), rest.getPort())) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            socket.getOutputStream()
                    .write(
                            ("GET /config HTTP/1.1\r\nHost: "
                                            + name
                                            + ":"
                                            + rest.getPort()
                                            + "\r\nConnection: close\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
            String statusLine =
                    new BufferedReader(
                                    new InputStreamReader(
                                            socket.getInputStream(), StandardCharsets.US_ASCII))
                            .readLine();
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }

    /** {@code request} as the foreign page's browser sends it, naming the page's origin. */
    private static Answer send(URI rest, HttpRequest.Builder request)
            throws IOException, InterruptedException {
        HttpResponse<String> response =
                HttpClient.newBuilder()
                        .connectTimeout(TIMEOUT)
                        .build()
                        .send(
                                request.timeout(TIMEOUT).header("Origin", FOREIGN_ORIGIN).build(),
                                HttpResponse.BodyHandlers.ofString());
        return new Answer(
                response.statusCode(),
                response.body(),
                response.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    }

    private static byte[] emptyJar() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new JarOutputStream(bytes, manifest).close();
        return bytes.toByteArray();
    }
}
