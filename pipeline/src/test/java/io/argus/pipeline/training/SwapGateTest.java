package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The swap gate wants evidence: every class seen in the labels needs {@code minValObjectsPerClass} held-out objects
 * before a candidate can be swapped in (a tie at mAP 1.000 on two held-out frames is not evidence), and it says which
 * class it waits for.
 */
@Budget(seconds = 5)
class SwapGateTest {
    @TempDir
    Path dir;

    @Test
    void aTieOnTwoHeldOutObjectsWaitsAndSaysForWhat() {
        SwapDecision d = SwapDecision.decide(1.0, 1.0, 0, 2, Map.of("cross", 2), 10);
        assertFalse(d.accept());
        assertEquals("waiting: 2 held-out objects of class cross, need 10", d.reason());

        assertEquals("waiting: 0 held-out objects of class star, need 10 (1 more class short)",
                SwapDecision.waiting(Map.of("cross", 4, "star", 0, "circle", 12), 10),
                "the class with the fewest is named, a class seen only in training counts with 0");
        assertEquals("waiting: 1 held-out object of class a, need 3 (2 more classes short)",
                SwapDecision.waiting(Map.of("b", 1, "a", 1, "c", 2), 3));

        SwapDecision enough = SwapDecision.decide(0.8, 0.8, 0, 25, Map.of("cross", 10, "square", 15), 10);
        assertTrue(enough.accept(), enough.reason());
        SwapDecision worse = SwapDecision.decide(0.8, 0.7, 0, 25, Map.of("cross", 10, "square", 15), 10);
        assertFalse(worse.accept());
        assertTrue(worse.reason().contains("worse"), worse.reason());
        assertNull(SwapDecision.waiting(Map.of("cross", 0), 0), "0 turns the gate's per-class requirement off");
    }

    @Test
    void theStoreCountsHeldOutObjectsOfEveryLabelledClass() {
        DatasetStore s = DatasetStore.open(dir, DatasetStoreTest.NAMES, 2, 100);
        CollectedFrame val = add(s, 0), train = add(s, 1);
        assertEquals(List.of("val", "train"), List.of(val.split(), train.split()));
        s.label(val.id(), List.of(DatasetStoreTest.box(0, 1, 1, 5, 5), DatasetStoreTest.box(0, 9, 9, 5, 5)),
                "annotation", 1);
        s.label(train.id(), List.of(DatasetStoreTest.box(1, 1, 1, 5, 5)), "annotation", 2);
        DatasetStore.Snapshot snap = s.pin();
        assertEquals(Map.of("circle", 2, "square", 0), snap.valObjectsPerClass());
        assertEquals("waiting: 0 held-out objects of class square, need 10 (1 more class short)",
                SwapDecision.waiting(snap.valObjectsPerClass(), TrainingConfig.DEFAULT_MIN_VAL_OBJECTS_PER_CLASS));
        s.unpin();
    }

    @Test
    void theMinimumIsAConfigKeyWithADefaultOfTen() {
        assertEquals(10, read(new JsonObject()).minValObjectsPerClass());
        assertEquals(3, read(new JsonObject().put("minValObjectsPerClass", 3)).minValObjectsPerClass());
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> read(new JsonObject().put("minValObjectsPerClass", -1)));
        assertTrue(e.getMessage().contains("training.minValObjectsPerClass"), e.getMessage());
    }

    private TrainingConfig read(JsonObject json) {
        return TrainingConfig.read(new ConfigNode("training", json.put("enabled", true), Map.of(), new HashSet<>(), dir),
                List.of("demo"), dir);
    }

    private static CollectedFrame add(DatasetStore s, int i) {
        return s.add("cam", i, i * 40.0, 1_000_000.0 + i, DatasetStoreTest.image(40, 20, i), 0.5, "v1", List.of(),
                null);
    }
}
