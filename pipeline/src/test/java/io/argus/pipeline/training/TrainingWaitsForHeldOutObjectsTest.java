package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running trainer refuses to start a run whose held-out frames cannot tell a better candidate from a worse one
 * (two held-out objects of a class, ten needed by default), says why in the refusal and in {@code GET /api/training},
 * and says nothing once the requirement is lowered.
 */
@Budget(seconds = 15)
class TrainingWaitsForHeldOutObjectsTest {
    @TempDir
    Path data;

    @Test
    void aRunWaitsForHeldOutObjectsAndTheStatusSaysWhy() throws Exception {
        // eight labelled frames, every 4th held out: six to train on, two held out with one person each
        List<String> names = Model.readNames(TestMedia.cocoNames());
        DatasetStore store = DatasetStore.open(data.resolve("tiny/dataset"), names, 4, 100);
        for (int i = 0; i < 8; i++) {
            CollectedFrame f = store.add("cam", i, i * 40.0, 1_000_000.0 + i, DatasetStoreTest.image(64, 64, i), 0.5,
                    "v1", List.of(), null);
            store.label(f.id(), List.of(new Detection(0, "person", 1f, new Box(8, 8, 20, 30))), "annotation", i);
        }

        JsonObject json = TestConfig.light();
        json.put("snapshots", new JsonObject().put("fps", 0));
        json.put("training", new JsonObject().put("enabled", true).put("model", "tiny").put("dataDir", data.toString())
                .put("backend", "cpu").put("collect", new JsonObject().put("enabled", false)));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            JsonObject before = app.get("/api/training").json();
            assertNull(before.getValue("waiting"), "nothing tried yet: " + before.encode());
            assertEquals(10, before.getInteger("minValObjectsPerClass"));

            RunningApp.Response refused = app.call(HttpMethod.POST, "/api/training/runs", null);
            assertEquals(409, refused.status(), refused.body());
            String why = "waiting: 2 held-out objects of class person, need 10";
            assertEquals(why, refused.json().getString("error"));
            assertEquals(why, app.get("/api/training").json().getString("waiting"));
            assertEquals(0, app.get("/api/training/runs").array().size(), "no run was started");
        }
    }
}
