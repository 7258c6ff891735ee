package io.argus.detector.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The importer reads what {@code argus export onnx} writes ({@link OnnxExport}): the demo model with its trained
 * weights and yolov4-tiny, and every shape it infers equals the Darknet network's: each convolution's output and
 * each head, for the batch the model is read for (the export's batch dimension is symbolic).
 */
@Budget(seconds = 30)
class OnnxImportOfExportTest {
    @TempDir
    Path tmp;

    private static long[] nchw(int batch, Shape s) {
        return new long[] {batch, s.channels(), s.height(), s.width()};
    }

    private void checkShapes(NetworkSpec spec, ModelWeights weights, OnnxExport.Decode decode, int batch) throws IOException {
        Path file = tmp.resolve(spec.name() + ".onnx");
        Files.write(file, OnnxExport.export(spec, weights, "test", decode));
        OnnxModel m = OnnxModel.read(file, batch);

        assertEquals(OnnxGraph.OPSET, m.opset());
        assertEquals("argus test", m.producer());
        assertArrayEquals(nchw(batch, spec.inputShape()), m.inputs().get(0).shape());
        // one Conv node per [convolutional], in cfg order
        List<OnnxNode> convs = m.nodes().stream().filter(n -> n.op().equals("Conv")).toList();
        List<ConvolutionalSpec> layers = spec.convolutionalLayers();
        assertEquals(layers.size(), convs.size());
        for (int k = 0; k < convs.size(); k++) {
            assertArrayEquals(nchw(batch, layers.get(k).output()), m.value(convs.get(k).outputs().get(0)).shape(),
                    "layer " + layers.get(k).index() + " (line " + layers.get(k).line() + ")");
        }
        List<YoloSpec> yolos = spec.yoloLayers();
        for (int h = 0; h < yolos.size(); h++) {
            OnnxValue head = m.outputs().get(h);
            assertEquals("head" + h, head.name());
            assertArrayEquals(nchw(batch, yolos.get(h).output()), head.shape());
        }
        assertEquals(String.valueOf(yolos.size()), m.metadata().get("heads"));
        assertEquals(layers.size(), m.initializers().stream().filter(t -> t.shape().length == 4).count(),
                "a weight tensor per convolution");
    }

    @Test
    void theDemoModelsExportReadsWithTheNetworksShapes() throws IOException {
        Path cfg = ProjectFiles.root().resolve("config/models/demo.cfg");
        NetworkSpec spec = NetworkSpec.load(cfg);
        ModelWeights weights = WeightsFile.read(ProjectFiles.root().resolve("config/models/demo.weights"), spec);
        checkShapes(spec, weights, null, 1);
        checkShapes(spec, weights, null, 3);
    }

    @Test
    void yolov4TinysExportReadsWithTheNetworksShapes() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"));
        checkShapes(spec, ModelWeights.zeros(spec), null, 1);
    }

    @Test
    void anExportWithNmsReadsWithBoundedSelections() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 128, 128);
        ModelWeights weights = ModelWeights.zeros(spec);
        Path file = tmp.resolve("nms.onnx");
        Files.write(file, OnnxExport.export(spec, weights, "test", new OnnxExport.Decode(0.25f, 0.45f, 100)));
        OnnxModel m = OnnxModel.read(file, 2);
        long boxes = 0;
        for (YoloSpec y : spec.yoloLayers()) boxes += (long) y.mask().length * y.output().height() * y.output().width();
        assertArrayEquals(new long[] {2, boxes, 4}, m.value("boxes").shape());
        assertArrayEquals(new long[] {2, boxes, spec.classes()}, m.value("scores").shape());
        OnnxValue selected = m.value("selected");
        assertTrue(selected.upperBound());
        assertArrayEquals(new long[] {2L * spec.classes() * 100, 3}, selected.shape());
    }
}
