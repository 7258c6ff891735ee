package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever implementation the tuner picks on a CPU, the results are the same: for every convolution of the cfgs, on a
 * real image, every implementation oneDNN offers here (brgemm, JIT, JIT 1x1, GEMM, Winograd where there is one) writes
 * what the chosen one wrote, within FP32 rounding (relative L2 <= 1e-5). The chosen implementations are those the
 * OpenCV and Darknet equivalence tests check; this extends their check to the others a tuner on another CPU (or in
 * another run) may choose. The implementations seen are printed per kind of layer.
 */
class EveryImplementationTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"yolov4-tiny", "yolov3-tiny", "yolov7-tiny"})
    void everyImplementationWritesTheSame(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), 160, 160);
        BgrImage image = ProjectFiles.twoSamples(name).get(0);
        ModelWeights weights = RandomWeights.calibrated(spec, 11, image, 4);
        Map<String, Integer> seen = new TreeMap<>();
        double worst = 0;
        try (CpuNetwork net = new CpuNetwork(spec, weights, 1)) {
            new Preprocess().into(image, 160, 160, spec.net().letterBox(), net.input(), 0);
            net.forward(1);
            for (int i = 0; i < spec.layers().size(); i++) {
                if (!(net.layer(i) instanceof ConvolutionalLayer conv)) continue;
                // every layer has its own output buffer, so this layer's input is still what the forward pass left
                Map<String, float[]> outputs = conv.outputsOfEveryImplementation(1);
                float[] reference = outputs.get(conv.choice(1).candidate().key());
                for (var e : outputs.entrySet()) {
                    double err = Bf16AgreementTest.relativeL2(e.getValue(), reference);
                    worst = Math.max(worst, err);
                    seen.merge(e.getKey(), 1, Integer::sum);
                    assertTrue(err <= 1e-5, name + " layer " + i + ": " + e.getKey() + " differs from "
                            + conv.choice(1).candidate().key() + " by relative L2 " + err);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: implementations compared (layers each): %s; worst relative L2 %.2e%n",
                name, seen, worst);
        assertTrue(seen.size() >= 2, name + ": only one implementation offered here, nothing compared: " + seen);
    }
}
