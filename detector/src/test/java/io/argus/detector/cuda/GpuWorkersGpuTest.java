package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One CUDA worker per GPU of this host: batches submitted concurrently give what one backend gives (bit for bit on
 * its device; on the others, the same detections within what each device's own cuDNN algorithms move), every GPU
 * runs some, none is taken out.
 */
@Tag("gpu")
class GpuWorkersGpuTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @Test
    void everyGpuGivesTheSameDetections() {
        NetworkSpec spec = NetworkSpec.load(TestFiles.cfg("yolov4-tiny"), 416, 416);
        var weights = TestWeights.random(spec, 13);
        List<BgrImage> images = List.of(BgrImage.read(TestFiles.sample("dog.jpg")),
                BgrImage.read(TestFiles.sample("horses.jpg")));
        TestWeights.calibrate(spec, weights, images, 6);
        Model model = new Model(spec, weights, Model.genericNames(spec.classes()));
        DetectParams params = new DetectParams(0.25f, 0.45f, null);
        CudaOptions options = new CudaOptions(0, MemoryMode.DEVICE, CudaOptions.Fusion.ALL, true, true, 2, null);
        List<List<Detection>> expected;
        try (CudaBackend one = CudaBackend.open(model, 2, options)) {
            expected = one.detect(images, params);
        }
        try (GpuWorkers workers = GpuWorkers.cuda(model, 2, options)) {
            System.out.println("GPU workers: " + workers.size());
            List<CompletableFuture<GpuWorkers.Done>> pending = new ArrayList<>();
            for (int i = 0; i < 4 * workers.size(); i++) pending.add(workers.submit(images, params));
            for (CompletableFuture<GpuWorkers.Done> f : pending) {
                GpuWorkers.Done done = f.join();
                // the same device plans the same algorithms: bit for bit; another device plans its own
                if (done.device() == options.device()) assertEquals(expected, done.detections());
                List<String> off = Compare.disagreements(expected, done.detections(), params.threshold(), params.nms());
                assertTrue(off.isEmpty(), "device " + done.device() + ": " + off);
            }
            int[] batches = workers.completedBatches();
            for (int i = 0; i < batches.length; i++) {
                assertTrue(batches[i] > 0, "device " + workers.devices()[i] + " ran no batch: "
                        + java.util.Arrays.toString(batches));
            }
            assertTrue(workers.removals().isEmpty(), workers.removals().toString());
        }
    }
}
