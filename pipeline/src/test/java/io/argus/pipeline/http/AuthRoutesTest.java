package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.argus.testkit.CapturedLogs;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP server on a non-loopback address with no token configured: it generates one, and every route of the
 * router needs it except the documented open set ({@link #OPEN}). The set is compared with what the router really
 * answers, so a route added without thought is caught here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 35)
class AuthRoutesTest {
    /**
     * Reachable without the token (docs/pipeline.md, "Access"): probes, the Prometheus scrape, the page's own info, the
     * token link {@code /?token=} and the dashboard's static files.
     */
    static final Set<String> OPEN = Set.of("GET /api/info", "GET /health", "GET /ready", "GET /metrics", "GET /", "ANY /*",
            "ANY *"); // the last: the failure handler's route (it only formats errors; any path reaches it)

    @TempDir
    static Path cache;

    RunningApp app;
    WebClient web;
    CapturedLogs logs;

    @BeforeAll
    void start() throws Exception {
        logs = CapturedLogs.start();
        app = new RunningApp(TestConfig.read(config(cache)));
        web = WebClient.create(app.client, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(app.port())
                .setFollowRedirects(false));
    }

    @AfterAll
    void stop() throws Exception {
        if (logs != null) logs.close();
        if (app != null) app.close();
    }

    /** Listening on every interface, no token configured, the cache in {@code cacheDir}. */
    static JsonObject config(Path cacheDir) throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonObject("http").put("host", "0.0.0.0");
        json.put("cacheDir", cacheDir.toString());
        return json;
    }

    /** One request to try: what the route is called in {@link #OPEN}, and where to send it. */
    record Probe(String route, HttpMethod method, String path) {}

    @Test
    void everyRouteNeedsTheTokenExceptTheDocumentedOpenSet() throws Exception {
        String token = app.token();
        assertNotNull(token, "a non-loopback host with no http.token gets a generated token");
        List<Probe> probes = probes(app.app.http().routes());
        Set<String> open = new TreeSet<>();
        Set<String> all = new TreeSet<>();
        for (Probe p : probes) {
            all.add(p.route());
            int without = status(p.method(), p.path(), Map.of());
            if (without != 401) open.add(p.route());
            assertTrue(without == 401 || OPEN.contains(p.route()),
                    p.method() + " " + p.path() + " (route " + p.route() + ") answered " + without + " without the token");
            int header = status(p.method(), p.path(), Map.of("Authorization", "Bearer " + token));
            assertNotEquals(401, header, p.method() + " " + p.path() + " with the token in the header");
            assertNotEquals(429, header, p.method() + " " + p.path() + " with the token in the header");
            int cookie = status(p.method(), p.path(), Map.of("Cookie", TokenAuth.COOKIE + "=" + token));
            assertNotEquals(401, cookie, p.method() + " " + p.path() + " with the token in the cookie");
            int wrong = status(p.method(), p.path(), Map.of("X-Nothing", "1"));
            assertEquals(without, wrong, "the same again: " + p.method() + " " + p.path());
        }
        System.out.println("routes: " + all + "\nopen: " + open);
        assertEquals(OPEN, open, "the open routes are exactly the documented ones");
        for (String r : List.of("GET /api/cameras", "GET /api/cameras/:id/snapshot.jpg", "GET /ws", "ANY /eventbus/*",
                "POST /api/models/:id/rollback", "GET /api/training/frames/:id/image", "PUT /api/training/frames/:id/labels")) {
            assertTrue(all.contains(r) && !open.contains(r), r + " is a protected route");
        }
        assertTrue(all.contains("GET regex /api/cameras/:id/snapshots/:frame.jpg"), "the snapshot regex route was probed: " + all);
        assertFalse(logs.text().contains(token), "the token is never logged");
    }

    @Test
    void theTokenLinkSetsAStrictHttpOnlyCookieThatAuthorisesApiAndWebSocket() throws Exception {
        String token = app.token();
        HttpResponse<Buffer> r = send(HttpMethod.GET, "/?token=" + token, Map.of());
        assertEquals(302, r.statusCode());
        assertEquals("/", r.getHeader("location"), "the token leaves the address bar");
        String setCookie = r.getHeader("set-cookie");
        assertNotNull(setCookie, "a cookie is set");
        assertTrue(setCookie.startsWith(TokenAuth.COOKIE + "=" + token + ";"), setCookie);
        assertTrue(setCookie.contains("HTTPOnly") || setCookie.contains("HttpOnly"), setCookie);
        assertTrue(setCookie.contains("SameSite=Strict"), setCookie);
        assertTrue(setCookie.contains("Path=/"), setCookie);
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));

        assertEquals(200, send(HttpMethod.GET, "/api/cameras", Map.of("Cookie", cookie)).statusCode());
        assertEquals(200, send(HttpMethod.GET, "/api/clients", Map.of("Cookie", cookie)).statusCode());
        assertEquals(401, send(HttpMethod.GET, "/api/cameras", Map.of()).statusCode());
        try (WsClient ws = connect("/ws", Map.of("Cookie", cookie))) {
            ws.send(new JsonObject().put("type", "subscribe"));
            ws.await(m -> "subscribed".equals(m.getString("type")), java.time.Duration.ofSeconds(10), "subscribe ack");
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> connect("/ws", Map.of()));
        assertTrue(e.getCause() instanceof UpgradeRejectedException u && u.getStatus() == 401, String.valueOf(e.getCause()));
        try (WsClient ws = connect("/ws?access_token=" + token, Map.of())) {
            assertFalse(ws.closed());
        }

        HttpResponse<Buffer> wrong = send(HttpMethod.GET, "/?token=not-the-token", Map.of());
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.bodyAsString().contains("argus token show"), wrong.bodyAsString());
        assertEquals(null, wrong.getHeader("set-cookie"));
        HttpResponse<Buffer> stale = send(HttpMethod.GET, "/api/cameras", Map.of("Cookie", TokenAuth.COOKIE + "=old"));
        assertEquals(401, stale.statusCode());
        assertTrue(stale.getHeader("set-cookie").contains("Max-Age=0"), "a stale cookie is cleared: " + stale.getHeader("set-cookie"));
        assertEquals(200, send(HttpMethod.GET, "/", Map.of()).statusCode(), "the page itself is open");
    }

    @Test
    void theEleventhWrongTokenFromAnAddressIsRefusedWith429UntilTheWindowEnds() throws Exception {
        String token = app.token();
        try (var guesser = new Client("127.0.0.7"); var neighbour = new Client("127.0.0.8")) {
            for (int i = 1; i <= FailedAttempts.MAX_FAILURES; i++) {
                assertEquals(401, guesser.status("/api/cameras", "Bearer guess" + i), "wrong token " + i);
            }
            HttpResponse<Buffer> refused = guesser.send("/api/cameras", "Bearer guess11");
            assertEquals(429, refused.statusCode(), "the 11th wrong token");
            long retry = Long.parseLong(refused.getHeader("retry-after"));
            assertTrue(retry > 0 && retry <= FailedAttempts.WINDOW_SECONDS, "Retry-After: " + retry);
            assertEquals(429, guesser.status("/api/cameras", "Bearer " + token), "even the right token, for the rest of the window");
            assertEquals(200, guesser.status("/health", null), "open routes stay open");
            assertEquals(200, neighbour.status("/api/cameras", "Bearer " + token), "another address is unaffected");
        }
    }

    @Test
    void theGeneratedTokenIsPrintedOnceKeptOwnerOnlyAndReusedOnRestart() throws Exception {
        AccessToken first = app.app.http().access();
        assertEquals(AccessToken.Kind.FILE, first.kind());
        assertEquals(cache.resolve(TokenFile.NAME), first.file());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(first.file())));
        List<String> lines = app.app.dashboard().startLines();
        assertTrue(lines.get(0).startsWith("argus: dashboard http://localhost:" + app.port() + "/?token=" + first.token() + " "), lines.toString());
        try (RunningApp again = new RunningApp(TestConfig.read(config(cache)))) {
            AccessToken second = again.app.http().access();
            assertEquals(first.token(), second.token(), "the same token after a restart");
            assertFalse(second.generatedNow());
            List<String> later = again.app.dashboard().startLines();
            assertFalse(String.join("\n", later).contains(first.token()), "printed only when generated: " + later);
            assertTrue(later.get(1).equals("argus: token in " + first.file() + "; see: argus token show"), later.toString());
        }
    }

    /** A probe per method of every route; routes for any method are tried with GET and POST. */
    static List<Probe> probes(List<Route> routes) {
        List<Probe> probes = new ArrayList<>();
        for (Route r : routes) {
            String name;
            String sample;
            if (r.getPath() != null) {
                name = r.isExactPath() ? r.getPath() : r.getPath() + "*";
                sample = (r.isExactPath() ? r.getPath() : r.getPath() + "sample").replaceAll(":[A-Za-z0-9_]+", "1");
            } else if (r.isRegexPath()) {
                // no path to fill in: regex routes are named after the paths they take ("/api/cameras/:id/snapshots/:frame.jpg")
                if (r.getName() == null) throw new AssertionError("a regex route without a name: name it after its paths (Route.setName)");
                name = "regex " + r.getName();
                sample = r.getName().replaceAll(":[A-Za-z0-9_]+", "1");
            } else {
                name = "*"; // a route for every path
                sample = "/sample";
            }
            if (r.methods() == null || r.methods().isEmpty()) {
                for (HttpMethod m : List.of(HttpMethod.GET, HttpMethod.POST)) probes.add(new Probe("ANY " + name, m, sample));
            } else {
                for (HttpMethod m : r.methods()) probes.add(new Probe(m.name() + " " + name, m, sample));
            }
        }
        return probes;
    }

    int status(HttpMethod method, String path, Map<String, String> headers) throws Exception {
        return send(method, path, headers).statusCode();
    }

    HttpResponse<Buffer> send(HttpMethod method, String path, Map<String, String> headers) throws Exception {
        var req = web.request(method, path);
        headers.forEach(req::putHeader);
        return req.send().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    WsClient connect(String uri, Map<String, String> headers) throws Exception {
        return WsClient.connect(app.client, app.port(), uri, null, 0, MultiMap.caseInsensitiveMultiMap().addAll(headers));
    }

    /** A client whose connections come from {@code localAddress} (any of 127.0.0.0/8 reaches the server). */
    final class Client implements AutoCloseable {
        final WebClient client;

        Client(String localAddress) {
            client = WebClient.create(app.client, new WebClientOptions().setDefaultHost("127.0.0.1")
                    .setDefaultPort(app.port()).setLocalAddress(localAddress));
        }

        int status(String path, String authorization) throws Exception { return send(path, authorization).statusCode(); }

        HttpResponse<Buffer> send(String path, String authorization) throws Exception {
            var req = client.get(path);
            if (authorization != null) req.putHeader("Authorization", authorization);
            return req.send().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() { client.close(); }
    }
}
