package io.argus.detector.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.detector.nn.InferenceBackend;
import io.argus.detector.testing.RandomWeights;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The several-GPU dispatcher with CPU backends standing in for devices: every batch comes back with the same
 * detections a single backend gives, in order, and the load spreads over all workers. The backends use oneDNN's
 * first implementation of each convolution (no timing, no Winograd of ours), so that every one computes the same
 * bits: which implementation a timing picks may differ between backends tuned at once, and that is not what this
 * tests (it failed so in a fresh root, ~1e-6 apart).
 */
@Budget(seconds = 5)
class GpuWorkersTest {
    @Test
    void spreadsBatchesOverWorkersWithTheSameResults() {
        Model model = RandomWeights.calibratedTiny(96, 3, 4, "dog.jpg", "person.jpg");
        List<BgrImage> images = RandomWeights.pictures("dog.jpg", "person.jpg");
        DetectParams params = new DetectParams(0.25f, 0.45f, null);
        List<List<Detection>> expected;
        CpuOptions same = new CpuOptions(CpuPrecision.FP32, false, null, null, WinogradPolicy.OFF);
        try (CpuBackend single = new CpuBackend(model, 2, same)) {
            expected = single.detect(images, params);
        }
        assertTrue(expected.get(0).size() + expected.get(1).size() > 0, "the calibrated weights detect something");
        try (GpuWorkers workers = new GpuWorkers(2, i -> new CpuBackend(model, 2, same))) {
            List<CompletableFuture<GpuWorkers.Done>> pending = new ArrayList<>();
            for (int i = 0; i < 6; i++) pending.add(workers.submit(images, params));
            for (CompletableFuture<GpuWorkers.Done> f : pending) assertEquals(expected, f.join().detections());
            // a batch larger than a backend's max batch is split and reassembled in order
            List<BgrImage> four = List.of(images.get(0), images.get(1), images.get(0), images.get(1));
            List<List<Detection>> got = workers.submit(four, params).join().detections();
            assertEquals(List.of(expected.get(0), expected.get(1), expected.get(0), expected.get(1)), got);
            int[] done = workers.completedBatches();
            assertEquals(7, done[0] + done[1]);
            assertTrue(done[0] > 0 && done[1] > 0, "both workers got batches: " + done[0] + ", " + done[1]);
        }
    }

    /**
     * A worker tells its backend the batch queued behind the one it runs (so a GPU backend can move its frames while
     * it computes), and nothing when none is queued.
     */
    @Test
    void tellsTheBackendTheBatchQueuedBehind() throws Exception {
        List<BgrImage> gate = List.of(picture()), a = List.of(picture(), picture()), b = List.of(picture());
        CountDownLatch open = new CountDownLatch(1);
        List<List<? extends Picture>[]> calls = java.util.Collections.synchronizedList(new ArrayList<>());
        InferenceBackend recording = new InferenceBackend() {
            @Override public String name() { return "recording"; }
            @Override public int maxBatch() { return 4; }
            @Override public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params) {
                return detect(pictures, params, null);
            }
            @Override
            @SuppressWarnings("unchecked")
            public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params,
                                                List<? extends Picture> next) {
                calls.add(new List[] {pictures, next});
                if (pictures.equals(gate)) {
                    try {
                        assertTrue(open.await(10, TimeUnit.SECONDS), "the gate opens");
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                List<List<Detection>> none = new ArrayList<>();
                for (int i = 0; i < pictures.size(); i++) none.add(List.of());
                return none;
            }
            @Override public float[] headOutput(int head, int image) { throw new UnsupportedOperationException(); }
            @Override public void close() { }
        };
        DetectParams params = new DetectParams(0.25f, 0.45f, null);
        try (GpuWorkers workers = new GpuWorkers(1, i -> recording)) {
            CompletableFuture<GpuWorkers.Done> first = workers.submit(gate, params);
            CompletableFuture<GpuWorkers.Done> second = workers.submit(a, params);
            CompletableFuture<GpuWorkers.Done> third = workers.submit(b, params);
            open.countDown();
            first.join();
            second.join();
            third.join();
        }
        assertEquals(3, calls.size());
        assertEquals(a, calls.get(1)[0]);
        assertEquals(b, calls.get(1)[1], "the batch behind a is b");
        assertEquals(b, calls.get(2)[0]);
        assertEquals(null, calls.get(2)[1], "nothing behind b");
    }

    private static BgrImage picture() {
        return new BgrImage(4, 2, 12, ByteBuffer.allocate(24));
    }
}
