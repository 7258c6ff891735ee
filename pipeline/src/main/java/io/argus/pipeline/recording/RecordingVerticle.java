package io.argus.pipeline.recording;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.recording.CameraRecorder;
import io.argus.recording.ClipWriter;
import io.argus.recording.DetectionLog;
import io.argus.recording.PacketSink;
import io.argus.recording.Retention;
import io.argus.recording.Segment;
import io.argus.recording.SegmentIndex;
import io.argus.recording.StorageLayout;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's recordings: opens the storage directory's index (bringing it in line with the files after a crash), keeps
 * a recorder per recorded camera (fed by the camera's reader thread, writing on its own), and applies retention every
 * {@link #RETENTION_PERIOD_MS}. Everything that touches the disk runs on a worker, never on the event loop.
 */
public final class RecordingVerticle extends VerticleBase implements Recordings {
    static final long RETENTION_PERIOD_MS = 30_000;
    private static final int DELETIONS_KEPT = 50;
    /** Clips kept for the next request of the same range; the oldest goes first. */
    static final int CLIPS_KEPT = 32;
    /** Clip requests waiting for the one clip writer; more are refused until it catches up. */
    static final int CLIPS_WAITING = 8;
    /** How long after a range's end its last packets may still be on their way to the segment. */
    private static final long SETTLE_MS = 2_000;
    /** Frames' boxes are written to the detection log once a second, a transaction per camera. */
    static final long DETECTIONS_FLUSH_MS = 1_000;
    /** Frames buffered per camera at most between two writes (a stalled disk must not grow the heap). */
    static final int DETECTIONS_BUFFERED = 1_000;

    private final ArgusConfig.Recording settings;
    private final Map<String, CameraConfig.Record> rules = new ConcurrentHashMap<>();
    private final Map<String, CameraRecorder> recorders = new ConcurrentHashMap<>();
    private final Deque<JsonObject> lastDeletions = new ArrayDeque<>();
    private final System.Logger log = System.getLogger("argus.recording");
    private volatile SegmentIndex index;
    private volatile DetectionLog detectionLog;
    /** Per recorded camera: its detection messages' consumer and the frames not yet written. */
    private final Map<String, MessageConsumer<JsonObject>> detectionConsumers = new ConcurrentHashMap<>();
    private final Map<String, List<DetectionLog.Frame>> unwrittenFrames = new ConcurrentHashMap<>();
    private long flushTimer = -1;
    private volatile long freeBytes = -1;
    private volatile String openFailure;
    private long timer = -1;
    /** One clip written at a time, beside (not in the way of) the index's own requests. */
    private WorkerExecutor clipWriter;
    private final AtomicInteger clipsWaiting = new AtomicInteger();
    private volatile ExportJobs exportJobs;

    public RecordingVerticle(ArgusConfig config) {
        this.settings = config.recording();
        for (CameraConfig c : config.cameras()) rules.put(c.id(), c.record());
    }

    @Override
    public Future<?> start() {
        boolean wanted = rules.values().stream().anyMatch(CameraConfig.Record::on);
        return vertx.executeBlocking(() -> {
            try {
                SegmentIndex opened = SegmentIndex.open(new StorageLayout(settings.dir()));
                SegmentIndex.Recovery r = opened.recovery();
                if (!r.clean()) log.log(Level.WARNING, "recordings in {0}: index brought in line with the files: {1}", settings.dir(), r);
                for (String u : r.unreadable()) log.log(Level.WARNING, "recordings: unreadable segment kept out of the index: {0}", u);
                index = opened;
                try {
                    detectionLog = DetectionLog.open(settings.dir());
                    if (detectionLog.setAside() != null) {
                        log.log(Level.WARNING, "recordings: the detection log could not be read ({0}): set aside, started again",
                                detectionLog.setAside());
                    }
                } catch (IOException | RuntimeException e) {
                    // the recording goes on; playback shows no boxes
                    log.log(Level.WARNING, "recordings: no detection log in {0}: {1}", settings.dir(), e.getMessage());
                }
            } catch (IOException | RuntimeException e) {
                // detection does not wait for the disk: the cameras run, unrecorded, and the status says why
                openFailure = "cannot open the recordings in " + settings.dir() + ": " + e.getMessage();
                log.log(wanted ? Level.ERROR : Level.WARNING, openFailure);
            }
            freeBytes = free();
            return null;
        }).onSuccess(v -> {
            clipWriter = vertx.createSharedWorkerExecutor("argus-clips", 1);
            if (index != null) {
                // exports take turns with clips on the one clip writer; those with boxes re-encode for minutes, so on
                // a thread of their own (closed, and so interrupted, with this verticle's undeployment)
                WorkerExecutor burnIn = vertx.createSharedWorkerExecutor("argus-exports-burn-in", 1);
                exportJobs = new ExportJobs(settings.dir(), index, work -> clipWriter.executeBlocking(() -> {
                    work.run();
                    return null;
                }), detectionLog, work -> burnIn.executeBlocking(() -> {
                    work.run();
                    return null;
                }));
            }
            timer = vertx.setPeriodic(RETENTION_PERIOD_MS, t -> retention());
            flushTimer = vertx.setPeriodic(DETECTIONS_FLUSH_MS, t -> flushDetections());
            rules.forEach((camera, r) -> {
                if (r.on()) logDetectionsOf(camera);
            });
        });
    }

    @Override
    public Future<?> stop() {
        if (timer >= 0) vertx.cancelTimer(timer);
        if (flushTimer >= 0) vertx.cancelTimer(flushTimer);
        if (clipWriter != null) clipWriter.close();
        detectionConsumers.values().forEach(MessageConsumer::unregister);
        return vertx.executeBlocking(() -> {
            writeDetections();
            if (detectionLog != null) detectionLog.close();
            for (CameraRecorder r : recorders.values()) r.close();
            recorders.clear();
            if (index != null) index.close();
            return null;
        });
    }

    @Override
    public PacketSink sinkFor(CameraConfig camera) {
        rules.put(camera.id(), camera.record());
        if (!camera.record().on() || index == null) return PacketSink.NONE;
        context.runOnContext(v -> logDetectionsOf(camera.id()));
        return recorders.computeIfAbsent(camera.id(), id -> new CameraRecorder(id, index, settings.segmentSeconds() * 1000L,
                settings.queueBytes()));
    }

    @Override
    public void stopped(String camera) {
        context.runOnContext(v -> {
            MessageConsumer<JsonObject> c = detectionConsumers.remove(camera);
            if (c != null) c.unregister();
        });
        CameraRecorder r = recorders.remove(camera);
        if (r != null) vertx.executeBlocking(() -> {
            r.close();
            return null;
        });
    }

    @Override
    public Future<List<Segment>> segments(String camera, long fromMs, long toMs, int limit) {
        SegmentIndex i = index;
        if (i == null) return Future.succeededFuture(List.of());
        return vertx.executeBlocking(() -> i.segments(camera, fromMs, toMs, limit));
    }

    @Override
    public boolean records(String camera) {
        CameraConfig.Record r = rules.get(camera);
        return r != null && r.on() && index != null;
    }

    @Override
    public Future<Clip> eventClip(String camera, long startMs, long endMs) {
        long[] range = eventRange(camera, startMs, endMs);
        long to = range[1] < 0 ? System.currentTimeMillis() : range[1];
        return clip(camera, range[0], Math.min(to, range[0] + MAX_CLIP_MS));
    }

    @Override
    public JsonObject clipReference(String camera, String eventId, long startMs, long endMs) {
        if (!records(camera)) return null;
        long[] range = eventRange(camera, startMs, endMs);
        JsonObject ref = new JsonObject().put("url", "/api/events/" + eventId + "/clip.mp4").put("from", range[0]);
        return range[1] < 0 ? ref.putNull("to") : ref.put("to", range[1]);
    }

    /** [start - preRoll, end + postRoll] (end -1: open), the camera's rolls. */
    private long[] eventRange(String camera, long startMs, long endMs) {
        CameraConfig.Record r = rules.getOrDefault(camera, CameraConfig.Record.OFF);
        return new long[]{startMs - r.preRollSeconds() * 1000L, endMs < 0 ? -1 : endMs + r.postRollSeconds() * 1000L + 1};
    }

    @Override
    public Future<Clip> clip(String camera, long fromMs, long toMs) {
        SegmentIndex i = index;
        if (i == null) return Future.failedFuture(new NoSuchElementException("recordings are not open: " + openFailure));
        if (toMs <= fromMs || toMs - fromMs > MAX_CLIP_MS) {
            return Future.failedFuture(new IllegalArgumentException("clip: expected from < to, at most " + MAX_CLIP_MS
                    + " ms apart, found from " + fromMs + ", to " + toMs));
        }
        String name;
        try {
            StorageLayout.requireCamera(camera);
            name = camera + "-" + fromMs + "-" + toMs + ".mp4";
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(e);
        }
        if (clipsWaiting.incrementAndGet() > CLIPS_WAITING) {
            clipsWaiting.decrementAndGet();
            return Future.failedFuture(new IllegalStateException("busy: " + CLIPS_WAITING + " clips are being written; try again"));
        }
        return clipWriter.<Clip>executeBlocking(() -> {
            Path dir = settings.dir().resolve(".clips");
            Files.createDirectories(dir);
            Path file = dir.resolve(name);
            // a clip made once its range had ended (and its last packets had reached the disk) is still right
            if (Files.isRegularFile(file) && Files.getLastModifiedTime(file).toMillis() > toMs + SETTLE_MS) {
                return new Clip(file, fromMs, toMs, -1, Files.size(file), null);
            }
            ClipWriter.Written w;
            try {
                w = ClipWriter.write(ClipWriter.partsOf(i, camera, fromMs, toMs), fromMs, toMs, file);
            } catch (ClipWriter.NothingRecorded e) {
                throw new NoSuchElementException("camera " + camera + ": " + e.getMessage());
            }
            keepNewestClips(dir);
            return new Clip(file, w.fromMs(), w.toMs(), w.packets(), w.bytes(), w.cutShort());
        }).andThen(ar -> clipsWaiting.decrementAndGet());
    }

    @Override
    public Future<List<DetectionLog.Frame>> detections(String camera, long fromMs, long toMs, int limit) {
        DetectionLog d = detectionLog;
        if (d == null) return Future.succeededFuture(List.of());
        return vertx.executeBlocking(() -> d.between(camera, fromMs, toMs, limit));
    }

    @Override
    public Future<JsonObject> export(List<String> cameras, long fromMs, long toMs, boolean boxes) {
        ExportJobs e = exportJobs;
        if (e == null) return Future.failedFuture(new NoSuchElementException("recordings are not open: " + openFailure));
        try {
            return Future.succeededFuture(e.start(cameras, fromMs, toMs, boxes));
        } catch (RuntimeException refused) {
            return Future.failedFuture(refused);
        }
    }

    @Override
    public Future<JsonObject> export(String id) {
        ExportJobs e = exportJobs;
        if (e == null) return Future.failedFuture(new NoSuchElementException("no export " + id));
        try {
            return Future.succeededFuture(e.status(id));
        } catch (RuntimeException refused) {
            return Future.failedFuture(refused);
        }
    }

    @Override
    public Future<JsonArray> exports() {
        ExportJobs e = exportJobs;
        return Future.succeededFuture(e == null ? new JsonArray() : e.list());
    }

    @Override
    public Future<Path> exportFile(String id, String camera) {
        ExportJobs e = exportJobs;
        if (e == null) return Future.failedFuture(new NoSuchElementException("no export " + id));
        try {
            return Future.succeededFuture(e.file(id, camera));
        } catch (RuntimeException refused) {
            return Future.failedFuture(refused);
        }
    }

    /** Keeps what the detector saw in {@code camera}'s frames (those with a detection) for playback. */
    private void logDetectionsOf(String camera) {
        if (detectionLog == null || detectionConsumers.containsKey(camera)) return;
        detectionConsumers.put(camera, vertx.eventBus().<JsonObject>localConsumer(
                io.argus.pipeline.base.Addresses.detections(camera), m -> onDetections(camera, m.body())));
    }

    private void onDetections(String camera, JsonObject message) {
        JsonArray detections = message.getJsonArray("detections");
        if (detections == null || detections.isEmpty()) return;
        JsonArray boxes = new JsonArray();
        for (Object o : detections) {
            if (!(o instanceof JsonObject d) || d.getJsonObject("box") == null) continue;
            JsonObject b = d.getJsonObject("box");
            JsonObject track = d.getJsonObject("track");
            // [class, confidence, x, y, w, h, track id or null]: compact, 25 rows a second per camera
            boxes.add(new JsonArray().add(d.getString("className")).add(d.getValue("confidence")).add(b.getValue("x"))
                    .add(b.getValue("y")).add(b.getValue("w")).add(b.getValue("h")).add(track == null ? null : track.getValue("id")));
        }
        List<DetectionLog.Frame> frames = unwrittenFrames.computeIfAbsent(camera, c -> new java.util.ArrayList<>());
        if (frames.size() >= DETECTIONS_BUFFERED) return;   // the disk is behind: these boxes are not kept
        frames.add(new DetectionLog.Frame(Math.round(message.getDouble("captureTime", 0.0)), message.getInteger("width", 0),
                message.getInteger("height", 0), boxes.encode()));
    }

    private void flushDetections() {
        if (unwrittenFrames.values().stream().allMatch(List::isEmpty)) return;
        Map<String, List<DetectionLog.Frame>> batch = new java.util.HashMap<>();
        unwrittenFrames.forEach((camera, frames) -> {
            if (!frames.isEmpty()) batch.put(camera, List.copyOf(frames));
            frames.clear();
        });
        DetectionLog d = detectionLog;
        vertx.executeBlocking(() -> {
            batch.forEach(d::append);
            return null;
        }).onFailure(e -> log.log(Level.WARNING, "recordings: " + e.getMessage()));
    }

    /** At stop: what is still buffered. */
    private void writeDetections() {
        DetectionLog d = detectionLog;
        if (d == null) return;
        unwrittenFrames.forEach((camera, frames) -> {
            try {
                d.append(camera, List.copyOf(frames));
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "recordings: " + e.getMessage());
            }
        });
    }

    /** Deletes the oldest clips beyond {@link #CLIPS_KEPT}. */
    private static void keepNewestClips(Path dir) throws IOException {
        List<Path> clips;
        try (var files = Files.list(dir)) {
            clips = files.filter(f -> f.getFileName().toString().endsWith(".mp4")).sorted((a, b) -> {
                try {
                    return Files.getLastModifiedTime(b).compareTo(Files.getLastModifiedTime(a));
                } catch (IOException e) {
                    return 0;
                }
            }).toList();
        }
        for (int k = CLIPS_KEPT; k < clips.size(); k++) Files.deleteIfExists(clips.get(k));
    }

    @Override
    public Future<Path> file(String name) {
        SegmentIndex i = index;
        if (i == null) return Future.failedFuture(new IllegalArgumentException("recordings are not open"));
        return vertx.executeBlocking(() -> {
            Path f = i.layout().file(name);
            if (!Files.isRegularFile(f)) throw new java.util.NoSuchElementException("no segment " + name);
            return f;
        });
    }

    @Override
    public Future<JsonObject> status() {
        SegmentIndex i = index;
        return vertx.executeBlocking(() -> {
            JsonObject cameras = new JsonObject();
            Map<String, Long> bytes = i != null ? i.bytesByCamera() : Map.of();
            recorders.forEach((id, r) -> {
                CameraRecorder.Stats s = r.stats();
                cameras.put(id, new JsonObject().put("state", s.state()).put("received", s.received())
                        .put("written", s.written()).put("droppedQueueFull", s.droppedQueueFull())
                        .put("skippedWaitingKeyframe", s.skippedWaitingKeyframe()).put("lostToErrors", s.lostToErrors())
                        .put("segments", s.segments()).put("lastError", s.lastError())
                        .put("bytesStored", bytes.getOrDefault(id, 0L)));
            });
            JsonArray deleted;
            synchronized (lastDeletions) {
                deleted = new JsonArray(List.copyOf(lastDeletions));
            }
            long free = free();   // asked now (one statfs): a disk that fills between retention rounds shows at once
            return new JsonObject().put("recording", i != null).put("error", openFailure).put("dir", settings.dir().toString())
                    .put("bytes", bytes.values().stream().mapToLong(Long::longValue).sum())
                    .put("maxBytes", settings.maxBytes()).put("freeBytes", free)
                    .put("diskFilling", free >= 0 && free < settings.warnFreeBytes())
                    .put("cameras", cameras).put("lastDeletions", deleted);
        });
    }

    private long free() {
        try {
            return Files.getFileStore(settings.dir()).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    private void retention() {
        SegmentIndex i = index;
        if (i == null) return;
        vertx.executeBlocking(() -> {
            Map<String, Retention.CameraRule> perCamera = new java.util.HashMap<>();
            rules.forEach((id, r) -> perCamera.put(id, new Retention.CameraRule(r.retainDays(), r.maxBytes())));
            List<Retention.Deletion> gone = Retention.enforce(i, new Retention.Rules(settings.maxBytes(),
                    settings.keepFreeBytes(), perCamera), System.currentTimeMillis(), this::free);
            freeBytes = free();
            DetectionLog boxes = detectionLog;
            if (boxes != null) {
                // boxes live as long as the pictures they were seen in
                for (String camera : boxes.cameras()) {
                    List<Segment> oldest = i.segments(camera, Long.MIN_VALUE, Long.MAX_VALUE, 1);   // the one being written too
                    boxes.deleteBefore(camera, oldest.isEmpty() ? Long.MAX_VALUE : oldest.get(0).startMs());
                }
            }
            if (!gone.isEmpty()) {
                log.log(Level.INFO, "recordings: retention deleted {0} segment(s), the oldest {1} ({2})", gone.size(),
                        gone.get(0).segment().name(), gone.get(0).reason());
            }
            synchronized (lastDeletions) {
                for (Retention.Deletion d : gone) {
                    lastDeletions.addFirst(new JsonObject().put("segment", d.segment().name()).put("reason", d.reason()));
                    while (lastDeletions.size() > DELETIONS_KEPT) lastDeletions.removeLast();
                }
            }
            if (freeBytes >= 0 && freeBytes < settings.warnFreeBytes()) {
                log.log(Level.WARNING, "recordings: {0} bytes free in {1}, under warnFreeBytes {2}", freeBytes,
                        settings.dir(), settings.warnFreeBytes());
            }
            return null;
        }).onFailure(e -> log.log(Level.WARNING, "recordings: retention failed: " + e.getMessage()));
    }
}
