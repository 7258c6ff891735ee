package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.app.ArgusApp;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.testing.RunningApp;
import io.vertx.core.Future;
import io.argus.testkit.Budget;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ids of online training are names, checked where they enter: frame ids, model ids, version ids
 * ({@code sha256:<12 hex>}, {@code -r<run>}, or a name), run numbers and the frame list's query. A path, a NUL, an
 * over-long or malformed id is 400 naming the field at the REST door, and the in-process services refuse the same
 * when called directly; a well-formed id of nothing is 404.
 * Budget: 10 s (one app with the 64x64 tiny model, no camera).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Budget(seconds = 10)
class TrainingIdsCheckedTest {
    @TempDir
    static Path root;

    TrainingApi api;

    @BeforeAll
    void start() throws Exception {
        api = new TrainingApi(root.resolve("data"), json -> {});
    }

    @AfterAll
    void stop() throws Exception {
        if (api != null) api.close();
    }

    @Test
    void malformedIdsAre400NamingTheFieldAndUnknownOnes404() throws Exception {
        String longId = "f".repeat(129);
        String[][] bad = {
                {"GET", "/api/training/frames/..%2F..%2Fversions%2Fregistry", "frame id: "},
                {"GET", "/api/training/frames/" + longId, "frame id: "},
                {"GET", "/api/training/frames/a%00b/image", "frame id: "},
                {"DELETE", "/api/training/frames/.hidden", "frame id: "},
                {"PUT", "/api/training/frames/..%2Fx/labels", "frame id: "},
                {"GET", "/api/models/..%2Ftiny/versions", "model id: "},
                {"POST", "/api/models/-tiny/rollback", "model id: "},
                {"GET", "/api/models/tiny/versions/..%2F..%2Fdataset%2Fstore.json/weights", "version: "},
                {"GET", "/api/models/tiny/versions/sha256:..%2Fregistry/weights", "version: "},
                {"GET", "/api/models/tiny/versions/sha256:ABCDEF/weights", "version: "},
                {"GET", "/api/training/runs/-1", "run id: "},
                {"GET", "/api/training/runs/99999999999", "run id: "},
                {"GET", "/api/training/frames?limit=-5", "limit: "},
                {"GET", "/api/training/frames?split=..%2F", "split: "},
                {"GET", "/api/training/frames?labeled=maybe", "labeled: "},
        };
        for (String[] b : bad) {
            RunningApp.Response r = api.send(HttpMethod.valueOf(b[0]), b[1], "application/json", b[0].equals("GET") || b[0].equals("DELETE")
                    ? null : io.vertx.core.buffer.Buffer.buffer(new JsonObject().put("labels", new io.vertx.core.json.JsonArray()).encode()));
            System.out.println(b[0] + " " + b[1] + " -> " + r.status() + " " + r.body());
            assertEquals(400, r.status(), b[0] + " " + b[1] + ": " + r.body());
            assertTrue(r.json().getString("error").startsWith(b[2]), b[1] + ": " + r.body());
        }
        assertEquals(404, api.get("/api/training/frames/cam-123").status());
        assertEquals(404, api.get("/api/training/runs/7").status());
        assertEquals(404, api.get("/api/models/tiny/versions/sha256:0123456789ab/weights").status());
        assertEquals(404, api.get("/api/models/tiny/versions/sha256:0123456789ab-r3/weights").status());
        assertEquals(404, api.get("/api/models/other/versions").status(), "a model that does not learn");
    }

    @Test
    void theServicesRefuseMalformedIdsThemselves() throws Exception {
        ArgusApp app = api.app.app;
        assertRefused("frame ../store", app.dataset().frame("../store"), "frame id: ");
        assertRefused("capture ../cam", app.dataset().capture("../cam", "test"), "camera: ");
        assertRefused("weights ../registry.json", app.registry().weights("../registry.json"), "version: ");
        assertRefused("adopt /dev/null as sha256:../../x", app.registry().adopt(Path.of("/dev/null"), "sha256:../../x", "operator"),
                "version: ");
        assertRefused("run -5", app.training().run(-5), "run id: ");
        // a run id that is not a number ("../1") cannot reach the trainer: its id is an int
    }

    void assertRefused(String request, Future<?> answer, String field) throws Exception {
        try {
            answer.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            throw new AssertionError(request + " accepted");
        } catch (ExecutionException e) {
            assertEquals(400, RequestRefused.statusOf(e.getCause()), request + ": " + e.getCause());
            assertTrue(e.getCause().getMessage().startsWith(field), request + ": " + e.getCause().getMessage());
        }
    }
}
