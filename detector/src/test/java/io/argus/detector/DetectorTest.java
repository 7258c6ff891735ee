package io.argus.detector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.backends.Detector;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public door: batching, strided and direct frames, and bad input with clear messages. */
@Budget(seconds = 20)
class DetectorTest {
    @TempDir
    Path tmp;

    private Model smallModel() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 160, 128);
        BgrImage sample = BgrImage.read(ProjectFiles.sampleImages().get(0));
        ModelWeights w = RandomWeights.calibrated(spec, 3, sample, 6);
        return new Model(spec, w, Model.readNames(ProjectFiles.cocoNames()));
    }

    @Test
    void batchResultsEqualSingleImageResults() {
        Model m = smallModel();
        List<BgrImage> images = new ArrayList<>();
        for (Path p : ProjectFiles.sampleImages()) images.add(BgrImage.read(p));
        try (Detector one = Detector.open(m, Detector.Options.cpu(1));
             Detector three = Detector.open(m, Detector.Options.cpu(3))) {
            List<List<Detection>> batched = three.detect(images);   // 5 images in chunks of 3 + 2
            assertEquals(images.size(), batched.size());
            int total = 0;
            for (int i = 0; i < images.size(); i++) {
                List<Detection> single = one.detect(images.get(i));
                total += single.size();
                assertEquals(single.size(), batched.get(i).size(), "image " + i);
                for (int k = 0; k < single.size(); k++) {
                    assertEquals(single.get(k).classId(), batched.get(i).get(k).classId());
                    assertEquals(single.get(k).confidence(), batched.get(i).get(k).confidence(), 1e-5);
                    assertTrue(single.get(k).box().iou(batched.get(i).get(k).box()) > 0.999);
                }
            }
            assertTrue(total > 0);
        }
    }

    @Test
    void stridedDirectFrameGivesTheSameAsAPackedOne() {
        Model m = smallModel();
        BgrImage packed = BgrImage.read(ProjectFiles.sampleImages().get(1));
        int stride = packed.width() * 3 + 64;     // FFmpeg pads rows
        ByteBuffer direct = ByteBuffer.allocateDirect(stride * packed.height());
        for (int y = 0; y < packed.height(); y++) {
            for (int x = 0; x < packed.width() * 3; x++) direct.put(y * stride + x, packed.pixels().get(y * packed.width() * 3 + x));
        }
        BgrImage strided = new BgrImage(packed.width(), packed.height(), stride, direct);
        try (Detector d = Detector.open(m, Detector.Options.cpu(1))) {
            assertEquals(d.detect(packed), d.detect(strided));
        }
    }

    @Test
    void wrongNamesCount() throws IOException {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"));
        Path w = tmp.resolve("w.weights");
        WeightsFile.write(w, spec, io.argus.detector.darknet.WeightsInit.darknet(spec, 1));
        Path names = tmp.resolve("few.names");
        Files.writeString(names, "cat\ndog\n\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Model.load(ProjectFiles.cfg("yolov3-tiny"), w, names, 0, 0));
        assertEquals(names + ": 2 class names, expected 80 (classes= of the [yolo] layers in "
                + ProjectFiles.cfg("yolov3-tiny") + ")", e.getMessage());
    }

    @Test
    void unreadableImage() throws IOException {
        Path notAnImage = tmp.resolve("notes.jpg");
        Files.writeString(notAnImage, "hello");
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> BgrImage.read(notAnImage));
        assertEquals(notAnImage + ": not a readable image (expected JPEG, PNG or BMP)", e.getCause().getMessage());
        Path missing = tmp.resolve("missing.jpg");
        e = assertThrows(UncheckedIOException.class, () -> BgrImage.read(missing));
        assertEquals(missing + ": no such image file", e.getCause().getMessage());
    }

    @Test
    void tooSmallPixelBuffer() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BgrImage(10, 10, 30, ByteBuffer.allocate(100)));
        assertEquals("pixel buffer holds 100 bytes, a 10x10 BGR image with stride 30 needs 300", e.getMessage());
    }
}
