package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.onnx.OnnxExport;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code argus export onnx} from the command line: the file written is the exporter's bytes (OnnxExportTest checks
 * those against ONNX Runtime), with --nms the decoding graph with the thresholds given, a bad cfg is named with its
 * line, and a bad threshold is refused before anything is written.
 */
@Budget(seconds = 5)
class ExportCommandTest {
    @TempDir
    Path tmp;

    @Test
    void writesTheDemoModel() throws Exception {
        Path out = tmp.resolve("models/demo.onnx");
        Path home = ProjectPaths.home();
        DetectCommandTest.Result r = DetectCommandTest.argus("export", "onnx", "--cfg",
                home.resolve("config/models/demo.cfg").toString(), "--weights",
                home.resolve("config/models/demo.weights").toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("wrote " + out + " ("), r.out());
        assertTrue(r.out().contains("demo, input 3x128x128, 2 heads"), r.out());
        var model = io.argus.detector.Model.load(home.resolve("config/models/demo.cfg"),
                home.resolve("config/models/demo.weights"), home.resolve("config/models/demo.names"), 0, 0);
        assertArrayEquals(OnnxExport.export(model.spec(), model.weights(), "0.1.0"), Files.readAllBytes(out));
        assertFalse(Files.exists(tmp.resolve("models/demo.onnx.partial")));
    }

    @Test
    void aBadCfgIsNamedWithItsLine() throws Exception {
        Path cfg = tmp.resolve("bad.cfg");
        Files.writeString(cfg, "[net]\nwidth=64\nheight=64\nchannels=3\n\n[dropout]\nprobability=.5\n");
        DetectCommandTest.Result r = DetectCommandTest.argus("export", "onnx", "--cfg", cfg.toString(), "--out",
                tmp.resolve("x.onnx").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(cfg + ":6") && r.err().contains("[dropout]"), r.err());
        assertFalse(Files.exists(tmp.resolve("x.onnx")));
    }

    @Test
    void nmsAddsDecodingWithTheThresholdsGiven() throws Exception {
        Path out = tmp.resolve("demo-nms.onnx");
        Path home = ProjectPaths.home();
        DetectCommandTest.Result r = DetectCommandTest.argus("export", "onnx", "--cfg",
                home.resolve("config/models/demo.cfg").toString(), "--weights",
                home.resolve("config/models/demo.weights").toString(), "--out", out.toString(), "--nms",
                "--threshold", "0.3", "--nms-iou", "0.5");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("with decoding and NMS: score > 0.3, IoU 0.5, at most 100 per class"), r.out());
        var model = io.argus.detector.Model.load(home.resolve("config/models/demo.cfg"),
                home.resolve("config/models/demo.weights"), home.resolve("config/models/demo.names"), 0, 0);
        assertArrayEquals(OnnxExport.export(model.spec(), model.weights(), "0.1.0", new OnnxExport.Decode(0.3f, 0.5f, 100)),
                Files.readAllBytes(out));
    }

    @Test
    void aBadNmsSettingIsRefusedBeforeWriting() {
        DetectCommandTest.Result r = DetectCommandTest.argus("export", "onnx", "--cfg", "any.cfg", "--out",
                tmp.resolve("x.onnx").toString(), "--nms", "--nms-iou", "0");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--nms: NMS IoU must be in (0, 1], got 0.0"), r.err());
        assertFalse(Files.exists(tmp.resolve("x.onnx")));
    }
}
