package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.gpu.CudaRuntime;
import io.argus.testkit.Budget;
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
@Budget(seconds = 5)
class GpuWorkersGpuTest {
    @BeforeAll
    static void needsGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    @Test
    void everyGpuGivesTheSameDetections() {
        SeveralGpuFixture f = SeveralGpuFixture.load();
        try (GpuWorkers workers = GpuWorkers.cuda(f.model(), 2, f.options())) {
            System.out.println("GPU workers: " + workers.size());
            List<CompletableFuture<GpuWorkers.Done>> pending = new ArrayList<>();
            for (int i = 0; i < 4 * workers.size(); i++) pending.add(workers.submit(f.images(), f.params()));
            for (CompletableFuture<GpuWorkers.Done> batch : pending) {
                GpuWorkers.Done done = batch.join();
                // the same device plans the same algorithms: bit for bit; another device plans its own
                if (done.device() == f.options().device()) assertEquals(f.expected(), done.detections());
                List<String> off = Compare.disagreements(f.expected(), done.detections(), f.params().threshold(),
                        f.params().nms());
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
