package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whatever implementation the tuner picks on a CPU, the results are the same: for every convolution of the seven COCO
 * cfgs, on a real image, every implementation oneDNN offers here (brgemm, JIT, JIT 1x1, GEMM, Winograd where there is
 * one) and our own Winograd F(2x2) and F(4x4) (on the FP32 3x3 stride-1 layers) writes what the chosen one wrote,
 * within FP32 rounding (relative L2 <= 1e-5). The reference is oneDNN's first choice ({@link FastNetworks#UNTUNED}),
 * the implementation the OpenCV and Darknet equivalence tests check against those independent peers; this extends
 * their check to every other one a tuner may pick on some CPU. The implementations seen are printed with the layers
 * each ran and its worst error.
 */
@Budget(seconds = 90)
class EveryImplementationTest {
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.argus.detector.testing.ProjectFiles#cfgs")
    void everyImplementationWritesTheSame(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        BgrImage image = ProjectFiles.twoSamples(name).get(0);
        ModelWeights weights = RandomWeights.calibrated(spec, 11, image, 4);
        Map<String, Integer> seen = new TreeMap<>();
        Map<String, Double> worstOf = new TreeMap<>();
        double worst = 0;
        java.util.Set<String> shapes = new java.util.HashSet<>();
        int repeats = 0;
        try (CpuNetwork net = new CpuNetwork(spec, weights, 1, FastNetworks.UNTUNED)) {
            new Preprocess().into(image, spec.net().width(), spec.net().height(), spec.net().letterBox(), net.input(), 0);
            net.forward(1);
            for (int i = 0; i < spec.layers().size(); i++) {
                if (!(net.layer(i) instanceof ConvolutionalLayer conv)) continue;
                // a shape met before in this cfg (the backbones repeat their residual blocks) runs the same code with
                // other weights: once per shape is the same check at about half the cost
                if (!shapes.add(shapeOf(conv.spec()))) {
                    repeats++;
                    continue;
                }
                // every layer has its own output buffer, so this layer's input is still what the forward pass left
                Map<String, float[]> outputs = conv.outputsOfEveryImplementation(1);
                float[] reference = outputs.get(conv.choice(1).candidate().key());
                for (var e : outputs.entrySet()) {
                    double err = Bf16AgreementTest.relativeL2(e.getValue(), reference);
                    worst = Math.max(worst, err);
                    seen.merge(e.getKey(), 1, Integer::sum);
                    worstOf.merge(e.getKey(), err, Math::max);
                    assertTrue(err <= 1e-5, name + " layer " + i + ": " + e.getKey() + " differs from "
                            + conv.choice(1).candidate().key() + " by relative L2 " + err);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: implementations compared (layers each): %s; worst relative L2 %.2e; "
                + "%d layers of a shape already compared left out%n", name, seen, worst, repeats);
        worstOf.forEach((k, v) -> System.out.printf(Locale.ROOT, "%s:   %-40s %3d layers, worst relative L2 %.2e%n",
                name, k, seen.get(k), v));
        assertTrue(seen.containsKey("winograd|argus-f2x2") && seen.containsKey("winograd|argus-f4x4"),
                name + ": our Winograd was not compared: " + seen);
        assertTrue(seen.size() >= 2, name + ": only one implementation offered here, nothing compared: " + seen);
    }

    /** What a convolution's implementations are chosen and specialised by: the problem, not the weights. */
    static String shapeOf(io.argus.detector.darknet.ConvolutionalSpec c) {
        return c.input() + " -> " + c.filters() + " k" + c.size() + " s" + c.strideY() + "x" + c.strideX() + " p" + c.pad()
                + " g" + c.groups() + " " + c.activation() + (c.batchNormalize() ? " bn" : "");
    }
}
