package io.argus.pipeline.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.backends.Detector;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.config.ArgusConfig.SnapshotSettings;
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
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hot swap on a real inference verticle (the demo model on the CPU, frames over the local event bus): while
 * frames flow, new weights are loaded beside the serving ones and switched in between two batches. Every frame comes
 * out exactly once, the versions on the messages change once and for good, and a swap while no frame flows still
 * completes. Frames are sent one at a time (the next when the previous one's message is out), so a frame could only
 * go missing through the swap itself, never because a slow batch let a newer frame supersede it.
 */
@Budget(seconds = 10)
class HotSwapTest {
    static final String MODEL = "demo";
    static final String CAMERA = "cam";

    @TempDir
    Path tmp;
    Vertx vertx;
    InferenceVerticle verticle;
    final LinkedBlockingQueue<JsonObject> messages = new LinkedBlockingQueue<>();
    final AtomicInteger superseded = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        FrameCodec.register(vertx.eventBus());
        Path models = TestMedia.home().resolve("config/models");
        ModelConfig config = new ModelConfig(MODEL, models.resolve("demo.cfg"), models.resolve("demo.weights"),
                models.resolve("demo.names"), 0, 0, 1, null, Detector.Backend.CPU, 2, 0, 0.25f, 0.45f, 100,
                io.argus.detector.cuda.CudaOptions.defaults(), io.argus.detector.cpu.CpuOptions.DEFAULTS);
        Snapshots snapshots = new Snapshots(new SnapshotSettings(0, 0, 75), vertx.eventBus());
        verticle = new InferenceVerticle(config, snapshots, new ArgusMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)));
        vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        vertx.eventBus().<JsonObject>consumer(Addresses.detections(CAMERA), m -> messages.add(m.body()))
                .completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** The demo weights written again with another {@code seen}: a different file (and hash), the same network. */
    Path otherWeights(String name, long seen) {
        Path models = TestMedia.home().resolve("config/models");
        NetworkSpec spec = NetworkSpec.load(models.resolve("demo.cfg"));
        ModelWeights w = WeightsFile.read(models.resolve("demo.weights"), spec);
        w.setSeen(seen);
        Path out = tmp.resolve(name);
        WeightsFile.write(out, spec, w);
        return out;
    }

    VideoFrame frame(long n) {
        var scene = SyntheticScenes.render(128, 128, 5, (int) n).image();
        return new VideoFrame(CAMERA, n, n * 40.0, System.currentTimeMillis(), System.nanoTime(), 0,
                BgrImage.fromBufferedImage(scene), null, null, superseded::incrementAndGet);
    }

    CompletableFuture<JsonObject> swap(Path weights, String version) {
        return verticle.swap(weights, version)
                .map(s -> new JsonObject().put("id", s.model()).put("version", s.version()).put("replaced", s.replaced()))
                .toCompletionStage().toCompletableFuture();
    }

    @Test
    void framesFlowingThroughASwapComeOutOnceEachAndTheVersionChangesOnce() throws Exception {
        String before = verticle.serving().version();
        Path v2 = otherWeights("v2.weights", 12345);
        int total = 120;
        CompletableFuture<JsonObject> swapped = null;
        List<JsonObject> out = new ArrayList<>();
        for (long n = 0; n < total; n++) {
            if (n == 10) swapped = swap(v2, "v2"); // loads on a worker thread while frames keep flowing
            vertx.eventBus().send(Addresses.frames(MODEL), frame(n), FrameCodec.LOCAL);
            JsonObject m = messages.poll(30, TimeUnit.SECONDS);
            assertTrue(m != null, "no detection message for frame " + n);
            out.add(m);
        }
        JsonObject reply = swapped.get(30, TimeUnit.SECONDS);
        assertEquals("v2", reply.getString("version"));
        assertEquals(before, reply.getString("replaced"));
        int firstNew = -1;
        for (int i = 0; i < out.size(); i++) {
            JsonObject m = out.get(i);
            assertEquals(i, m.getLong("frame"), "frame " + i + " came out once, in order");
            String version = m.getJsonObject("model").getString("version");
            if (firstNew < 0 && version.equals("v2")) firstNew = i;
            assertEquals(firstNew >= 0 ? "v2" : before, version, "message " + i);
        }
        assertTrue(firstNew > 10 && firstNew < total, "the swap happened while frames flowed: first v2 frame " + firstNew);
        assertEquals(0, superseded.get());
        assertTrue(messages.isEmpty(), "no frame twice");
        assertEquals(1, verticle.stats().swaps());
        assertEquals("v2", verticle.serving().version());
        assertEquals(v2, verticle.serving().weightsFile());
        assertTrue(out.get(firstNew).getJsonArray("detections").size() > 0, "the new version detects shapes");
    }

    @Test
    void aSwapWhileNoFrameFlowsCompletesAndBadWeightsLeaveTheOldVersionServing() throws Exception {
        String before = verticle.serving().version();
        JsonObject reply = swap(otherWeights("idle.weights", 777), "idle").get(30, TimeUnit.SECONDS);
        assertEquals("idle", reply.getString("version"));
        assertEquals(before, reply.getString("replaced"));

        Path broken = tmp.resolve("broken.weights");
        java.nio.file.Files.write(broken, new byte[] {1, 2, 3});
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> swap(broken, "broken").get(30, TimeUnit.SECONDS));
        assertEquals(400, RequestRefused.statusOf(e.getCause()), String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("broken.weights"), e.getCause().getMessage());
        assertEquals("idle", verticle.serving().version());
        vertx.eventBus().send(Addresses.frames(MODEL), frame(0), FrameCodec.LOCAL);
        JsonObject m = messages.poll(30, TimeUnit.SECONDS);
        assertEquals("idle", m.getJsonObject("model").getString("version"));
    }
}
