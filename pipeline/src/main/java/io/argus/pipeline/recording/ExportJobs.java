package io.argus.pipeline.recording;

import io.argus.pipeline.config.Names;
import io.argus.recording.BoxBurner;
import io.argus.recording.ClipWriter;
import io.argus.recording.DetectionLog;
import io.argus.recording.StorageLayout;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Exports: one time range of several cameras, an MP4 per camera by stream copy ({@link ClipWriter}), made in the
 * background with progress (cameras done of all) and kept for download under {@code <dir>/.exports/<id>/}. A job is
 * asked for, then polled; its files are served by name. At most {@link #KEPT} jobs are kept (the oldest goes with its
 * files) and {@link #WAITING} wait for the writer, so what a client asks for stays bounded. Thread-safe.
 *
 * <p>With boxes asked for, each camera's stream copy is then re-encoded with the detector's boxes drawn in
 * ({@link BoxBurner}, from the {@link DetectionLog}); the copy is written under a name no camera's file can have
 * ({@code .<camera>.copy.mp4}) and removed once the burned file is in place. Progress then counts within a camera too
 * (its pictures done of those expected). A re-encode takes minutes where a copy takes seconds, so those jobs run on
 * their own thread, never in front of the clips the dashboard asks for; an interrupted thread (the node stopping) ends
 * the job, its partial file removed.
 */
final class ExportJobs {
    static final int KEPT = 8;
    static final int WAITING = 2;
    static final int MAX_CAMERAS = 16;

    /** One export: what was asked and how far it got. */
    private static final class Job {
        final String id;
        final List<String> cameras;
        final long fromMs;
        final long toMs;
        final boolean boxes;
        final long askedAt = System.currentTimeMillis();
        volatile String state = "queued";
        /** Asked to stop: a queued job does not start, a running one stops between cameras or (a burn-in) at once. */
        volatile boolean cancelled;
        /** The thread running the job, while it runs (guarded by the job): a burn-in stops when interrupted. */
        Thread runner;
        int done;
        /** How far the camera being burned is, 0 to 1 (guarded by the job). */
        double current;
        final Map<String, JsonObject> files = new LinkedHashMap<>();

        Job(String id, List<String> cameras, long fromMs, long toMs, boolean boxes) {
            this.id = id;
            this.cameras = cameras;
            this.fromMs = fromMs;
            this.toMs = toMs;
            this.boxes = boxes;
        }

        synchronized JsonObject toJson() {
            JsonArray out = new JsonArray();
            files.values().forEach(out::add);
            double progress = cameras.isEmpty() ? 1.0 : Math.min(1.0, (done + current) / cameras.size());
            return new JsonObject().put("id", id).put("state", state).put("cameras", new JsonArray(cameras))
                    .put("from", fromMs).put("to", toMs).put("boxes", boxes).put("progress", progress).put("files", out);
        }

        synchronized void at(double fraction) { current = Math.max(current, fraction); }

        synchronized void finished(String camera, JsonObject file) {
            files.put(camera, file);
            done++;
            current = 0;
        }
    }

    private final Path dir;
    private final Parts recorded;
    private final Executor writer;
    private final DetectionLog detections;
    private final Executor burner;
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Job> jobs = new LinkedHashMap<>();

    /** A camera's segments overlapping a range, as parts to read, oldest first (from every storage directory). */
    @FunctionalInterface
    interface Parts {
        List<ClipWriter.Part> of(String camera, long fromMs, long toMs);
    }

    /** Exports without boxes on {@code writer}; with boxes, from {@code detections} (null: none kept), on {@code burner}. */
    ExportJobs(Path recordingDir, Parts recorded, Executor writer, DetectionLog detections, Executor burner) {
        this.dir = recordingDir.resolve(".exports");
        this.recorded = recorded;
        this.writer = writer;
        this.detections = detections;
        this.burner = burner;
    }

    /**
     * Starts an export of [fromMs, toMs) of {@code cameras}; its state as {@link #status} gives it. Refused
     * ({@link IllegalArgumentException}) for a bad request, ({@link IllegalStateException}) when {@link #WAITING}
     * exports wait already or boxes are asked for and no detection log is open.
     */
    JsonObject start(List<String> cameras, long fromMs, long toMs, boolean boxes) {
        if (cameras.isEmpty() || cameras.size() > MAX_CAMERAS) {
            throw new IllegalArgumentException("cameras: expected 1 to " + MAX_CAMERAS + " camera ids, found " + cameras.size());
        }
        for (String c : cameras) StorageLayout.requireCamera(c);
        if (cameras.stream().distinct().count() != cameras.size()) throw new IllegalArgumentException("cameras: a camera named twice");
        if (toMs <= fromMs || toMs - fromMs > Recordings.MAX_CLIP_MS) {
            throw new IllegalArgumentException("from, to: expected from < to, at most " + Recordings.MAX_CLIP_MS
                    + " ms apart, found " + fromMs + ", " + toMs);
        }
        if (boxes && detections == null) throw new IllegalStateException("boxes: no detection log is open on this node");
        Job job;
        List<String> forgotten;
        synchronized (jobs) {
            long waiting = jobs.values().stream().filter(j -> j.state.equals("queued")).count();
            if (waiting >= WAITING) throw new IllegalStateException("busy: " + waiting + " exports wait already; try again");
            String id = "export-" + System.currentTimeMillis() + "-" + sequence.incrementAndGet();
            job = new Job(id, List.copyOf(cameras), fromMs, toMs, boxes);
            jobs.put(id, job);
            forgotten = forgetOldest();
        }
        // files are deleted and written on the writer, never on the caller's thread (an event loop)
        (boxes ? burner : writer).execute(() -> {
            forgotten.forEach(this::deleteFiles);
            run(job);
        });
        return job.toJson();
    }

    /** An export's state and files. */
    JsonObject status(String id) { return job(id).toJson(); }

    /**
     * Stops export {@code id}: a queued one never starts, a running one stops (a stream copy after the camera it is
     * on, a burn-in at its next picture) and keeps the files it finished; one that ended is left as it is. Its state.
     */
    JsonObject cancel(String id) {
        Job j = job(id);
        synchronized (j) {
            if (j.state.equals("queued") || j.state.equals("running")) {
                j.cancelled = true;
                if (j.state.equals("queued")) j.state = "cancelled";
                // only a burn-in's thread is the job's own; the clip writer's is shared with the dashboard's clips
                if (j.runner != null && j.boxes) j.runner.interrupt();
            }
        }
        return j.toJson();
    }

    /** Every export kept, newest first. */
    JsonArray list() {
        JsonArray out = new JsonArray();
        synchronized (jobs) {
            List<Job> all = new ArrayList<>(jobs.values());
            all.sort(Comparator.comparingLong((Job j) -> j.askedAt).reversed());
            all.forEach(j -> out.add(j.toJson()));
        }
        return out;
    }

    /** The file of {@code camera} in export {@code id}, once written. */
    Path file(String id, String camera) {
        Job j = job(id);
        synchronized (j) {
            JsonObject f = j.files.get(camera);
            if (f == null || f.getString("error") != null) {
                throw new NoSuchElementException("export " + id + " has no file of camera " + Names.quoted(camera)
                        + (j.state.equals("done") ? "" : " (yet: " + j.state + ")"));
            }
        }
        return dir.resolve(id).resolve(camera + ".mp4");
    }

    private Job job(String id) {
        synchronized (jobs) {
            Job j = jobs.get(id);
            if (j == null) throw new NoSuchElementException("no export " + Names.quoted(id) + " (the last " + KEPT + " are kept)");
            return j;
        }
    }

    private void run(Job job) {
        synchronized (job) {
            if (job.cancelled) return;
            job.state = "running";
            job.runner = Thread.currentThread();
        }
        try {
            runCameras(job);
        } finally {
            synchronized (job) {
                job.runner = null;
                if (job.cancelled && !job.state.startsWith("failed")) job.state = "cancelled";
            }
            Thread.interrupted();   // an interrupt meant for this job must not reach the executor's next task
        }
    }

    private void runCameras(Job job) {
        Path out = dir.resolve(job.id);
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            job.state = "failed: " + e.getMessage();
            return;
        }
        int written = 0;
        for (String camera : job.cameras) {
            if (job.cancelled) return;
            JsonObject f = new JsonObject().put("camera", camera);
            Path file = out.resolve(camera + ".mp4");
            // a name no camera's file has (they start with a letter or digit): never served half made
            Path copy = job.boxes ? out.resolve("." + camera + ".copy.mp4") : file;
            try {
                ClipWriter.Written w = ClipWriter.write(recorded.of(camera, job.fromMs, job.toMs), job.fromMs, job.toMs, copy);
                f.put("url", "/api/exports/" + job.id + "/" + camera + ".mp4").put("from", w.fromMs()).put("to", w.toMs())
                        .put("packets", w.packets()).put("bytes", w.bytes()).put("cutShort", w.cutShort());
                if (job.boxes) {
                    BoxBurner.Burned b = BoxBurner.burn(copy, w.fromMs(),
                            (from, to) -> detections.between(camera, from, to, BoxBurner.WINDOW_LIMIT), file, job::at);
                    f.put("bytes", b.bytes()).put("pictures", b.pictures()).put("picturesWithBoxes", b.withBoxes())
                            .put("encoder", b.encoder());
                }
                written++;
            } catch (InterruptedException e) {
                // the node is stopping: the job ends here, what it had not finished is not kept
                Thread.currentThread().interrupt();
                f.remove("url");
                job.finished(camera, f.put("error", "cancelled: " + e.getMessage()));
                job.state = job.cancelled ? "cancelled" : "failed: cancelled";
                return;
            } catch (IOException | RuntimeException e) {
                f.remove("url");
                f.put("error", (job.boxes && f.containsKey("from") ? "burning the boxes in: " : "") + e.getMessage());
            } finally {
                if (job.boxes) deleteQuietly(copy);
            }
            job.finished(camera, f);
        }
        job.state = written > 0 ? "done" : job.boxes ? "failed: no camera's file could be made (each file says why)"
                : "failed: nothing recorded of any camera in the range";
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // in the export's folder, which goes with the export
        }
    }

    /** Drops the oldest finished exports beyond {@link #KEPT}; returns their ids. Called holding {@code jobs}. */
    private List<String> forgetOldest() {
        List<String> gone = new ArrayList<>();
        var it = jobs.values().iterator();
        while (jobs.size() > KEPT && it.hasNext()) {
            Job j = it.next();
            if (j.state.equals("queued") || j.state.equals("running")) continue;
            it.remove();   // a cancelled one too: its files go
            gone.add(j.id);
        }
        return gone;
    }

    private void deleteFiles(String id) {
        Path files = dir.resolve(id);
        if (!Files.exists(files)) return;
        try (var walk = Files.walk(files)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // gone already: nothing to keep
        }
    }
}
