package io.argus.detector.cpu;

import static io.argus.detector.cpu.Bf16AgreementTest.share;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What INT8 costs on the seven COCO cfgs (docs/cpu.md), as {@link Bf16AgreementTest} measures BF16: the same random
 * weights in FP32 and in INT8 calibrated on the project's sample images (config/samples), detections compared on all
 * six of them at {@link FastNetworks#WIDTH} x {@link FastNetworks#HEIGHT}, both precisions with oneDNN's first choice
 * of implementation per convolution ({@link FastNetworks#UNTUNED}: the subject is the precision, and a run no longer
 * depends on which implementations were timed fastest). INT8 rounds every activation to one of 255 levels of its
 * layer's range, far coarser than BF16: the heads' relative L2 error grows with depth, from 4% (yolov3-tiny) to 13%
 * (yolov4, yolov4-csp) on 2026-11-25, layer by layer as evenly as per-tensor rounding predicts (1-2% per layer early
 * on). On random weights, whose boxes crowd around the threshold, that moves many boxes across it (INT8 finds up to
 * twice as many on yolov4). So the bars are: every head within 0.2 relative L2 of FP32's, and at least 0.8 of FP32's
 * detections that score {@link Bf16AgreementTest#MARGIN} above the threshold found by INT8 (measured 0.83-1.00; the
 * other way, printed, 0.60-0.99). That share counts boxes near a threshold: on two images at 416 x 416 it was
 * 0.83-0.97 for yolov3, yolov4 and yolov4-csp, and on two images it moved between 0.79 and 0.99 with the input size
 * alone; six images count about 2.5 times the boxes (yolov4: 237 rather than 95), and at 224 x 160 it was 0.83-1.00
 * (2026-11-28). What INT8 costs a trained model is measured on the demo model (docs/cpu.md: mAP@0.5 0.9367 to
 * 0.9353). Skipped on a CPU without 8-bit dot products (int8 is refused there, CpuPrecisionTest).
 */
@Budget(seconds = 140)
class Int8AgreementTest {
    static final float THRESHOLD = Bf16AgreementTest.THRESHOLD;
    static final float MARGIN = Bf16AgreementTest.MARGIN;

    static List<String> cfgs() { return ProjectFiles.CFGS; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void int8FindsWhatFp32Finds(String name) {
        Assumptions.assumeTrue(CpuInfo.current().hasInt8Dot(), "this CPU has no 8-bit dot products: " + CpuInfo.current().describe());
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        List<BgrImage> images = ProjectFiles.sampleImages().stream().map(BgrImage::read).toList();
        ModelWeights weights = RandomWeights.calibrated(spec, name.hashCode(), ProjectFiles.twoSamples(name).get(0), 8);
        Model model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        CpuOptions int8 = FastNetworks.UNTUNED.withCalibration(ProjectFiles.root().resolve("config/samples"))
                .withPrecision(CpuPrecision.INT8);
        Bf16AgreementTest.Agreement a = Bf16AgreementTest.Agreement.measure(model, images, FastNetworks.UNTUNED, int8);
        a.print("int8", name);
        assertTrue(a.sure()[0] >= 4, name + ": the calibrated weights should give FP32 some confident detections, got " + a.sure()[0]);
        assertTrue(a.worstHead() <= 0.2, name + ": a head's relative L2 error is " + a.worstHead());
        assertTrue(share(a.sure()[2], a.sure()[0]) >= 0.8, name + ": share of FP32's detections INT8 finds "
                + share(a.sure()[2], a.sure()[0]));
    }
}
