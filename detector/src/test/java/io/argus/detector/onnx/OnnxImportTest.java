package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.peers.RegionOutputs;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Imported models of each family, written in PyTorch from the families' published structures and exported as their
 * exporters do (scripts/onnx), run by the CPU backend and by ONNX Runtime (onnxruntime-node) on the same input tensor
 * of two sample images: the graph's output equal within 1e-4 relative L2, and the detections after NMS of both equal
 * (same classes, boxes within IoU 0.99, scores within 1e-4).
 */
@Budget(seconds = 30)
class OnnxImportTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"tiny-yolov8, YOLOV8, 3", "tiny-yolov5, YOLOV5, 3", "tiny-yolo11, YOLOV8, 3", "tiny-yolox, YOLOX, 3",
            "tiny-yolov9, YOLOV8, 3"})
    void theGraphsOutputAndDetectionsEqualOnnxRuntimes(String name, OnnxHead.Family family, int classes)
            throws Exception {
        Path file = Path.of(getClass().getResource("/onnx/" + name + ".onnx").toURI());
        Model model = OnnxImport.load(file, null, null);
        OnnxHead head = OnnxHead.in(model);
        assertEquals(family, head.family());
        assertEquals(classes, head.classes());
        assertFalse(model.spec().convolutionalLayers().isEmpty());
        List<BgrImage> images = ProjectFiles.twoSamples("yolov4-tiny");
        var in = model.spec().inputShape();
        int size = in.size();
        DetectParams params = new DetectParams(0.25f, 0.45f, null);
        try (CpuBackend ours = new CpuBackend(model, images.size())) {
            List<List<Detection>> found = ours.detect(images, params);
            OnnxRuntimeNode ort = OnnxExportTest.runtime();
            for (int img = 0; img < images.size(); img++) {
                FloatBuffer input = ours.network().input().duplicate().position(img * size).slice();
                OnnxRuntimeNode.Result theirs = ort.run(file, input, 1, in.channels(), in.height(), in.width(), 1, 0);
                String output = OnnxHead.in(model).tail().outputs().get(0);
                float[] mine = ours.headOutput(0, img);
                float[] their = theirs.outputs().get(output);
                assertArrayEquals(OnnxModel.read(file).outputs().get(0).shape(), theirs.dims().get(output));
                double err = RegionOutputs.relativeL2(mine, their);
                System.out.printf(Locale.ROOT, "%s image %d: %s relative L2 %.2e, %d detections%n", name, img, output,
                        err, found.get(img).size());
                assertTrue(err <= 1e-4, name + " image " + img + ": relative L2 " + err + " > 1e-4");
                // the same decoding of ONNX Runtime's output gives the same detections
                long[] dims = theirs.dims().get(output);
                OnnxInput.Geometry g = new OnnxInput(head.convention()).write(images.get(img), in.width(), in.height(),
                        FloatBuffer.allocate(size), 0);
                List<Detection> reference = head.detections(new OnnxInterpreter.Tensor(dims, their), g, model.names(),
                        params.threshold(), params.nms());
                assertSameDetections(reference, found.get(img), name + " image " + img);
            }
        }
    }

    /**
     * Same classes, boxes (IoU >= 0.99) and scores (1e-4) one for one, except where NMS met a tie: a box whose score
     * equals, within 1e-5, that of another box of its class in the other list. Which of two tied boxes NMS keeps
     * first decides what it suppresses, and a difference of 1e-7 in the outputs orders them (random weights make many
     * boxes of the same score: the letterbox's grey band gives many anchors the same input). At most half may differ so.
     */
    static void assertSameDetections(List<Detection> expected, List<Detection> actual, String what) {
        List<Detection> left = new ArrayList<>(actual);
        List<Detection> unmatched = new ArrayList<>();
        for (Detection e : expected) {
            Detection match = left.stream().filter(a -> a.classId() == e.classId() && a.box().iou(e.box()) >= 0.99f
                    && Math.abs(a.confidence() - e.confidence()) <= 1e-4f).findFirst().orElse(null);
            if (match == null) unmatched.add(e);
            else left.remove(match);
        }
        for (Detection d : unmatched) assertTrue(tied(d, actual), what + ": ours lack " + d + " of " + expected);
        for (Detection d : left) assertTrue(tied(d, expected), what + ": ours have " + d + " beyond " + expected);
        assertTrue(unmatched.size() <= expected.size() / 2, what + ": " + unmatched.size() + " of " + expected.size()
                + " differ at ties");
    }

    private static boolean tied(Detection d, List<Detection> other) {
        for (Detection o : other) {
            if (o.classId() == d.classId() && Math.abs(o.confidence() - d.confidence()) <= 1e-5f) return true;
        }
        return false;
    }
}
