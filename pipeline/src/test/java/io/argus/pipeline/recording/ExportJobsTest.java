package io.argus.pipeline.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestMedia;
import io.argus.recording.DetectionLog;
import io.argus.recording.SegmentIndex;
import io.argus.recording.StorageLayout;
import io.argus.testkit.Budget;
import io.argus.testkit.Waits;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exports with boxes: one recorded segment (8 s of 640x360 at 25 fps) and a detection log with a box in every frame.
 * The camera's file is the burned one (H.264, every picture, boxes drawn), progress rises within the camera, the stream
 * copy is gone; a job whose thread is interrupted (the node stopping) ends cancelled with no file. Budget: about 3 s
 * (the video made once per build, in TestMedia).
 */
@Budget(seconds = 20)
class ExportJobsTest {
    static final long START = 1_764_400_000_000L;

    @TempDir
    Path dir;
    SegmentIndex index;
    DetectionLog log;

    @BeforeEach
    void record() throws Exception {
        StorageLayout layout = new StorageLayout(dir);
        Path segment = layout.file(layout.newSegmentName("cam", START));
        Files.createDirectories(segment.getParent());
        Files.copy(TestMedia.h264(640, 360, 25, 8), segment);
        index = SegmentIndex.open(layout);   // the file without a row is read and indexed
        assertEquals(1, index.segments("cam", START, START + 8_000).size());
        log = DetectionLog.open(dir);
        List<DetectionLog.Frame> frames = new ArrayList<>();
        for (long t = 0; t < 8_000; t += 40) frames.add(new DetectionLog.Frame(START + t, 640, 360, "[[\"car\",0.8,100,100,200,120,3]]"));
        log.append("cam", frames);
    }

    @AfterEach
    void close() {
        log.close();
        index.close();
    }

    @Test
    void anExportWithBoxesIsTheBurnedFileWithProgressWithinTheCamera() throws Exception {
        ExportJobs jobs = new ExportJobs(dir, (c, f, t) -> io.argus.recording.ClipWriter.partsOf(index, c, f, t), Runnable::run, log, ownThread(false));
        JsonObject asked = jobs.start(List.of("cam", "nope"), START, START + 8_000, true);
        assertTrue(asked.getBoolean("boxes"), asked.encode());
        String id = asked.getString("id");
        List<Double> progress = new ArrayList<>();
        JsonObject[] status = {null};
        Waits.waitFor(() -> {
            status[0] = jobs.status(id);
            progress.add(status[0].getDouble("progress"));
            return !status[0].getString("state").equals("queued") && !status[0].getString("state").equals("running");
        }, 15_000, 2, () -> "export " + id + " finished: " + status[0]);
        assertEquals("done", status[0].getString("state"), status[0].encode());
        for (int i = 1; i < progress.size(); i++) assertTrue(progress.get(i) >= progress.get(i - 1), "progress went back: " + progress);
        // 200 pictures re-encoded take a good part of a second: polled every 2 ms, the first camera is seen part done
        assertTrue(progress.stream().anyMatch(p -> p > 0.05 && p < 0.45), "progress within the first of two cameras: " + progress);
        assertEquals(1.0, progress.get(progress.size() - 1));

        JsonObject cam = status[0].getJsonArray("files").getJsonObject(0);
        assertEquals(200, cam.getLong("packets"), cam.encode());
        assertEquals(200, cam.getLong("pictures"), cam.encode());
        assertEquals(200, cam.getLong("picturesWithBoxes"), cam.encode());
        assertEquals("libopenh264", cam.getString("encoder"));
        Path file = jobs.file(id, "cam");
        assertEquals(Files.size(file), cam.getLong("bytes"));
        assertEquals("h264,200", ffprobe(file), "the burned file, every picture");
        try (var listed = Files.list(file.getParent())) {
            assertEquals(List.of("cam.mp4"), listed.map(p -> p.getFileName().toString()).toList(), "the copy and partial files gone");
        }
        assertTrue(status[0].getJsonArray("files").getJsonObject(1).getString("error").contains("nothing recorded"), status[0].encode());
    }

