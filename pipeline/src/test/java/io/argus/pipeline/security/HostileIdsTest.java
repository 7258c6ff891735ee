package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the router with a path parameter ({@code :id}, {@code :version}...), training routes included (the app
 * runs with online training on), gets hostile identifiers in each parameter with each of its methods: encoded and raw
 * {@code ../}, absolute paths, NUL, {@code %2e%2e}, backslashes, a leading dash or dot, 3 KB and 10 KB names. Each must
 * answer 400 or 404 (never 2xx, never 500; a name longer than an HTTP request line may be is refused by the server
 * itself with 414), nothing may be written anywhere under the temporary root that holds the cache, the training data
 * and the models, nor in /tmp, and the app must stay healthy. Routes are found as AuthRoutesTest finds them, so a route
 * added later is tried too. One app for the class. Budget: 30 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 30)
class HostileIdsTest {
    /** A path parameter of a route: {@code :id}; a regex route is named after its path the same way. */
    static final Pattern PARAM = Pattern.compile(":([A-Za-z0-9_]+)");

    @TempDir
    static Path root;
    /** Where an absolute id would write: a fresh name, so a leftover of another run cannot pass for one of this. */
    final String outside = "/tmp/argus-hostile-" + UUID.randomUUID();
    RunningApp app;

    @BeforeAll
    void start() throws Exception {
        JsonObject json = TestConfig.demo().put("cacheDir", root.resolve("cache").toString());
        json.put("snapshots", new JsonObject().put("fps", 0));
        // training on, so its routes are mounted (as OnlineTrainingEndToEndTest has it); no schedule: nothing trains
        json.put("training", new JsonObject().put("enabled", true).put("model", "demo")
                .put("dataDir", root.resolve("training").toString()).put("schedule", "").put("backend", "cpu"));
        app = new RunningApp(TestConfig.read(json));
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) app.close();
    }

    /** Hostile values of one path segment, as sent (already percent-encoded where it says so). */
    List<String> hostile() {
        String encodedOutside = outside.replace("/", "%2F");
        return List.of("..%2Fx", "..%2F..%2F..%2Fx", "%2Fetc%2Fpasswd", encodedOutside, encodedOutside + "%2Fsub%2Fy",
                "%2e%2e", "%2e%2e%2fx", "..", "%00", "x%00y", "..%5Cx", "%5Cx", "-rf", ".hidden", "a%20b", "x".repeat(3000),
                "y".repeat(10_240));
    }

    /** Path segments that mean "this directory" or "the one above", which URL normalization removes. */
    static final Set<String> DOT_SEGMENTS = Set.of("..", "%2e%2e");

    /** {@code path} as the server routes it: dot segments removed. */
    static String normalized(String path) {
        return java.net.URI.create(path.replace("%2e", ".")).normalize().getPath();
    }

    /** A route to try: how it is named, its method, and its path with {@code :param} placeholders. */
    record Target(String name, HttpMethod method, String path) {}

    static List<Target> targets(List<Route> routes) {
        List<Target> out = new ArrayList<>();
        for (Route r : routes) {
            String path = r.getPath() != null ? r.getPath() : r.isRegexPath() ? r.getName() : null;
            if (path == null || !PARAM.matcher(path).find() || r.methods() == null) continue;
            for (HttpMethod m : r.methods()) out.add(new Target(m.name() + " " + path, m, path));
        }
        return out;
    }

    /** {@code path} with {@code hostile} in parameter {@code n} and a plausible value in the others. */
    static String fill(String path, int n, String hostile) {
        Matcher m = PARAM.matcher(path);
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (m.find()) {
            String plausible = m.group(1).equals("frame") ? "1" : "demo";
            m.appendReplacement(b, Matcher.quoteReplacement(i++ == n ? hostile : plausible));
        }
        m.appendTail(b);
        return b.toString();
    }

    /** A body each route would accept were its ids good, so that the id is what is refused. */
    String body(Target t) {
        if (t.method() != HttpMethod.PUT && t.method() != HttpMethod.POST) return null;
        if (t.path().endsWith("/zones") || t.path().endsWith("/lines")) return "[]";
        return new JsonObject().put("labels", new io.vertx.core.json.JsonArray()).put("file", outside + "/x.weights").encode();
    }

    Set<String> tree() throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            return new TreeSet<>(all.map(p -> root.relativize(p).toString()).toList());
        }
    }

    @Test
    void everyRouteWithAnIdAnswers400Or404ToHostileIdsAndWritesNothing() throws Exception {
        List<Target> targets = targets(app.app.http().routes());
        Set<String> names = new TreeSet<>();
        for (Target t : targets) names.add(t.name());
        System.out.println("routes with ids: " + names);
        for (String expected : List.of("GET /api/cameras/:id", "PUT /api/cameras/:id/zones", "PUT /api/cameras/:id/lines",
                "GET /api/events/:id", "PUT /api/training/frames/:id/labels", "GET /api/models/:id/versions/:version/weights",
                "GET /api/cameras/:id/snapshots/:frame.jpg")) {
            assertTrue(names.contains(expected), expected + " is among the routes tried: " + names);
        }
        Set<String> before = tree();
        // where %2Fetc%2Fpasswd as a camera id wrote (as root) before ids were checked: it must not appear now
        Path etc = Path.of("/etc/passwd.json");
        boolean etcBefore = Files.exists(etc);
        List<String> wrong = new ArrayList<>();
        int sent = 0;
        for (Target t : targets) {
            long params = PARAM.matcher(t.path()).results().count();
            for (int n = 0; n < params; n++) {
                for (String id : hostile()) {
                    String path = fill(t.path(), n, id);
                    RunningApp.Response r = app.call(t.method(), path, body(t));
                    sent++;
                    boolean ok = r.status() == 400 || r.status() == 404 || (r.status() == 414 && id.length() > 4096);
                    if (DOT_SEGMENTS.contains(id) && r.status() != 500) {
                        // a dot segment is removed before routing (RFC 3986): this is a request for the shorter path,
                        // and must be answered as that one is, by its own route
                        ok |= r.status() == app.call(t.method(), normalized(path), body(t)).status();
                    }
                    if (!ok || r.body().length() > 1000) {
                        String shown = path.length() > 120 ? path.substring(0, 120) + "... (" + path.length() + " characters)" : path;
                        String said = r.body().length() > 200 ? r.body().substring(0, 200) + "... (" + r.body().length() + " characters)" : r.body();
                        wrong.add(t.name() + ": " + t.method() + " " + shown + " -> " + r.status() + " " + said);
                    }
                }
            }
        }
        System.out.println("hostile requests: " + sent + ", answered wrongly: " + wrong.size());
        wrong.forEach(w -> System.out.println("  " + w));
        assertEquals(List.of(), wrong, "each answered 400 or 404 with a short error");
        assertEquals(before, tree(), "nothing written under " + root);
        assertFalse(Files.exists(Path.of(outside)), outside + " was created");
        assertFalse(Files.exists(Path.of(outside + ".json")), outside + ".json was created");
        assertEquals(etcBefore, Files.exists(etc), etc + " was created");
        assertEquals(200, app.get("/health").status(), "alive");
        assertEquals(200, app.get("/api/cameras").status(), "still answering");
        assertEquals(200, app.get("/api/models/demo/versions").status(), "the model registry still answering");
    }
}
