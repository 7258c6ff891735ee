package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.testing.StandInBackend;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Several GPUs with stand-in backends: where batches go (measured load, pinned pictures), and what happens when a
 * device fails: it is taken out, its batches finish elsewhere, none is lost, it gets nothing more; with none left the
 * error surfaces.
 */
@Budget(seconds = 5)
class GpuWorkersFailoverTest {
    private final Map<Integer, StandInBackend> backends = new ConcurrentHashMap<>();

    /** A batch of {@code n} pictures whose widths start at {@code firstWidth}: each result says whose it is. */
    private static List<BgrImage> batch(int firstWidth, int n) {
        List<BgrImage> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(BgrImage.of(firstWidth + i, 2, new byte[(firstWidth + i) * 2 * 3]));
        return out;
    }

    private static List<List<Detection>> expected(List<BgrImage> pictures) {
        return pictures.stream().map(p -> List.of(StandInBackend.detectionFor(p.width()))).toList();
    }

    private GpuWorkers workers(int[] devices, double msPerImage, int failingDevice, int failFromCall) {
        return new GpuWorkers(devices, d -> {
            StandInBackend b = new StandInBackend(d, 8, msPerImage);
            if (d == failingDevice) b.failingFrom(failFromCall);
            backends.put(d, b);
            return b;
        });
    }

