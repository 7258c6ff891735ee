package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.inference.LoadedModel;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Versions of a model: candidates accepted or rejected, what serves, what rollback returns to, across restarts. */
@Budget(seconds = 5)
class ModelRegistryTest {
    @TempDir
    Path tmp;

    Path weights(String name, String content) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    @Test
    void acceptedCandidatesServeRejectedOnesAreOnlyRecordedAndRollbackReturns() throws Exception {
        Path base = weights("base.weights", "base");
        Path dir = tmp.resolve("versions");
        ModelRegistry r = ModelRegistry.open(dir, "sha256:base", base);
        assertEquals("sha256:base", r.active().version());
        assertNull(r.previous());

        Path c1 = weights("c1.weights", "one");
        ModelRegistry.Version v1 = r.addCandidate(c1, 1, 0.8, 0.85, true);
        assertEquals(LoadedModel.fileVersion(c1), v1.version());
        assertEquals(1, v1.number());
        assertEquals("sha256:base", v1.parent());
        assertTrue(Files.isRegularFile(v1.file()) && v1.file().startsWith(dir), "accepted weights are kept in the registry");
        assertEquals("sha256:base", r.active().version(), "active only once swapped in");
        r.activated(v1.version());

        ModelRegistry.Version v2 = r.addCandidate(weights("c2.weights", "two"), 2, 0.85, 0.5, false);
        assertEquals("rejected", v2.state());
        assertNull(v2.file());
        assertEquals(v1.version(), r.active().version());
        assertEquals("sha256:base", r.previous().version());

        ModelRegistry reopened = ModelRegistry.open(dir, "sha256:base", base);
        assertEquals(v1.version(), reopened.active().version(), "the serving version is resumed after a restart");
        reopened.rolledBack();
        assertEquals("sha256:base", reopened.active().version());
        assertEquals("rolled-back", reopened.get(v1.version()).state());
        assertThrows(IllegalStateException.class, reopened::rolledBack);
        JsonObject j = reopened.toJson();
        assertEquals(3, j.getJsonArray("versions").size());
        assertTrue(j.getJsonArray("versions").getJsonObject(2).getBoolean("serving"));
    }

    @Test
    void newConfiguredWeightsStartANewHistory() throws Exception {
        Path dir = tmp.resolve("versions");
        ModelRegistry r = ModelRegistry.open(dir, "sha256:aaa", weights("a.weights", "a"));
        r.activated(r.addCandidate(weights("c.weights", "c"), 1, 0.5, 0.6, true).version());
        ModelRegistry other = ModelRegistry.open(dir, "sha256:bbb", weights("b.weights", "b"));
        assertEquals("sha256:bbb", other.active().version());
        assertEquals(1, other.toJson().getJsonArray("versions").size());
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().matches("registry-\\d+\\.json")), "the old history is set aside");
        }
    }
}
