package io.argus.pipeline.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.backends.Detector;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.nn.InferenceBackend;
import io.argus.gpu.CudaException;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.config.ArgusConfig.SnapshotSettings;
import io.argus.pipeline.config.CudaDevices;
import io.argus.pipeline.config.ModelConfig;
import io.argus.pipeline.frames.FrameCodec;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.trainer.data.SyntheticScenes;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A model on two GPUs in the live pipeline, CPU backends standing in for the GPUs (the demo model, frames over the
 * local event bus, four cameras): batches run on both, every frame comes out once with the detections one detector
 * gives it, each camera's in order; when GPU 1's detect throws a CUDA error it is taken out, its batches finish on GPU
 * 0, nothing is lost, and the model's status names the device and the error.
 */
@Budget(seconds = 10)
class SeveralGpusInferenceTest {
    static final String MODEL = "demo";
    static final List<String> CAMERAS = List.of("a", "b", "c", "d");
    static final int FAILS_AT_CALL = 6;

    Vertx vertx;
    InferenceVerticle verticle;
    ModelConfig config;
    final Map<String, LinkedBlockingQueue<JsonObject>> messages = new ConcurrentHashMap<>();
    final AtomicInteger superseded = new AtomicInteger();
    final AtomicInteger callsOnGpu1 = new AtomicInteger();

    /**
     * A CPU backend as a GPU that takes at least 20 ms a batch (so a second batch comes while the first runs, as on a
     * loaded GPU); GPU 1's stream breaks at call {@code FAILS_AT_CALL}.
     */
    final class StandInGpu implements InferenceBackend {
        final CpuBackend cpu;
        final int device;

        StandInGpu(CpuBackend cpu, int device) {
            this.cpu = cpu;
            this.device = device;
        }

        @Override public String name() { return "stand-in gpu " + device; }

        @Override public int maxBatch() { return cpu.maxBatch(); }

        @Override
        public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params) {
            if (device == 1 && callsOnGpu1.incrementAndGet() >= FAILS_AT_CALL) {
                throw new CudaException("cudaGraphLaunch: unspecified launch failure (stand-in device 1)");
            }
            long until = System.nanoTime() + 20_000_000L;
            List<List<Detection>> found = cpu.detect(pictures, params);
            java.util.concurrent.locks.LockSupport.parkNanos(Math.max(0, until - System.nanoTime()));
            return found;
        }

        @Override public float[] headOutput(int head, int image) { return cpu.headOutput(head, image); }

        @Override public void close() { cpu.close(); }
    }

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        FrameCodec.register(vertx.eventBus());
        Path models = TestMedia.home().resolve("config/models");
        config = new ModelConfig(MODEL, models.resolve("demo.cfg"), models.resolve("demo.weights"),
                models.resolve("demo.names"), 0, 0, 1, null, Detector.Backend.CUDA, 2, 50, 0.25f, 0.45f, 100,
                CudaOptions.defaults(), CpuOptions.DEFAULTS, CudaDevices.of(0, 1));
        Snapshots snapshots = new Snapshots(new SnapshotSettings(0, 0, 75), vertx.eventBus());
        verticle = new InferenceVerticle(config, snapshots, new ArgusMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)))
                .withEngines((model, c) -> new ModelEngine.SeveralGpus(new GpuWorkers(new int[] {0, 1}, d -> {
                    return new StandInGpu(new CpuBackend(model, c.maxBatch()), d);
                }), model, c.detectorOptions().params()));
        vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        for (String camera : CAMERAS) {
            messages.put(camera, new LinkedBlockingQueue<>());
            vertx.eventBus().<JsonObject>consumer(Addresses.detections(camera), m -> messages.get(camera).add(m.body()))
                    .completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    static BgrImage scene(String camera, long n) {
        return BgrImage.fromBufferedImage(SyntheticScenes.render(128, 128, 5, (int) (31 * n + camera.charAt(0))).image());
    }

    @Test
    void batchesRunOnBothGpusAndAFailedGpusBatchesFinishOnTheOther() throws Exception {
        // at least 12 rounds, and on until GPU 1 has failed: which worker takes a batch depends on which is free when
        // it comes, so on a loaded machine GPU 0 may take most of them (GPU 1 ran only 3 calls in 12 rounds once)
        int rounds = 0;
        Model model = verticle.serving().model();
        try (Detector reference = Detector.open(model, new Detector.Options(Detector.Backend.CPU, 1,
                config.detectorOptions().params()))) {
            for (long n = 0; n < 200 && (n < 12 || callsOnGpu1.get() < FAILS_AT_CALL); n++, rounds++) {
                // one frame per camera (two batches of two: one per GPU), then all four messages: no frame waits
                // long enough to be superseded
                for (String camera : CAMERAS) {
                    vertx.eventBus().send(Addresses.frames(MODEL), new VideoFrame(camera, n, n * 40.0,
                            System.currentTimeMillis(), System.nanoTime(), 0, scene(camera, n), null, null,
                            superseded::incrementAndGet), FrameCodec.LOCAL);
                }
                for (String camera : CAMERAS) {
                    JsonObject m = messages.get(camera).poll(30, TimeUnit.SECONDS);
                    assertNotNull(m, "no message for frame " + n + " of camera " + camera);
                    assertEquals(n, m.getLong("frame"), camera + ": frames in order, none missing");
                    List<Integer> classes = reference.detect(scene(camera, n)).stream().map(Detection::classId)
                            .sorted().toList();
                    List<Integer> got = m.getJsonArray("detections").stream()
                            .map(d -> ((JsonObject) d).getInteger("classId")).sorted().toList();
                    assertEquals(classes, got, camera + " frame " + n + ": what one detector finds");
                }
            }
        }
        assertEquals(0, superseded.get());
        for (String camera : CAMERAS) assertTrue(messages.get(camera).isEmpty(), camera + ": no frame twice");
        assertTrue(callsOnGpu1.get() >= FAILS_AT_CALL, "GPU 1 ran batches until it failed: " + callsOnGpu1.get());

        JsonArray gpus = verticle.statusNow().getJsonObject("stats").getJsonArray("gpus");
        assertEquals(2, gpus.size(), gpus.encode());
        JsonObject gpu0 = gpus.getJsonObject(0), gpu1 = gpus.getJsonObject(1);
        assertEquals(0, gpu0.getInteger("device"));
        assertTrue(gpu0.getBoolean("live"));
        assertEquals(1, gpu1.getInteger("device"));
        assertEquals(false, gpu1.getBoolean("live"));
        assertEquals(FAILS_AT_CALL - 1, gpu1.getInteger("batches"), "GPU 1 finished its batches before the failure");
        assertTrue(gpu1.getString("removed").contains("unspecified launch failure"), gpu1.encode());
        assertEquals(1, verticle.stats().liveGpus());
        assertEquals(1, verticle.stats().removedGpus());
        assertEquals(0, verticle.stats().toJson().getLong("failures"), "no batch failed: they moved");
        assertEquals(rounds * CAMERAS.size(), verticle.stats().frames());
        assertTrue(verticle.stats().backend().startsWith("cuda x 2 GPUs"), verticle.stats().backend());
    }
}
