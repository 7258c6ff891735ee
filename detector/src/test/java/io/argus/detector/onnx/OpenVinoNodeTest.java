package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.CpuInfo;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.peers.RegionOutputs;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenVINO (openvino-node's CPU plugin, through scripts/openvino/run.mjs) on our ONNX export of yolov4-tiny with
 * calibrated random weights at {@link FastNetworks#WIDTH} x {@link FastNetworks#HEIGHT}, two sample images in one
 * batch, against our engine: in f32 every raw [yolo] head equal within 1e-4 relative L2 (as ONNX Runtime in
 * {@link OnnxExportTest}); at the CPU plugin's default precision, bf16 exactly where the CPU has AVX512_BF16 or AMX, and
 * the heads still the same network's (within 0.1). This checks the OpenVINO peer of {@code argus bench} and, through a
 * second independent runtime, the export.
 *
 * <p>Skipped, naming why and how to install, where openvino-node's runtime is missing. Unlike ONNX Runtime (whose test
 * fails then), openvino-node's install step downloads that runtime from OpenVINO's own server rather than from npm, so
 * on machines that reach only the package registries it cannot be installed, and a failing test would fail there
 * every time. Budget: 20 s (an export, our forward and two OpenVINO processes that each compile the model).
 */
@Budget(seconds = 20)
class OpenVinoNodeTest {
    private static final String CFG = "yolov4-tiny";

    @TempDir
    Path tmp;

    @Test
    void openVinoComputesOurHeadsInF32AndTheCpuDefaultPrecision() throws Exception {
        OpenVinoNode openvino = new OpenVinoNode(ProjectFiles.root().resolve("scripts/openvino"));
        String why = openvino.unavailable();
        Assumptions.assumeTrue(why == null, "OpenVINO peer: " + why);
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(CFG), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        List<BgrImage> images = ProjectFiles.twoSamples(CFG);
        ModelWeights weights = RandomWeights.calibrated(spec, CFG.hashCode(), images.get(0), 8);
        Model model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        Path onnx = tmp.resolve(CFG + ".onnx");
        Files.write(onnx, OnnxExport.export(spec, weights, "test"));
        var in = spec.inputShape();
        try (CpuBackend ours = new CpuBackend(model, images.size(), FastNetworks.UNTUNED)) {
            ours.detect(images, new DetectParams(0.25f, 0.45f, YoloSpec.NmsKind.DEFAULT));
            OpenVinoNode.Result f32 = openvino.run(onnx, ours.network().input(), images.size(), in.channels(),
                    in.height(), in.width(), 1, 0, OpenVinoNode.Precision.F32);
            System.out.printf(Locale.ROOT, "OpenVINO %s on %s, %d threads: precision %s%n", f32.version(), f32.device(),
                    f32.threads(), f32.precision());
            assertTrue(f32.precision().startsWith("f32"), "asked f32, compiled for " + f32.precision());
            compare(spec, ours, images.size(), f32, 1e-4);

            OpenVinoNode.Result best = openvino.run(onnx, ours.network().input(), images.size(), in.channels(),
                    in.height(), in.width(), 1, 0, OpenVinoNode.Precision.BEST);
            String expected = CpuInfo.current().hasBf16() ? "bf16" : "f32";
            System.out.printf(Locale.ROOT, "OpenVINO's default precision here: %s (%s)%n", best.precision(),
                    CpuInfo.current().describe());
            assertTrue(best.precision().startsWith(expected), "the CPU plugin's default on this CPU should be "
                    + expected + ", it compiled for " + best.precision());
            compare(spec, ours, images.size(), best, 0.1);
        }
    }

    /** Every head of every image against our raw head (the output of the layer the [yolo] reads, before its logistic). */
    private static void compare(NetworkSpec spec, CpuBackend ours, int batch, OpenVinoNode.Result theirs, double bound) {
        List<YoloSpec> heads = spec.yoloLayers();
        assertEquals(heads.size(), theirs.outputs().size(), "heads");
        for (int h = 0; h < heads.size(); h++) {
            YoloSpec y = heads.get(h);
            var s = y.output();
            assertArrayEquals(new long[] {batch, s.channels(), s.height(), s.width()}, theirs.dims().get("head" + h),
                    "head" + h + " dims");
            float[] all = theirs.outputs().get("head" + h);
            for (int img = 0; img < batch; img++) {
                float[] mine = ours.network().outputImage(y.index() - 1, img);
                float[] image = Arrays.copyOfRange(all, img * mine.length, (img + 1) * mine.length);
                double err = RegionOutputs.relativeL2(mine, image);
                System.out.printf(Locale.ROOT, "%s %s image %d head %d (layer %d, %s): relative L2 %.2e%n", CFG,
                        theirs.precision(), img, h, y.index() - 1, s, err);
                assertTrue(err <= bound, CFG + " " + theirs.precision() + " head " + h + " image " + img
                        + ": relative L2 " + err + " > " + bound);
            }
        }
    }
}
