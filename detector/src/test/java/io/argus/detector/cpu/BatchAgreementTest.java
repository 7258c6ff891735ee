package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An image alone and the same image second in a batch of two give every layer the same output, on every supported
 * cfg: primitives are built per batch size (and may be different implementations, chosen by timing), the batch
 * offsets of channels-last buffers and of route slices must all line up. At the input size of the equivalence tests
 * ({@link FastNetworks#WIDTH} x {@link FastNetworks#HEIGHT}), so in one JVM these are the implementations they check
 * against the peers (batch of two: OpenCV; alone: Darknet, EveryImplementationTest).
 */
@Budget(seconds = 60)
class BatchAgreementTest {
    static java.util.List<String> cfgs() { return ProjectFiles.CFGS; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void singleImageEqualsBatchForEveryLayer(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        int width = spec.net().width(), height = spec.net().height();
        BgrImage img = BgrImage.read(ProjectFiles.sampleImages().get(2));
        ModelWeights w = RandomWeights.of(spec, 5);
        try (CpuNetwork one = new CpuNetwork(spec, w, 1, FastNetworks.UNTUNED);
             CpuNetwork two = new CpuNetwork(spec, w, 2, FastNetworks.UNTUNED)) {
            Preprocess pre = new Preprocess();
            int in = spec.inputShape().size();
            pre.write(img, width, height, false, one.input(), 0);
            pre.write(BgrImage.read(ProjectFiles.sampleImages().get(3)), width, height, false, two.input(), 0);
            pre.write(img, width, height, false, two.input(), in);   // the same image as the second of the batch
            one.forward(1);
            two.forward(2);
            for (LayerSpec l : spec.layers()) {
                float[] a = one.outputImage(l.index(), 0);
                float[] b = two.outputImage(l.index(), 1);
                double num = 0;
                double den = 0;
                for (int i = 0; i < a.length; i++) {
                    double d = a[i] - b[i];
                    num += d * d;
                    den += (double) b[i] * b[i];
                }
                double rel = Math.sqrt(num / Math.max(den, 1e-30));
                assertTrue(rel <= 1e-5, name + " layer " + l.index() + " (" + l.kind() + "): relative L2 " + rel);
            }
        }
    }
}