    @Test
    void aFailingGpuIsTakenOutAndItsBatchesFinishOnTheOthers() throws InterruptedException {
        BlockingQueue<GpuWorkers.Removal> heard = new LinkedBlockingQueue<>();
        try (GpuWorkers workers = workers(new int[] {0, 1, 2}, 2, 1, 2).onRemoval(heard::add)) {
            List<List<BgrImage>> batches = new ArrayList<>();
            List<CompletableFuture<GpuWorkers.Done>> pending = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                batches.add(batch(10 + 3 * i, 3));
                pending.add(workers.submit(batches.get(i), DetectParams.DEFAULT));
            }
            for (int i = 0; i < pending.size(); i++) {
                GpuWorkers.Done done = pending.get(i).join();   // none failed, none lost
                assertEquals(expected(batches.get(i)), done.detections(), "batch " + i);
            }
            assertEquals(1, workers.removals().size(), "recorded before any moved batch completes");
            // the listener is told right after the batches moved (they may finish first)
            GpuWorkers.Removal r = heard.poll(10, TimeUnit.SECONDS);
            assertNotNull(r, "the listener heard of the removal");
            assertEquals(1, r.device());
            assertTrue(r.cause().getMessage().contains("illegal memory access"), r.cause().getMessage());
            assertTrue(r.batchesMoved() >= 1, "the failed batch itself moves: " + r);
            assertEquals(0, r.batchesFailed());
            assertEquals(2, r.workersLeft());
            assertEquals(List.of(r), workers.removals());
            assertArrayEquals(new int[] {0, 2}, workers.liveDevices());
            int callsOnFailed = backends.get(1).calls();
            assertEquals(2, callsOnFailed, "device 1 ran one batch, failed on the second and was taken out");

            int[] before = workers.completedBatches();
            for (int i = 0; i < 12; i++) {
                List<BgrImage> b = batch(200 + i, 2);
                GpuWorkers.Done done = workers.submit(b, DetectParams.DEFAULT).join();
                assertEquals(expected(b), done.detections());
                assertTrue(done.device() == 0 || done.device() == 2, "ran on device " + done.device());
            }
            assertEquals(callsOnFailed, backends.get(1).calls(), "the failed device received nothing more");
            assertTrue(heard.isEmpty(), "one removal: " + heard);
            int[] after = workers.completedBatches();
            assertEquals(before[1], after[1]);
            assertEquals(12, after[0] - before[0] + after[2] - before[2]);
        }
    }

    @Test
    void withNoWorkerLeftTheErrorSurfaces() {
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1},
                d -> new StandInBackend(d, 8, 0).failingFrom(1))) {
            CompletionException first = assertThrows(CompletionException.class,
                    () -> workers.submit(batch(10, 2), DetectParams.DEFAULT).join());
            assertTrue(first.getCause().getMessage().startsWith("no GPU worker left: the last was taken out after "
                    + "cudaStreamSynchronize: an illegal memory access"), first.getCause().getMessage());
            assertEquals(2, workers.removals().size());
            assertEquals(0, workers.liveDevices().length);
            CompletionException later = assertThrows(CompletionException.class,
                    () -> workers.submit(batch(20, 1), DetectParams.DEFAULT).join());
            assertTrue(later.getCause().getMessage().startsWith("no GPU worker left"), later.getCause().getMessage());
        }
    }

    @Test
    void aPinnedBatchRunsOnItsDeviceAndCannotMove() {
        try (GpuWorkers workers = workers(new int[] {0, 1}, 0, 1, 3)) {
            for (int i = 0; i < 2; i++) {
                assertEquals(1, workers.submit(batch(10, 1), DetectParams.DEFAULT, 1).join().device());
            }
            CompletionException lost = assertThrows(CompletionException.class,
                    () -> workers.submit(batch(10, 1), DetectParams.DEFAULT, 1).join());
            assertTrue(lost.getCause().getMessage().startsWith("device 1 was taken out after cudaStreamSynchronize"),
                    lost.getCause().getMessage());
            assertEquals(0, workers.removals().get(0).batchesMoved());
            assertEquals(1, workers.removals().get(0).batchesFailed());
            assertEquals(0, workers.submit(batch(10, 1), DetectParams.DEFAULT).join().device());
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                    () -> workers.submit(batch(10, 1), DetectParams.DEFAULT, 5));
            assertEquals("no worker on device 5 (devices [0, 1])", unknown.getMessage());
        }
    }

    @Test
    void anErrorThatIsNotTheDevicesFailsOnlyItsBatch() {
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1}, d -> new StandInBackend(d, 8, 0).rejecting(13))) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> workers.submit(batch(12, 2), DetectParams.DEFAULT).join());
            assertEquals("picture of width 13 refused", e.getCause().getMessage());
            for (int i = 0; i < 4; i++) workers.submit(batch(20, 2), DetectParams.DEFAULT).join();
            assertArrayEquals(new int[] {0, 1}, workers.liveDevices());
            assertTrue(workers.removals().isEmpty());
        }
    }

    @Test
    void batchesGoWhereTheyWillFinishFirst() {
        // device 0 takes 1 ms per image, device 1 takes 25: once both are measured, device 0 should get most batches.
        // The stand-ins sleep, and a loaded machine wakes a sleeper late by a few ms per call (a 4-image batch of 1 ms
        // measured 5.9 ms per image under load 8), so the slow one is slower by far more than that.
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1}, d -> new StandInBackend(d, 8, d == 0 ? 1 : 25))) {
            workers.submit(batch(10, 4), DetectParams.DEFAULT, 0).join();
            workers.submit(batch(10, 4), DetectParams.DEFAULT, 1).join();
            double[] ms = workers.msPerImage();
            assertTrue(ms[1] > 3 * ms[0], "measured ms per image: " + ms[0] + ", " + ms[1]);
            int[] before = workers.completedBatches();
            List<CompletableFuture<GpuWorkers.Done>> pending = new ArrayList<>();
            for (int i = 0; i < 10; i++) pending.add(workers.submit(batch(10, 4), DetectParams.DEFAULT));
            pending.forEach(CompletableFuture::join);
            int[] after = workers.completedBatches();
            int fast = after[0] - before[0];
            int slow = after[1] - before[1];
            assertEquals(10, fast + slow);
            assertTrue(fast >= 6, "device 0 (1 ms/image) ran " + fast + ", device 1 (25 ms/image) " + slow);
        }
    }

    @Test
    void aWorkerMeasuredDuringItsWarmUpIsMeasuredAgain() {
        // device 1's first batch takes 60 ms per image (plans being built), then 2 ms like device 0: on that one
        // measurement alone it would stay idle for good while batches come one at a time
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1},
                d -> new StandInBackend(d, 8, 2).warmingUpAt(d == 1 ? 60 : 2))) {
            workers.submit(batch(10, 2), DetectParams.DEFAULT, 0).join();
            workers.submit(batch(10, 2), DetectParams.DEFAULT, 1).join();
            int[] before = workers.completedBatches();
            for (int i = 0; i < 3 * GpuWorkers.PROBE_AFTER_SKIPS; i++) workers.submit(batch(10, 2), DetectParams.DEFAULT).join();
            int[] after = workers.completedBatches();
            assertTrue(after[1] - before[1] >= 2, "device 1 ran " + (after[1] - before[1]) + " of "
                    + 3 * GpuWorkers.PROBE_AFTER_SKIPS + " batches after its warm-up; ms per image now "
                    + java.util.Arrays.toString(workers.msPerImage()));
        }
    }
}
