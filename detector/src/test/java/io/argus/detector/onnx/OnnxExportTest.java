package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
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
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exported ONNX model run by ONNX Runtime (onnxruntime-node, an independent implementation) against our engine,
 * on the seven official cfgs with random weights at {@link FastNetworks#WIDTH} x {@link FastNetworks#HEIGHT} and two
 * sample images in one batch: every raw [yolo] head equal within 1e-4 relative L2. Our side runs oneDNN's first choice
 * of implementation per convolution ({@link FastNetworks#UNTUNED}): what is checked here is the export. ONNX Runtime
 * is installed by scripts/test.sh; without it this test fails, saying how to install it, rather than skipping (a
 * skipped peer would hide a missing install step).
 */
@Budget(seconds = 270)
class OnnxExportTest {
    @TempDir
    Path tmp;

    /** A network of one convolution (lines 1-12), for the cfgs of the error cases. */
    private static final String ONE_CONVOLUTION = """
                [net]
                width=64
                height=64
                channels=3

                [convolutional]
                filters=8
                size=3
                stride=1
                pad=1
                activation=leaky
                """;

    static List<String> cfgs() { return ProjectFiles.CFGS; }

    static OnnxRuntimeNode runtime() {
        OnnxRuntimeNode ort = new OnnxRuntimeNode(ProjectFiles.root().resolve("scripts/onnxruntime"));
        assertNull(ort.unavailable(), "ONNX Runtime peer");
        return ort;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void onnxRuntimeComputesTheSameHeads(String name) throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        List<BgrImage> images = ProjectFiles.twoSamples(name);
        ModelWeights weights = RandomWeights.calibrated(spec, name.hashCode(), images.get(0), 8);
        Model model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        Path onnx = tmp.resolve(name + ".onnx");
        Files.write(onnx, OnnxExport.export(spec, weights, "test"));
        var in = spec.inputShape();
        try (CpuBackend ours = new CpuBackend(model, images.size(), FastNetworks.UNTUNED)) {
            ours.detect(images, new DetectParams(0.25f, 0.45f, YoloSpec.NmsKind.DEFAULT));
            OnnxRuntimeNode.Result theirs = runtime().run(onnx, ours.network().input(), images.size(), in.channels(),
                    in.height(), in.width(), 1, 0);
            List<YoloSpec> heads = spec.yoloLayers();
            assertEquals(heads.size(), theirs.outputs().size(), "heads");
            for (int h = 0; h < heads.size(); h++) {
                YoloSpec y = heads.get(h);
                var s = y.output();
                assertArrayEquals(new long[] {images.size(), s.channels(), s.height(), s.width()},
                        theirs.dims().get("head" + h), "head" + h + " dims");
                float[] all2 = theirs.outputs().get("head" + h);
                for (int img = 0; img < images.size(); img++) {
                    // our raw head: the output of the layer the [yolo] reads, before its logistic
                    float[] mine = ours.network().outputImage(y.index() - 1, img);
                    float[] onnxImage = java.util.Arrays.copyOfRange(all2, img * mine.length, (img + 1) * mine.length);
                    double err = RegionOutputs.relativeL2(mine, onnxImage);
                    System.out.printf(Locale.ROOT, "%s image %d head %d (layer %d, %s): relative L2 %.2e%n", name, img,
                            h, y.index() - 1, s, err);
                    assertTrue(err <= 1e-4, name + " head " + h + " image " + img + ": relative L2 " + err + " > 1e-4");
                }
            }
        }
    }

    /** Plain heads (yolov3-tiny), a scale_x_y of each head's own (yolov4), new_coords (yolov7-tiny, as yolov4-csp). */
    static List<String> decodeCfgs() { return List.of("yolov3-tiny", "yolov4", "yolov7-tiny"); }

    /**
     * With decoding and NMS in the graph (plain heads, scale_x_y, new_coords): ONNX Runtime's boxes kept by its
     * NonMaxSuppression are our detections: each of ours has a selection of its class with IoU >= 0.98 and each
     * selection one of ours, apart from scores within {@link #MARGIN} of the threshold (rounding may flip them).
     * Images are the network's size, so input pixels are image pixels.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("decodeCfgs")
    void decodingAndNmsInTheGraphGiveOurDetections(String name) throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        List<BgrImage> images = ProjectFiles.twoSamples(name).stream()
                .map(i -> resized(i, spec.net().width(), spec.net().height())).toList();
        ModelWeights weights = RandomWeights.calibrated(spec, name.hashCode(), images.get(0), 8);
        Model model = new Model(spec, weights, Model.readNames(ProjectFiles.cocoNames()));
        float threshold = 0.25f, iou = 0.45f;
        Path onnx = tmp.resolve(name + "-nms.onnx");
        Files.write(onnx, OnnxExport.export(spec, weights, "test", new OnnxExport.Decode(threshold, iou, 1000)));
        var in = spec.inputShape();
        try (CpuBackend ours = new CpuBackend(model, images.size(), FastNetworks.UNTUNED)) {
            List<List<io.argus.detector.Detection>> found = ours.detect(images, new DetectParams(threshold, iou, YoloSpec.NmsKind.DEFAULT));
            OnnxRuntimeNode.Result theirs = runtime().run(onnx, ours.network().input(), images.size(), in.channels(),
                    in.height(), in.width(), 1, 0);
            long boxesPerImage = theirs.dims().get("boxes")[1];
            float[] boxes = theirs.outputs().get("boxes"), scores = theirs.outputs().get("scores");
            float[] selected = theirs.outputs().get("selected");
            assertEquals(3, theirs.dims().get("selected")[1]);
            int classes = spec.classes();
            for (int img = 0; img < images.size(); img++) {
                List<io.argus.detector.Detection> kept = new java.util.ArrayList<>();
                for (int k = 0; k < selected.length / 3; k++) {
                    if ((int) selected[3 * k] != img) continue;
                    int c = (int) selected[3 * k + 1];
                    long b = (long) selected[3 * k + 2];
                    int at = (int) ((img * boxesPerImage + b) * 4);
                    float cx = boxes[at], cy = boxes[at + 1], w = boxes[at + 2], h = boxes[at + 3];
                    float score = scores[(int) ((img * boxesPerImage + b) * classes + c)];
                    // the graph's boxes are not clipped; ours are, to the image (here the input's size)
                    float x0 = Math.max(0, cx - w / 2), y0 = Math.max(0, cy - h / 2);
                    float x1 = Math.min(in.width(), cx + w / 2), y1 = Math.min(in.height(), cy + h / 2);
                    kept.add(new io.argus.detector.Detection(c, "", score, new io.argus.detector.Box(x0, y0, x1 - x0, y1 - y0)));
                }
                List<io.argus.detector.Detection> mine = found.get(img);
                System.out.printf(Locale.ROOT, "%s image %d: %d detections, ONNX Runtime's NMS kept %d%n", name, img, mine.size(), kept.size());
                assertTrue(mine.size() >= 3, name + ": the calibrated weights should give some detections, got " + mine.size());
                for (var d : mine) {
                    if (d.confidence() < threshold + MARGIN) continue;
                    assertTrue(kept.stream().anyMatch(k -> k.classId() == d.classId() && k.box().iou(d.box()) >= 0.98),
                            name + " image " + img + ": ours " + d + " is not among ONNX Runtime's");
                }
                for (var k : kept) {
                    if (k.confidence() < threshold + MARGIN) continue;
                    assertTrue(mine.stream().anyMatch(d -> d.classId() == k.classId() && d.box().iou(k.box()) >= 0.98),
                            name + " image " + img + ": ONNX Runtime kept " + k + ", we did not");
                }
            }
        }
    }

    static final float MARGIN = 0.002f;

    static BgrImage resized(BgrImage image, int w, int h) {
        java.awt.image.BufferedImage out = new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_3BYTE_BGR);
        java.awt.Graphics2D g = out.createGraphics();
        g.setRenderingHint(java.awt.RenderingHints.KEY_INTERPOLATION, java.awt.RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.drawImage(image.toBufferedImage(), 0, 0, w, h, null);
        g.dispose();
        return BgrImage.fromBufferedImage(out);
    }

    /** A layer kind the engine does not know never reaches the exporter: the cfg fails, naming file, line and kind. */
    @Test
    void anUnsupportedLayerKindIsNamedWithItsLine() {
        String cfg = ONE_CONVOLUTION + """

                [reorg]
                stride=2
                """;
        RuntimeException e = assertThrows(RuntimeException.class, () -> NetworkSpec.parse(Path.of("odd.cfg"), cfg, 0, 0));
        assertTrue(e.getMessage().contains("odd.cfg:13") && e.getMessage().contains("[reorg]"), e.getMessage());
    }

    @Test
    void aNetworkWithoutYoloHasNothingToExport() {
        String cfg = ONE_CONVOLUTION;
        NetworkSpec spec = NetworkSpec.parse(Path.of("headless.cfg"), cfg, 0, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OnnxExport.export(spec, RandomWeights.of(spec, 1), "t"));
        assertEquals("headless.cfg: no [yolo] layer: nothing to export", e.getMessage());
    }
}
