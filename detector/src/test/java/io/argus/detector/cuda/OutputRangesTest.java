package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Model;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.Int8Calibration;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The activation ranges an FP8 network scales its convolutions' inputs by (no GPU needed): every layer's largest
 * magnitude over the frames, the same numbers as the CPU's INT8 calibration of the same frames, NaN for [yolo]
 * layers; frames that are not there are named.
 */
@Budget(seconds = 10)
class OutputRangesTest {
    @TempDir
    Path tmp;

    @Test
    void rangesAreTheInt8CalibrationsOfTheSameFrames() throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 128, 128);
        ModelWeights weights = RandomWeights.deep(spec, 3);
        Model model = new Model(spec, weights, Model.genericNames(spec.classes()));
        Path frames = Files.createDirectories(tmp.resolve("frames"));
        for (String name : List.of("dog.jpg", "horses.jpg")) Files.copy(ProjectFiles.sample(name), frames.resolve(name));
        float[] ranges = CudaBackend.outputRanges(model, frames);
        Int8Calibration int8 = Int8Calibration.measure(model, List.of(BgrImage.read(frames.resolve("dog.jpg")),
                BgrImage.read(frames.resolve("horses.jpg"))), CpuOptions.DEFAULTS);
        assertEquals(spec.layers().size(), ranges.length);
        for (LayerSpec l : spec.layers()) {
            if (l instanceof YoloSpec) {
                assertTrue(Float.isNaN(ranges[l.index()]), "layer " + l.index() + " ([yolo]) has no feature map");
            } else {
                assertEquals(int8.absMax(l.index()), ranges[l.index()], "layer " + l.index());
                assertTrue(ranges[l.index()] > 0, "layer " + l.index() + " range " + ranges[l.index()]);
            }
        }
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> CudaBackend.outputRanges(model, tmp.resolve("nowhere")));
        assertTrue(missing.getMessage().contains("nowhere"), missing.getMessage());
    }
}
