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

    /**
     * A kill after a candidate's weights were copied in but before registry.json named them leaves a file no history
     * names: removed at the next open; the weights of committed versions, and of a history set aside, stay.
     */
    @Test
    void weightsAKillLeftUncommittedAreRemovedAtTheNextOpen() throws Exception {
        Path dir = tmp.resolve("versions");
        ModelRegistry old = ModelRegistry.open(dir, "sha256:aaa", weights("a.weights", "a"));
        ModelRegistry.Version setAside = old.addCandidate(weights("x.weights", "x"), 1, 0.5, 0.6, true);
        old.activated(setAside.version());
        ModelRegistry r = ModelRegistry.open(dir, "sha256:bbb", weights("b.weights", "b")); // sets the first aside
        ModelRegistry.Version kept = r.addCandidate(weights("c1.weights", "one"), 1, 0.5, 0.6, true);
        r.activated(kept.version());
        assertTrue(!kept.file().equals(setAside.file()) && Files.isRegularFile(setAside.file()));
        Path uncommitted = dir.resolve("2-0123456789ab.weights"); // copied in; the kill came before registry.json
        Files.writeString(uncommitted, "two");
        Path other = dir.resolve("notes.weights"); // not a name the registry gives: never its to remove
        Files.writeString(other, "mine");

        ModelRegistry reopened = ModelRegistry.open(dir, "sha256:bbb", weights("b.weights", "b"));
        assertEquals(kept.version(), reopened.active().version());
        assertTrue(Files.notExists(uncommitted), "uncommitted weights removed");
        assertTrue(Files.isRegularFile(kept.file()), "the serving version's weights stay");
        assertTrue(Files.isRegularFile(setAside.file()), "a set-aside history's weights stay");
        assertTrue(Files.isRegularFile(other));

        // a history that does not read: what it names is unknown, so nothing goes
        Files.writeString(uncommitted, "two");
        Files.writeString(dir.resolve("registry-corrupt-1.json"), "{not json");
        ModelRegistry.open(dir, "sha256:bbb", weights("b.weights", "b"));
        assertTrue(Files.isRegularFile(uncommitted));
    }
}
