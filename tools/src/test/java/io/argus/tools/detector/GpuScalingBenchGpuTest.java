package io.argus.tools.detector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.testing.ProjectFiles;
import io.argus.detector.testing.RandomWeights;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.testkit.Budget;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The scaling benchmark on this host's GPUs, briefly (batch 8, half a second per count): every GPU of every count
 * finishes whole batches and no GPU is taken out. The figures are printed, not judged: the acceptance run is
 * {@code argus bench --backend cuda --gpus ... --batch 64} (docs/cuda.md).
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuScalingBenchGpuTest {
    @Test
    void everyGpuOfEveryCountFinishesBatches() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        Model model = new Model(spec, RandomWeights.of(spec, 1), Model.genericNames(spec.classes()));
        BgrImage frame = BgrImage.read(ProjectFiles.sampleImages().get(0));
        CudaOptions options = CudaOptions.defaults().withMemory(MemoryMode.DEVICE).withAutotune(1);
        int devices = CudaRuntime.deviceCount();
        int[] counts = GpuScalingBench.counts(devices > 1 ? new int[] {devices} : new int[] {1}, devices);
        List<GpuScalingBench.Measurement> ms = new GpuScalingBench(0.5, 1, 2, System.out).run("yolov4-tiny", counts, 8,
                n -> GpuWorkers.cuda(model, 8, options, java.util.stream.IntStream.range(0, n).toArray()), frame,
                new DetectParams(0.99f, 0.45f, null));
        assertEquals(counts.length, ms.size());
        for (GpuScalingBench.Measurement m : ms) {
            for (long images : m.imagesPerGpu()) {
                assertTrue(images > 0 && images % 8 == 0, m.gpus() + " GPUs: " + Arrays.toString(m.imagesPerGpu()));
            }
        }
    }
}
