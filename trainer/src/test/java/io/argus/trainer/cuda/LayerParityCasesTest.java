package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.cuda.LayerParityCases.Case;
import io.argus.trainer.train.CpuTrainingBackend;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * CPU only (runs in CI): the parity harness cannot silently test nothing. Every layer kind LayerSpec permits has a
 * tolerance row for both precisions and at least one case; every case's network parses, its layer under test is of
 * its kind, and its CPU reference builds and runs a forward + backward.
 */
@Budget(seconds = 5)
class LayerParityCasesTest {
    private static Set<String> kinds() {
        Set<String> kinds = new HashSet<>();
        for (Case c : LayerParityCases.cases()) kinds.add(c.kind());
        return kinds;
    }

    @Test
    void everyLayerKindHasCasesAndTolerances() {
        Class<?>[] permitted = LayerSpec.class.getPermittedSubclasses();
        assertNotNull(permitted, "LayerSpec is sealed");
        Set<String> covered = kinds();
        for (Class<?> k : permitted) {
            String kind = k.getSimpleName().replace("Spec", "").toLowerCase(java.util.Locale.ROOT);
            assertTrue(covered.contains(kind), "no parity case for " + kind);
            for (Precision p : LayerParityCases.PRECISIONS) assertNotNull(LayerParityCases.tolerance(kind, p));
        }
        assertEquals(permitted.length, LayerParityCases.TOLERANCES.size(), "a tolerance row per layer kind");
        assertEquals(4, LayerParityCases.BATCHES.length);
    }

    @Test
    void everyCaseBuildsItsCpuReference() {
        for (Case c : LayerParityCases.cases()) {
            NetworkSpec spec = c.spec();
            LayerSpec l = spec.layers().get(c.layer());
            assertEquals(c.kind(), l.kind(), c + ": layer " + c.layer() + " is " + l.kind());
            ModelWeights w = WeightsInit.darknet(spec, 7);
            try (CpuTrainingBackend cpu = new CpuTrainingBackend(spec, w, 1, 1, false)) {
                var loss = cpu.forwardBackward(GpuTests.batch(spec, 1, 3), 1f);
                assertFalse(Double.isNaN(loss.box() + loss.objectness() + loss.classification()), c + ": loss");
            }
        }
    }
}
