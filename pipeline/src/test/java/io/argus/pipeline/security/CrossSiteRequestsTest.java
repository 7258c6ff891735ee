package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.testing.WsClient;
import io.argus.testkit.Budget;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A browser cannot be turned against the API (docs/pipeline.md, "Access"). A page of another site (another host, or
 * another port of the same host, which SameSite cookies do not tell apart) makes the browser send the dashboard's
 * cookie: every state-changing request and every WebSocket or SockJS request it sends carries its Origin, which must be
 * this server's own or one listed in {@code http.allowedOrigins} (403 otherwise); a JSON body must be declared
 * {@code application/json} (415 otherwise: a form or {@code text/plain} is what a page can send without asking); SockJS
 * gives a foreign origin no credentialed CORS. On an open server (loopback, no token) a page of any site could also
 * reach the API by DNS rebinding (its own name resolved to 127.0.0.1): there the Host must name this machine or be
 * listed in {@code http.allowedHosts}. The dashboard's own use (same origin, the cookie) keeps working, SockJS with the
 * cookie alone included, and so do scripts (no Origin).
 *
 * <p>Two light apps: one with a token and a camera (the cookie cases), one open (DNS rebinding). Budget: 25 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 25)
class CrossSiteRequestsTest {
    static final String TOKEN = "cross-site-test-token";
    static final String COOKIE = "argus_token=" + TOKEN;
    /** Another site: another host and port, as in the report. */
    static final String EVIL = "http://evil.example:3000";
    /** A dashboard served elsewhere (a reverse proxy), listed in http.allowedOrigins. */
    static final String PROXY = "https://argus.example";

    RunningApp guarded;
    RunningApp open;

    @BeforeAll
    void start() throws Exception {
        JsonObject g = TestConfig.light();
        g.getJsonObject("http").put("token", TOKEN).put("allowedOrigins", new JsonArray().add(PROXY));
        g.getJsonArray("cameras").add(TestConfig.camera("cam", TestMedia.shapes(10).toString()));
        guarded = new RunningApp(TestConfig.read(g));
        JsonObject o = TestConfig.light();
        o.getJsonObject("http").put("allowedHosts", new JsonArray().add("argus.lan"));
        open = new RunningApp(TestConfig.read(o));
    }

    @AfterAll
    void stop() throws Exception {
        if (guarded != null) guarded.close();
        if (open != null) open.close();
    }

    /** The origin of the dashboard's own pages: what a browser sends from them. */
    String self(RunningApp app) { return "http://127.0.0.1:" + app.port(); }

