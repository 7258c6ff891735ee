package io.argus.pipeline.recording;

import io.argus.pipeline.config.Names;
import io.argus.recording.ClipWriter;
import io.argus.recording.SegmentIndex;
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
        final long askedAt = System.currentTimeMillis();
        volatile String state = "queued";
        volatile int done;
        final Map<String, JsonObject> files = new LinkedHashMap<>();

        Job(String id, List<String> cameras, long fromMs, long toMs) {
            this.id = id;
            this.cameras = cameras;
            this.fromMs = fromMs;
            this.toMs = toMs;
        }

        synchronized JsonObject toJson() {
            JsonArray out = new JsonArray();
            files.values().forEach(out::add);
            return new JsonObject().put("id", id).put("state", state).put("cameras", new JsonArray(cameras))
                    .put("from", fromMs).put("to", toMs).put("progress", cameras.isEmpty() ? 1.0 : done / (double) cameras.size())
                    .put("files", out);
        }
    }

    private final Path dir;
    private final SegmentIndex index;
    private final Executor writer;
    private final AtomicLong sequence = new AtomicLong();
    private final Map<String, Job> jobs = new LinkedHashMap<>();

    ExportJobs(Path recordingDir, SegmentIndex index, Executor writer) {
        this.dir = recordingDir.resolve(".exports");
        this.index = index;
        this.writer = writer;
    }

    /**
     * Starts an export of [fromMs, toMs) of {@code cameras}; its state as {@link #status} gives it. Refused
     * ({@link IllegalArgumentException}) for a bad request, ({@link IllegalStateException}) when {@link #WAITING}
     * exports wait already.
     */
    JsonObject start(List<String> cameras, long fromMs, long toMs) {
        if (cameras.isEmpty() || cameras.size() > MAX_CAMERAS) {
            throw new IllegalArgumentException("cameras: expected 1 to " + MAX_CAMERAS + " camera ids, found " + cameras.size());
        }
        for (String c : cameras) StorageLayout.requireCamera(c);
        if (cameras.stream().distinct().count() != cameras.size()) throw new IllegalArgumentException("cameras: a camera named twice");
        if (toMs <= fromMs || toMs - fromMs > Recordings.MAX_CLIP_MS) {
            throw new IllegalArgumentException("from, to: expected from < to, at most " + Recordings.MAX_CLIP_MS
                    + " ms apart, found " + fromMs + ", " + toMs);
        }
        Job job;
        List<String> forgotten;
        synchronized (jobs) {
            long waiting = jobs.values().stream().filter(j -> j.state.equals("queued")).count();
            if (waiting >= WAITING) throw new IllegalStateException("busy: " + waiting + " exports wait already; try again");
            String id = "export-" + System.currentTimeMillis() + "-" + sequence.incrementAndGet();
            job = new Job(id, List.copyOf(cameras), fromMs, toMs);
            jobs.put(id, job);
            forgotten = forgetOldest();
        }
        // files are deleted and written on the writer, never on the caller's thread (an event loop)
        writer.execute(() -> {
            forgotten.forEach(this::deleteFiles);
            run(job);
        });
        return job.toJson();
    }

    /** An export's state and files. */
    JsonObject status(String id) { return job(id).toJson(); }

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
        job.state = "running";
        Path out = dir.resolve(job.id);
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            job.state = "failed: " + e.getMessage();
            return;
        }
        int written = 0;
        for (String camera : job.cameras) {
            JsonObject f = new JsonObject().put("camera", camera);
            try {
                ClipWriter.Written w = ClipWriter.write(ClipWriter.partsOf(index, camera, job.fromMs, job.toMs), job.fromMs, job.toMs,
                        out.resolve(camera + ".mp4"));
                f.put("url", "/api/exports/" + job.id + "/" + camera + ".mp4").put("from", w.fromMs()).put("to", w.toMs())
                        .put("packets", w.packets()).put("bytes", w.bytes()).put("cutShort", w.cutShort());
                written++;
            } catch (IOException | RuntimeException e) {
                f.put("error", e.getMessage());
            }
            synchronized (job) {
                job.files.put(camera, f);
                job.done++;
            }
        }
        job.state = written > 0 ? "done" : "failed: nothing recorded of any camera in the range";
    }

    /** Drops the oldest finished exports beyond {@link #KEPT}; returns their ids. Called holding {@code jobs}. */
    private List<String> forgetOldest() {
        List<String> gone = new ArrayList<>();
        var it = jobs.values().iterator();
        while (jobs.size() > KEPT && it.hasNext()) {
            Job j = it.next();
            if (j.state.equals("queued") || j.state.equals("running")) continue;
            it.remove();
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
