package io.argus.pipeline.testing;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.config.ArgusConfig;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** An Argus instance started for a test plus a client side (its own Vert.x) for HTTP and WebSocket calls. */
public final class RunningApp implements AutoCloseable {
    public final ArgusApp app;
    public final Vertx client = Vertx.vertx();
    private final WebClient web;
    private final String token;

    public RunningApp(ArgusConfig config) throws Exception {
        this(config, io.argus.pipeline.base.StartupProgress.NONE);
    }

    /** Started with {@code progress} told about each slow step of the start. */
    public RunningApp(ArgusConfig config, io.argus.pipeline.base.StartupProgress progress) throws Exception {
        this.app = ArgusApp.start(config, progress).get(120, TimeUnit.SECONDS);
        this.token = app.dashboard().access().token(); // configured or generated
        this.web = WebClient.create(client, TestHttp.options("127.0.0.1", app.httpPort()));
    }

    public int port() { return app.httpPort(); }

    public record Response(int status, String body, String contentType, Buffer raw, MultiMap headers) {
        public JsonObject json() { return new JsonObject(body); }

        public JsonArray array() { return new JsonArray(body); }

        /** A response header, null when absent. */
        public String header(String name) { return headers.get(name); }
    }

    /** The app's access token (configured or generated), null when it is open. */
    public String token() { return token; }

    /** A request with the app's token (when it has one). */
    public Response call(HttpMethod method, String path, String body) throws Exception {
        return call(method, path, body, token);
    }

    public Response call(HttpMethod method, String path, String body, String bearer) throws Exception {
        var req = web.request(method, path);
        if (bearer != null) req.putHeader("Authorization", "Bearer " + bearer);
        if (body != null) req.putHeader("Content-Type", "application/json"); // the API takes JSON bodies only as such
        var f = body != null ? req.sendBuffer(Buffer.buffer(body)) : req.send();
        return response(f);
    }

    /**
     * A request with exactly {@code headers} (no token unless they carry it; a Host header replaces the real one) and
     * {@code body} as it is: what a browser or an attacker sends.
     */
    public Response send(HttpMethod method, String path, Map<String, String> headers, String body) throws Exception {
        var req = web.request(method, path);
        headers.forEach(req::putHeader);
        return response(body != null ? req.sendBuffer(Buffer.buffer(body)) : req.send());
    }

    private static Response response(Future<HttpResponse<Buffer>> f) throws Exception {
        HttpResponse<Buffer> r = f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        Buffer b = r.body() != null ? r.body() : Buffer.buffer();
        return new Response(r.statusCode(), b.toString(), r.getHeader("content-type"), b, r.headers());
    }

    public Response get(String path) throws Exception { return call(HttpMethod.GET, path, null); }

    public JsonObject camera(String id) throws Exception { return get("/api/cameras/" + id).json(); }

    public WsClient ws(String uri) throws Exception { return WsClient.connect(client, port(), uri, token, 0); }

    @Override
    public void close() throws Exception {
        try {
            app.closeAndWait();
        } finally {
            client.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