    @Test
    void anInterruptedExportEndsCancelledWithNoFile() throws Exception {
        ExportJobs jobs = new ExportJobs(dir, (c, f, t) -> io.argus.recording.ClipWriter.partsOf(index, c, f, t), Runnable::run, log, ownThread(true));
        String id = jobs.start(List.of("cam"), START, START + 8_000, true).getString("id");
        JsonObject[] status = {null};
        Waits.waitFor(() -> (status[0] = jobs.status(id)).getString("state").startsWith("failed"), 15_000, 10,
                () -> "export " + id + " failed: " + status[0]);
        assertEquals("failed: cancelled", status[0].getString("state"));
        assertTrue(status[0].getJsonArray("files").getJsonObject(0).getString("error").startsWith("cancelled"), status[0].encode());
        assertThrows(NoSuchElementException.class, () -> jobs.file(id, "cam"));
        try (var listed = Files.list(dir.resolve(".exports").resolve(id))) {
            assertEquals(List.of(), listed.toList(), "nothing left of the export");
        }
    }

    @Test
    void aCancelledBurnInStopsAtOnceAndAQueuedExportNeverStarts() throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        // the stream copies wait behind a held writer: the second export is queued while the first burns
        java.util.concurrent.ExecutorService burner = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            ExportJobs jobs = new ExportJobs(dir, (c, f, t) -> io.argus.recording.ClipWriter.partsOf(index, c, f, t),
                    work -> Thread.ofPlatform().start(() -> {
                        try {
                            hold.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        work.run();
                    }), log, burner);
            String burning = jobs.start(List.of("cam"), START, START + 8_000, true).getString("id");
            JsonObject[] status = {null};
            Waits.waitFor(() -> (status[0] = jobs.status(burning)).getDouble("progress") > 0, 15_000, 5,
                    () -> "the burn-in under way: " + status[0]);
            long asked = System.nanoTime();
            assertEquals(burning, jobs.cancel(burning).getString("id"));
            Waits.waitFor(() -> "cancelled".equals((status[0] = jobs.status(burning)).getString("state")), 5_000, 5,
                    () -> "the burn-in cancelled: " + status[0]);
            assertTrue(System.nanoTime() - asked < 3_000_000_000L, "stopped at its next picture, not at its end");
            assertThrows(NoSuchElementException.class, () -> jobs.file(burning, "cam"));

            String queued = jobs.start(List.of("cam"), START, START + 8_000, false).getString("id");
            assertEquals("cancelled", jobs.cancel(queued).getString("state"));
            hold.countDown();
            String after = jobs.start(List.of("cam"), START, START + 2_000, false).getString("id");
            Waits.waitFor(() -> "done".equals(jobs.status(after).getString("state")), 15_000, 10, "a later export done");
            assertEquals("cancelled", jobs.status(queued).getString("state"), "the cancelled one never ran");
            assertEquals(List.of(), jobs.status(queued).getJsonArray("files").getList());
            assertEquals("done", jobs.cancel(after).getString("state"), "an ended export stays as it ended");
            assertThrows(NoSuchElementException.class, () -> jobs.cancel("export-0-0"));
        } finally {
            burner.shutdownNow();
        }
    }

    @Test
    void boxesWithNoDetectionLogAreRefused() {
        ExportJobs jobs = new ExportJobs(dir, (c, f, t) -> io.argus.recording.ClipWriter.partsOf(index, c, f, t), Runnable::run, null, Runnable::run);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> jobs.start(List.of("cam"), START, START + 1_000, true));
        assertTrue(e.getMessage().contains("detection log"), e.getMessage());
        assertFalse(jobs.start(List.of("cam"), START, START + 1_000, false).getBoolean("boxes"));
    }

    /** Runs each job on a thread of its own; {@code interrupted}: one interrupted from the start, as at a node's stop. */
    private static Executor ownThread(boolean interrupted) {
        return work -> Thread.ofPlatform().name("test-burn-in").start(() -> {
            if (interrupted) Thread.currentThread().interrupt();
            work.run();
        });
    }

    /** ffprobe's codec and count of decoded pictures of the file's video. */
    private static String ffprobe(Path file) throws Exception {
        Process p = new ProcessBuilder("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                "stream=codec_name,nb_read_frames", "-of", "csv=p=0", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ffprobe still running");
        return out;
    }
}
