package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.detector.BgrImage;
import io.argus.pipeline.testing.ArgusRun;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `argus detect` and `argus weights init` end to end, in process: JSON lines out, clear errors for bad input. */
@Budget(seconds = 15)
class DetectCommandTest {
    @TempDir
    Path tmp;

    record Result(int code, String out, String err) {}

    static Result argus(String... args) {
        ArgusRun.Result r = ArgusRun.argus(args);
        return new Result(r.code(), r.out(), r.err());
    }

    @Test
    void detectPrintsOneJsonLinePerImageAndDrawsBoxes() throws Exception {
        Path cfg = ProjectFiles.cfg("yolov4-tiny");
        NetworkSpec spec = NetworkSpec.load(cfg, 256, 256);
        Path dog = ProjectFiles.sampleImages().get(0);
        Path weights = tmp.resolve("w.weights");
        WeightsFile.write(weights, spec, RandomWeights.calibrated(spec, 11, BgrImage.read(dog), 4));
        Path annotated = tmp.resolve("out");
        List<Path> images = ProjectFiles.sampleImages().subList(0, 2);
        Result r = argus("detect", "--cfg", cfg.toString(), "--weights", weights.toString(), "--names",
                ProjectFiles.cocoNames().toString(), "--width", "256", "--height", "256", "--batch", "2",
                "--out", annotated.toString(), images.get(0).toString(), images.get(1).toString());
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length, r.out());
        JsonObject first = new JsonObject(lines[0]);
        assertEquals(images.get(0).toString(), first.getString("image"));
        assertEquals(768, first.getInteger("width"));
        assertEquals(576, first.getInteger("height"));
        JsonArray dets = first.getJsonArray("detections");
        assertFalse(dets.isEmpty());
        JsonObject d = dets.getJsonObject(0);
        assertTrue(d.getInteger("classId") >= 0 && d.getInteger("classId") < 80);
        assertEquals(Files.readAllLines(ProjectFiles.cocoNames()).get(d.getInteger("classId")), d.getString("className"));
        assertTrue(d.getDouble("confidence") > 0.25);
        JsonObject box = d.getJsonObject("box");
        assertTrue(box.getDouble("x") >= 0 && box.getDouble("x") + box.getDouble("w") <= 768.01);
        assertTrue(Files.size(annotated.resolve("dog_argus.jpg")) > 10_000);
    }

    @Test
    void anOnnxModelDetectsWithItsMetadatasNamesAndRefusesDarknetOptions() throws Exception {
        Path onnx = ProjectFiles.root().resolve("detector/src/test/resources/onnx/tiny-yolov5.onnx");
        Path dog = ProjectFiles.sampleImages().get(0);
        Result r = argus("detect", "--cfg", onnx.toString(), "--backend", "cpu", "--thresh", "0.3", dog.toString());
        assertEquals(0, r.code(), r.err());
        JsonObject first = new JsonObject(r.out().strip());
        assertFalse(first.getJsonArray("detections").isEmpty(), r.out());
        for (Object o : first.getJsonArray("detections")) {
            assertTrue(List.of("person", "bicycle", "car").contains(((JsonObject) o).getString("className")), r.out());
        }
        Result width = argus("detect", "--cfg", onnx.toString(), "--width", "320", dog.toString());
        assertEquals(2, width.code());
        assertEquals("argus detect: --width/--height: an ONNX model's input size is fixed in its graph (" + onnx + ")",
                width.err().strip());
        Result head = argus("detect", "--cfg", onnx.toString(), "--head", "yolox", dog.toString());
        assertEquals(2, head.code());
        assertTrue(head.err().strip().startsWith("argus detect: " + onnx + ": head yolox does not fit output [1, 252, 8]"),
                head.err());
    }

    @Test
    void brokenCfgIsOneClearLine() throws Exception {
        Path cfg = tmp.resolve("broken.cfg");
        Files.writeString(cfg, "[net]\nwidth=64\nheight=64\nchannels=3\n[convolutional]\nfilters=x\n");
        Result r = argus("detect", "--cfg", cfg.toString(), "--weights", tmp.resolve("none").toString(),
                ProjectFiles.sampleImages().get(0).toString());
        assertEquals(2, r.code());
        assertEquals("argus detect: " + cfg + ":6: [convolutional] filters: expected an integer, found 'x'",
                r.err().strip());
    }

    @Test
    void truncatedWeightsAndUnreadableImage() throws Exception {
        Path cfg = ProjectFiles.cfg("yolov3-tiny");
        Path weights = tmp.resolve("short.weights");
        byte[] header = new byte[20 + 400];
        header[4] = 2;   // version 0.2: 64-bit 'seen', 20-byte header, then 100 floats
        Files.write(weights, header);
        Result r = argus("detect", "--cfg", cfg.toString(), "--weights", weights.toString(),
                ProjectFiles.sampleImages().get(0).toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("argus detect: " + weights + ": truncated at layer 0 ([convolutional] at "
                + "yolov3-tiny.cfg line 25): this layer needs 496 floats, 100 left"), r.err());

        Path init = tmp.resolve("init.weights");
        Result w = argus("weights", "init", "--cfg", cfg.toString(), "--seed", "3", "--out", init.toString());
        assertEquals(0, w.code(), w.err());
        assertTrue(w.out().startsWith("wrote " + init + ": 8858734 floats for 13 convolutional layers of yolov3-tiny"));
        Path bogus = tmp.resolve("bogus.jpg");
        Files.writeString(bogus, "not a jpeg");
        Path dog = ProjectFiles.sampleImages().get(0);
        // every image is checked before the network is built: a bad one anywhere in the list fails at once, and
        // nothing is printed
        r = argus("detect", "--cfg", cfg.toString(), "--weights", init.toString(), dog.toString(), bogus.toString());
        assertEquals(2, r.code());
        assertEquals("argus detect: " + bogus + ": not a readable image (expected JPEG, PNG or BMP)", r.err().strip());
        assertEquals("", r.out());
        Path missing = tmp.resolve("missing.jpg");
        r = argus("detect", "--cfg", cfg.toString(), "--weights", init.toString(), missing.toString());
        assertEquals(2, r.code());
        assertEquals("argus detect: " + missing + ": no such image file", r.err().strip());
    }
}