    static Map<String, String> headers(String... nameValue) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put(nameValue[i], nameValue[i + 1]);
        return m;
    }

    static String camera(String id) throws Exception {
        return TestConfig.camera(id, TestMedia.shapes(10).toString()).encode();
    }

    RunningApp.Response send(RunningApp app, HttpMethod method, String path, Map<String, String> headers, String body)
            throws Exception {
        RunningApp.Response r = app.send(method, path, headers, body);
        String answer = r.body().strip();
        System.out.println(method + " " + path + " " + headers + " -> " + r.status() + " "
                + (answer.length() > 200 ? answer.substring(0, 200) + "..." : answer));
        return r;
    }

    @Test
    void aPageOfAnotherSiteCannotChangeAnythingWithTheCookie() throws Exception {
        var r = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Cookie", COOKIE, "Origin", EVIL, "Content-Type", "text/plain"), camera("evil"));
        assertEquals(403, r.status(), r.body());
        assertTrue(r.body().contains("evil.example:3000") && r.body().contains("http.allowedOrigins"), r.body());
        r = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Cookie", COOKIE, "Origin", EVIL, "Content-Type", "application/json"), camera("evil"));
        assertEquals(403, r.status(), "a foreign Origin is refused whatever the content type: " + r.body());
        assertEquals(403, send(guarded, HttpMethod.POST, "/api/cameras/cam/pause",
                headers("Cookie", COOKIE, "Origin", "null"), null).status(), "an opaque origin (a sandboxed page) is foreign too");
        assertEquals(403, send(guarded, HttpMethod.DELETE, "/api/cameras/cam",
                headers("Cookie", COOKIE, "Origin", "http://127.0.0.1:" + (guarded.port() + 1)), null).status(),
                "another port of the same host is another site");
        assertEquals(404, guarded.get("/api/cameras/evil").status(), "nothing was added");
        assertEquals(200, guarded.get("/api/cameras/cam").status(), "nothing was removed");
        assertFalse(guarded.camera("cam").getBoolean("paused", false), "nothing was paused");
    }

    @Test
    void jsonBodiesMustSayTheyAreJson() throws Exception {
        for (String type : new String[]{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
            var r = send(guarded, HttpMethod.POST, "/api/cameras",
                    headers("Cookie", COOKIE, "Origin", self(guarded), "Content-Type", type), camera("plain"));
            assertEquals(415, r.status(), type + ": " + r.body());
            assertTrue(r.body().contains("application/json"), "the error names the expected type: " + r.body());
        }
        var untyped = send(guarded, HttpMethod.PUT, "/api/cameras/cam/zones", headers("Authorization", "Bearer " + TOKEN),
                "{\"zones\": []}");
        assertEquals(415, untyped.status(), "a body without a type: " + untyped.body());
        assertEquals(404, guarded.get("/api/cameras/plain").status(), "nothing was added");
        var charset = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Cookie", COOKIE, "Origin", self(guarded), "Content-Type", "application/json; charset=UTF-8"), camera("typed"));
        assertEquals(201, charset.status(), "application/json with a charset: " + charset.body());
        assertEquals(200, guarded.call(HttpMethod.DELETE, "/api/cameras/typed", null).status());
    }

    @Test
    void theDashboardItselfAndScriptsStillWork() throws Exception {
        var added = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Cookie", COOKIE, "Origin", self(guarded), "Content-Type", "application/json"), camera("own"));
        assertEquals(201, added.status(), added.body());
        assertEquals(200, send(guarded, HttpMethod.POST, "/api/cameras/own/pause",
                headers("Cookie", COOKIE, "Origin", self(guarded)), null).status());
        assertEquals(200, send(guarded, HttpMethod.DELETE, "/api/cameras/own",
                headers("Cookie", COOKIE, "Origin", self(guarded)), null).status());
        var script = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Authorization", "Bearer " + TOKEN, "Content-Type", "application/json"), camera("scripted"));
        assertEquals(201, script.status(), "no Origin (curl, a script): " + script.body());
        assertEquals(200, guarded.call(HttpMethod.DELETE, "/api/cameras/scripted", null).status());
        var proxied = send(guarded, HttpMethod.POST, "/api/cameras",
                headers("Cookie", COOKIE, "Origin", PROXY, "Content-Type", "application/json"), camera("proxied"));
        assertEquals(201, proxied.status(), "an origin listed in http.allowedOrigins: " + proxied.body());
        assertEquals(200, guarded.call(HttpMethod.DELETE, "/api/cameras/proxied", null).status());
        try (WsClient ws = ws(guarded, "/ws?cameras=cam&includeEmpty=true", headers("Cookie", COOKIE))) { // its own origin, as a page sends
            ws.await(m -> "detections".equals(m.getString("type")), Duration.ofSeconds(20), "detections on the dashboard's /ws");
        }
    }

    @Test
    void webSocketsOfAnotherSiteAreRefused() throws Exception {
        for (String path : new String[]{"/ws", "/eventbus/websocket"}) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> ws(guarded, path, headers("Cookie", COOKIE, "Origin", EVIL)).close(), path + " from " + EVIL);
            System.out.println(path + " upgrade from " + EVIL + " with the cookie -> " + e.getCause());
            assertTrue(e.getCause() instanceof UpgradeRejectedException u && u.getStatus() == 403, path + ": " + e.getCause());
        }
    }

    @Test
    void sockJsGivesAnotherSiteNoCredentialedCors() throws Exception {
        for (HttpMethod method : new HttpMethod[]{HttpMethod.GET, HttpMethod.OPTIONS}) {
            var info = send(guarded, method, "/eventbus/info", headers("Cookie", COOKIE, "Origin", EVIL), null);
            System.out.println("  access-control-allow-origin: " + info.header("access-control-allow-origin")
                    + ", access-control-allow-credentials: " + info.header("access-control-allow-credentials"));
            assertEquals(403, info.status(), method + " /eventbus/info from " + EVIL);
            assertNull(info.header("access-control-allow-origin"), "no CORS for " + EVIL);
            assertNull(info.header("access-control-allow-credentials"));
        }
        var xhr = send(guarded, HttpMethod.POST, "/eventbus/000/crosssite/xhr", headers("Cookie", COOKIE, "Origin", EVIL), null);
        assertEquals(403, xhr.status(), xhr.body());
        assertNull(xhr.header("access-control-allow-credentials"));
        var plain = send(guarded, HttpMethod.GET, "/eventbus/info", headers("Cookie", COOKIE), null);
        assertEquals(200, plain.status());
        assertNull(plain.header("access-control-allow-origin"), "no permissive CORS (\"*\") either");
        var listed = send(guarded, HttpMethod.GET, "/eventbus/info", headers("Cookie", COOKIE, "Origin", PROXY), null);
        assertEquals(200, listed.status());
        assertEquals(PROXY, listed.header("access-control-allow-origin"), "an origin listed in http.allowedOrigins may use it");
    }

    @Test
    void sockJsWorksWithTheCookieAlone() throws Exception {
        try (WsClient bridge = ws(guarded, "/eventbus/websocket", headers("Cookie", COOKIE))) {
            bridge.send(new JsonObject().put("type", "register").put("address", "argus.detections.cam"));
            JsonObject first = bridge.await(m -> "rec".equals(m.getString("type")) || "err".equals(m.getString("type")),
                    Duration.ofSeconds(20), "detections or an error on the bridge (websocket, cookie only)");
            assertEquals("rec", first.getString("type"), "registered with the cookie alone: " + first.encode());
        }
        // SockJS closes the connection after each poll: a client reusing it would race the close
        Map<String, String> page = headers("Cookie", COOKIE, "Origin", self(guarded), "Connection", "close");
        String session = "/eventbus/000/cookie" + System.nanoTime();
        var opened = send(guarded, HttpMethod.POST, session + "/xhr", page, null);
        assertEquals(200, opened.status());
        assertEquals("o", opened.body().strip(), "the SockJS open frame");
        var empty = send(guarded, HttpMethod.POST, session + "/xhr_send", page, null);
        assertTrue(empty.status() >= 400 && empty.status() < 500, "an empty xhr_send is the client's mistake, not a 500: " + empty.status());
        var broken = send(guarded, HttpMethod.POST, session + "/xhr_send", page, "not json");
        assertTrue(broken.status() >= 400 && broken.status() < 500, "broken JSON in xhr_send: " + broken.status());
        var register = send(guarded, HttpMethod.POST, session + "/xhr_send", page,
                new JsonArray().add(new JsonObject().put("type", "register").put("address", "argus.detections.cam").encode()).encode());
        assertEquals(204, register.status(), register.body());
        String received = "";
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!received.contains("\\\"rec\\\"") && !received.contains("\\\"err\\\"") && System.nanoTime() < end) {
            received = send(guarded, HttpMethod.POST, session + "/xhr", page, null).body();
        }
        assertTrue(received.contains("\\\"rec\\\""), "detections over xhr polling with the cookie alone: " + received);
    }

    @Test
    void dnsRebindingIsRefusedOnAnOpenServer() throws Exception {
        String attacker = "attacker.example:" + open.port();
        var post = send(open, HttpMethod.POST, "/api/cameras",
                headers("Host", attacker, "Origin", "http://" + attacker, "Content-Type", "application/json"), camera("rebound"));
        assertTrue(post.status() == 403 || post.status() == 421, post.body());
        assertTrue(post.body().contains("attacker.example") && post.body().contains("http.allowedHosts"), post.body());
        for (String path : new String[]{"/api/cameras", "/api/cameras/cam/snapshot.jpg", "/"}) {
            int status = send(open, HttpMethod.GET, path, headers("Host", attacker), null).status();
            assertTrue(status == 403 || status == 421, "GET " + path + " with Host " + attacker + ": " + status);
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> ws(open, "/ws", headers("Host", attacker)).close());
        assertTrue(e.getCause() instanceof UpgradeRejectedException u && (u.getStatus() == 403 || u.getStatus() == 421),
                String.valueOf(e.getCause()));
        assertEquals(404, open.get("/api/cameras/rebound").status(), "nothing was added");
        for (String host : new String[]{"localhost", "127.0.0.1", "127.0.0.5", "[::1]", "argus.lan"}) {
            assertEquals(200, send(open, HttpMethod.GET, "/api/cameras", headers("Host", host + ":" + open.port()), null).status(),
                    "Host " + host);
        }
        var foreign = send(open, HttpMethod.POST, "/api/cameras", headers("Origin", EVIL, "Content-Type", "text/plain"), camera("evil"));
        assertEquals(403, foreign.status(), "a page of another site posting to the open server: " + foreign.body());
    }

    @Test
    void aListedOriginOrHostThatIsNoneIsNamedAtStart() throws Exception {
        for (String[] bad : new String[][]{{"allowedOrigins", "*"}, {"allowedOrigins", "argus.example"},
                {"allowedOrigins", "https://argus.example/dashboard"}, {"allowedHosts", "argus.lan:8080"},
                {"allowedHosts", "http://argus.lan"}}) {
            JsonObject json = TestConfig.base();
            json.getJsonObject("http").put(bad[0], new JsonArray().add(bad[0].equals("allowedOrigins") ? PROXY : "argus.lan").add(bad[1]));
            ConfigException e = assertThrows(ConfigException.class, () -> TestConfig.read(json), bad[0] + ": " + bad[1]);
            assertEquals("http." + bad[0] + "[1]", e.key(), e.getMessage());
            assertTrue(e.getMessage().contains("expected") && e.getMessage().contains(bad[1]), e.getMessage());
        }
        JsonObject json = TestConfig.base();
        json.getJsonObject("http").put("allowedOrigins", new JsonArray().add("HTTPS://Argus.Example:443"))
                .put("allowedHosts", new JsonArray().add("[::2]").add("Argus.LAN"));
        var http = TestConfig.read(json).http();
        assertEquals(java.util.List.of("https://argus.example"), http.allowedOrigins(), "read as browsers send them");
        assertEquals(java.util.List.of("::2", "argus.lan"), http.allowedHosts());
    }

    WsClient ws(RunningApp app, String uri, Map<String, String> headers) throws Exception {
        return WsClient.connect(app.client, app.port(), uri, null, 0, MultiMap.caseInsensitiveMultiMap().addAll(headers));
    }
}
