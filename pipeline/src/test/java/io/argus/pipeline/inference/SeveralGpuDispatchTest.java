package io.argus.pipeline.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.cuda.Nv12Surface;
import io.argus.detector.nn.StageTimes;
import io.argus.detector.testing.StandInBackend;
import io.argus.detector.yuv.YuvColour;
import io.argus.pipeline.frames.VideoFrame;
import io.argus.testkit.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Batches on several GPUs (stand-in backends): published in the order taken whichever GPU finishes first, each
 * frame's detections its own after the batch was split by where its frames live, and the frames of a GPU that failed
 * released unpublished while the rest of their batch is published.
 */
@Budget(seconds = 5)
class SeveralGpuDispatchTest {
    /** What the publisher was given, in order. */
    private final List<String> published = new CopyOnWriteArrayList<>();
    private final List<VideoFrame> failedFrames = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<VideoFrame> made = new ArrayList<>();

    private final SeveralGpuDispatch.Publisher publisher = new SeveralGpuDispatch.Publisher() {
        @Override
        public void publish(LoadedModel model, List<VideoFrame> frames, List<List<Detection>> found, long start,
                            long end, StageTimes stages, int batchSize) {
            for (int i = 0; i < frames.size(); i++) {
                VideoFrame f = frames.get(i);
                boolean own = found.get(i).equals(List.of(StandInBackend.detectionFor(f.width())));
                published.add(f.cameraId() + ":" + f.number() + (own ? "" : " with another frame's detections"));
            }
        }

        @Override
        public void failed(List<VideoFrame> frames, Throwable cause) {
            failedFrames.addAll(frames);
            failures.add(cause);
        }
    };

    /** A host frame of camera {@code camera}, {@code width} px wide (the stand-in answers with the width). */
    private VideoFrame hostFrame(String camera, long number, int width) {
        VideoFrame f = new VideoFrame(camera, number, 0, 0, System.nanoTime(), 0,
                BgrImage.of(width, 2, new byte[width * 6]), null, null, null);
        made.add(f);
        return f;
    }

    /** An NVDEC frame on {@code device} (the stand-ins never read its planes). */
    private VideoFrame gpuFrame(String camera, long number, int width, int device) {
        Nv12Surface s = new Nv12Surface(1, 1, width + 1, width + 1, width, 2, YuvColour.DEFAULT);
        VideoFrame f = VideoFrame.onGpu(camera, number, 0, 0, System.nanoTime(), 0, s, device, null, null);
        made.add(f);
        return f;
    }

    /** Every frame made so far was released exactly once (a second release would have thrown). */
    private void assertAllReleased() {
        for (VideoFrame f : made) assertEquals(0, f.references(), f.cameraId() + ":" + f.number() + " released");
    }

    @Test
    void batchesArePublishedInTheOrderTakenWhicheverGpuFinishesFirst() throws Exception {
        // device 0 takes 40 ms per image, device 1 one: the second batch finishes long before the first
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1}, d -> new StandInBackend(d, 4, d == 0 ? 40 : 1))) {
            SeveralGpuDispatch dispatch = new SeveralGpuDispatch("m", publisher);
            dispatch.submit(workers, null, List.of(gpuFrame("a", 0, 10, 0), gpuFrame("b", 0, 11, 0)), DetectParams.DEFAULT);
            dispatch.submit(workers, null, List.of(gpuFrame("a", 1, 12, 1), gpuFrame("b", 1, 13, 1)), DetectParams.DEFAULT);
            dispatch.awaitIdle();
            assertEquals(List.of("a:0", "b:0", "a:1", "b:1"), published);
            assertAllReleased();
            dispatch.close();
        }
    }

    @Test
    void aBatchSplitOverGpusAndTheHostComesBackInItsFramesOrder() throws Exception {
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1}, d -> new StandInBackend(d, 4, 1))) {
            SeveralGpuDispatch dispatch = new SeveralGpuDispatch("m", publisher);
            List<VideoFrame> frames = List.of(gpuFrame("a", 0, 20, 1), hostFrame("b", 0, 21), gpuFrame("c", 0, 22, 0),
                    gpuFrame("d", 0, 23, 1), hostFrame("e", 0, 24));
            dispatch.submit(workers, null, frames, DetectParams.DEFAULT);
            dispatch.awaitIdle();
            assertEquals(List.of("a:0", "b:0", "c:0", "d:0", "e:0"), published);
            int[] batches = workers.completedBatches();
            assertTrue(batches[0] >= 1 && batches[1] >= 1, "both GPUs ran their frames' parts");
            assertAllReleased();
            dispatch.close();
        }
    }

    @Test
    void framesOfAFailedGpuAreReleasedUnpublishedAndTheRestIsPublished() throws Exception {
        try (GpuWorkers workers = new GpuWorkers(new int[] {0, 1},
                d -> new StandInBackend(d, 4, 1).failingFrom(d == 1 ? 1 : Integer.MAX_VALUE))) {
            SeveralGpuDispatch dispatch = new SeveralGpuDispatch("m", publisher);
            List<VideoFrame> frames = new ArrayList<>(List.of(hostFrame("a", 0, 30), gpuFrame("b", 0, 31, 1),
                    gpuFrame("c", 0, 32, 0)));
            dispatch.submit(workers, null, frames, DetectParams.DEFAULT);
            dispatch.awaitIdle();
            assertEquals(List.of("a:0", "c:0"), published, "host frames move off the failed GPU");
            assertEquals(List.of(frames.get(1)), failedFrames, "the frame decoded on device 1 cannot move");
            assertTrue(failures.get(0).getMessage().startsWith("device 1 was taken out"), failures.get(0).getMessage());
            assertAllReleased();   // published or not
            // from now on device 1's frames fail at once and everything else runs on device 0
            dispatch.submit(workers, null, List.of(hostFrame("a", 1, 33), gpuFrame("b", 1, 34, 1)), DetectParams.DEFAULT);
            dispatch.awaitIdle();
            assertEquals(List.of("a:0", "c:0", "a:1"), published);
            assertEquals(2, failedFrames.size());
            assertAllReleased();
            dispatch.close();
        }
    }
}
