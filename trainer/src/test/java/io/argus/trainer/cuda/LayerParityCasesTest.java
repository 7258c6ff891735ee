package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.HostOps;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.Shape;
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
 * its kind, and its CPU reference builds and runs a forward + backward. The one inference-only kind (HostOpsSpec: an
 * imported graph's nodes run on the host, which have no backward pass) is refused by training instead, saying why.
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
        Class<?>[] permitted = java.util.Arrays.stream(LayerSpec.class.getPermittedSubclasses())
                .filter(k -> k != HostOpsSpec.class).toArray(Class<?>[]::new);
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
    void trainingRefusesLayersRunOnTheHost() {
        NetworkSpec base = NetworkSpec.parse(java.nio.file.Path.of("one.cfg"),
                "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=leaky\n", 0, 0);
        Shape in = base.layers().get(0).output();
        HostOps identity = new HostOps() {
            @Override
            public void apply(float[][] inputs, float[] output) { System.arraycopy(inputs[0], 0, output, 0, output.length); }

            @Override
            public String describe() { return "1 ONNX node (Identity)"; }
        };
        NetworkSpec spec = NetworkSpec.of(java.nio.file.Path.of("imported.onnx"), base.net(), java.util.List.of(
                base.layers().get(0), new HostOpsSpec(1, 2, new int[] {0}, new Shape[] {in}, in, identity)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CpuTrainingBackend(spec, ModelWeights.zeros(spec), 1, 1, false));
        assertEquals("imported.onnx: layer 1 runs 1 ONNX node (Identity) on the host, which has no backward pass: "
                + "imported graphs are for inference", e.getMessage());
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
