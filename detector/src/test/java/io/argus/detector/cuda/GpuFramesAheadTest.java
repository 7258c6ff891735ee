package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.testing.ProjectFiles;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Frames staged ahead ({@link FrameInput#prestage}): a call told the next call's pictures copies and uploads them
 * while it computes; the next call then reads them from the second frame area. Its network input must be exactly what
 * the same pictures give without staging ahead, across several calls (the two areas swap each time), when the next
 * call brings other pictures than announced (staged ahead in vain), and in both memory modes.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuFramesAheadTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @ParameterizedTest
    @EnumSource(value = MemoryMode.class, names = {"DEVICE", "UNIFIED"})
    void aheadTheNetworkReadsWhatItReadsWithout(MemoryMode memory) throws Exception {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        Model model = new Model(spec, WeightsInit.darknet(spec, 1), Model.genericNames(spec.classes()));
        List<BgrImage> all = ProjectFiles.samples("dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg");
        // batches of different pictures and sizes: [dog, eagle], [giraffe, horses, person], [person, dog], [eagle]
        List<List<BgrImage>> batches = List.of(all.subList(0, 2), all.subList(2, 5), List.of(all.get(4), all.get(0)),
                List.of(all.get(1)));
        CudaOptions options = new CudaOptions(0, memory, CudaOptions.Fusion.ALL, true, true, 1, null);
        DetectParams few = new DetectParams(0.999f, 0.45f, null);
        List<float[][]> expected = new ArrayList<>();
        try (CudaBackend plain = CudaBackend.open(model, 3, options)) {
            for (List<BgrImage> b : batches) {
                plain.detect(b, few);
                expected.add(inputs(plain, b.size()));
            }
        }
        try (CudaBackend ahead = CudaBackend.open(model, 3, options)) {
            for (int k = 0; k < batches.size(); k++) {
                List<BgrImage> next = k + 1 < batches.size() ? batches.get(k + 1) : null;
                ahead.detect(batches.get(k), few, next);
                float[][] got = inputs(ahead, batches.get(k).size());
                for (int i = 0; i < got.length; i++) {
                    assertArrayEquals(expected.get(k)[i], got[i], memory + ": batch " + k + " image " + i);
                }
            }
            // announced [dog, eagle], then called with [giraffe]: the frames staged ahead are not read
            ahead.detect(batches.get(3), few, batches.get(0));
            ahead.detect(List.of(all.get(2)), few, null);
            float[] giraffe = inputs(ahead, 1)[0];
            assertArrayEquals(expected.get(1)[0], giraffe, memory + ": other pictures than announced");
            assertFalse(Arrays.equals(expected.get(0)[0], giraffe), "the comparison can fail");
        }
    }

    private static float[][] inputs(CudaBackend gpu, int n) {
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) out[i] = gpu.network().inputImage(i);
        return out;
    }
}
