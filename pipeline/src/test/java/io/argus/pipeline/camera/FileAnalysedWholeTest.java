package io.argus.pipeline.camera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.camera.CameraStats.State;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.frames.FramePool;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.pipeline.inference.LatestFrames;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Pace;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A file camera with {@code realtime: false} is analysed whole: each frame goes to the batcher once the one before was
 * taken, so a detector slower than the file slows the file down and drops nothing, on however loaded a machine. The
 * same file paced in real time (a live camera's behaviour) loses frames to the same slow detector: latest frame wins.
 * A file whose frames nobody takes (no detector runs its model) is not hung by the wait.
 */
@Budget(seconds = 30)
class FileAnalysedWholeTest {
    /** The stand-in detector's time per frame: a third slower than the file's 25 fps. */
    static final long DETECT_MS = 60;

    @Test
    void aSlowDetectorGetsEveryFrameInOrder() throws Exception {
        Path file = TestMedia.h264(160, 120, 25, 2);
        Run run = analyse(file, false, 5000);
        assertEquals(50, run.stats.decoded.sum(), "decoded");
        assertEquals(0, run.stats.superseded.sum(), "none superseded");
        assertEquals(0, run.stats.droppedPool.sum(), "none let go for want of a buffer");
        assertEquals(50, run.detected.size(), "every frame detected");
        for (int i = 0; i < run.detected.size(); i++) assertEquals(i, run.detected.get(i), "frames in order");
    }

    @Test
    void inRealTimeTheSameDetectorDropsFrames() throws Exception {
        Path file = TestMedia.h264(160, 120, 25, 2);
        Run run = analyse(file, true, 5000);
        assertEquals(50, run.stats.decoded.sum(), "decoded");
        assertTrue(run.stats.superseded.sum() > 0, "a live camera's latest frame wins: " + run.stats.superseded.sum());
        assertEquals(50, run.detected.size() + run.stats.superseded.sum() + run.stats.droppedPool.sum(),
                "each frame detected or dropped: " + run.detected.size() + " detected");
    }

    @Test
    void framesNobodyTakesDoNotHangTheFile() throws Exception {
        Path file = TestMedia.h264(160, 120, 10, 1);
        CameraStats stats = new CameraStats();
        // the frames are given back but never taken for detection, as when no detector runs the camera's model
        CameraReader reader = reader(file, false, 100, stats, VideoFrame::release);
        try {
            reader.start();
            Waits.until(() -> stats.state == State.ENDED, 20_000, 20);
        } finally {
            reader.stop();
        }
        assertEquals(10, stats.decoded.sum(), "the file read to its end");
        assertEquals(10, stats.emitted.sum(), "each frame sent after the wait for the one before");
    }

    record Run(CameraStats stats, List<Long> detected) {}

    /** Reads {@code file} into a batcher whose one worker takes a frame every {@link #DETECT_MS}, to the file's end. */
    private static Run analyse(Path file, boolean realtime, int stallTimeoutMs) throws Exception {
        LatestFrames queue = new LatestFrames(1, 0);
        List<Long> detected = new CopyOnWriteArrayList<>();
        Thread detector = new Thread(() -> {
            try {
                for (LatestFrames.Batch b; (b = queue.takeBatch()) != null; ) {
                    for (VideoFrame f : b.frames()) {
                        Pace.holdMillis(DETECT_MS, "the stand-in detector's work on a frame");
                        detected.add(f.number());
                        f.release();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "stand-in-detector");
        detector.start();
        CameraStats stats = new CameraStats();
        CameraReader reader = reader(file, realtime, stallTimeoutMs, stats, queue::offer);
        try {
            reader.start();
            Waits.until(() -> stats.state == State.ENDED && queue.depth() == 0
                    && detected.size() + stats.superseded.sum() + stats.droppedPool.sum() == stats.decoded.sum(), 20_000, 20);
        } finally {
            reader.stop();
            queue.close();
            detector.join(5000);
        }
        return new Run(stats, detected);
    }

    private static CameraReader reader(Path file, boolean realtime, int stallTimeoutMs, CameraStats stats,
                                       Consumer<VideoFrame> sink) throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonArray("cameras").add(TestConfig.camera("file", file.toString()).put("loop", false)
                .put("realtime", realtime).put("decoder", "cpu"));
        json.put("camera", new JsonObject().put("stallTimeoutMs", stallTimeoutMs));
        ArgusConfig config = TestConfig.read(json);
        CameraConfig c = config.cameras().getFirst();
        return new CameraReader(c, config.model(c.model()), c.source(), config.camera(),
                new FramePool(config.camera().poolFrames()), stats, sink);
    }
}
