package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A model written by PyTorch's exporter, as Ultralytics exports YOLOv8 (torch.onnx.export at opset 17, static
 * 1x3x64x64, class names in the metadata): {@code onnx/tiny-yolov8.onnx}, made by scripts/onnx/tiny_yolov8.py (a
 * tiny-width YOLOv8: C2f, SPPF, PAN neck, DFL head decoded in the graph; onnxruntime ran it to [1, 7, 84] on the GPU
 * host). It reads, every tensor gets a static shape, and the exporter's shape arithmetic folds away.
 */
@Budget(seconds = 10)
class OnnxImportOfTorchExportTest {
    @Test
    void aTinyYolov8ExportedByPytorchReadsWithStaticShapes() throws URISyntaxException {
        Path file = Path.of(getClass().getResource("/onnx/tiny-yolov8.onnx").toURI());
        OnnxModel m = OnnxModel.read(file);
        assertEquals(17, m.opset());
        assertTrue(m.producer().startsWith("pytorch "), m.producer());
        assertEquals(List.of("person", "bicycle", "car"), m.names());
        assertEquals("detect", m.metadata().get("task"));
        assertArrayEquals(new long[] {1, 3, 64, 64}, m.inputs().get(0).shape());
        // 4 box coordinates + 3 classes for 8x8 + 4x4 + 2x2 anchor points
        assertEquals("output0", m.outputs().get(0).name());
        assertArrayEquals(new long[] {1, 7, 84}, m.outputs().get(0).shape());
        for (OnnxValue v : m.values().values()) {
            assertFalse(v.upperBound(), v.toString());
            assertTrue(Arrays.stream(v.shape()).allMatch(d -> d >= 0), v.toString());
        }
        // the first convolution (stride 2) and the three heads' inputs
        OnnxNode first = m.nodes().stream().filter(n -> n.op().equals("Conv")).findFirst().orElseThrow();
        assertArrayEquals(new long[] {1, 2, 32, 32}, m.value(first.outputs().get(0)).shape());
        // every Shape node (and what it feeds into a Reshape's target) is a constant after load
        List<OnnxNode> shapes = m.nodes().stream().filter(n -> n.op().equals("Shape")).toList();
        assertTrue(m.foldedNodes().containsAll(shapes));
        for (OnnxNode n : m.nodes()) {
            if (n.op().equals("Reshape")) assertTrue(m.value(n.input(1)).constant() != null, n.name());
        }
    }
}
