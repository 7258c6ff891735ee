package io.argus.pipeline.recording;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.recording.CameraRecorder;
import io.argus.recording.ClipWriter;
import io.argus.recording.DetectionLog;
import io.argus.recording.EventLog;
import io.argus.recording.PacketSink;
import io.argus.recording.Retention;
import io.argus.recording.Segment;
import io.argus.recording.SegmentIndex;
import io.argus.recording.StorageLayout;
import io.argus.recording.Storages;
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
    /** Events buffered at most between two writes. */
    static final int EVENTS_BUFFERED = 1_000;

    private final ArgusConfig.Recording settings;
    private final Map<String, CameraConfig.Record> rules = new ConcurrentHashMap<>();
    private final Map<String, CameraRecorder> recorders = new ConcurrentHashMap<>();
    private final Deque<JsonObject> lastDeletions = new ArrayDeque<>();
    private final System.Logger log = System.getLogger("argus.recording");
    /** The main directory's index (clips, exports and the detection log live beside it). */
    private volatile SegmentIndex index;
    /** Every storage directory opened (the main one too); a camera records into the one its record.storage names. */
    private volatile Storages storages;
    private volatile DetectionLog detectionLog;
    /** The recorded cameras' events, kept as long as their segments (the timeline of the past). */
    private volatile EventLog eventLog;
    /** Events not yet written, by id (the latest state of each): written with the boxes, once a second. */
    private final Map<String, EventLog.Event> unwrittenEvents = new java.util.LinkedHashMap<>();
    /** Per recorded camera: its detection messages' consumer and the frames not yet written. */
    private final Map<String, MessageConsumer<JsonObject>> detectionConsumers = new ConcurrentHashMap<>();
    private final Map<String, List<DetectionLog.Frame>> unwrittenFrames = new ConcurrentHashMap<>();
    private long flushTimer = -1;
    private MessageConsumer<Object> eventConsumer;
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
                Storages all = Storages.open(settings.storages().stream()
                        .map(d -> new Storages.Dir(d.name(), d.dir())).toList());
                all.indexes().forEach((name, opened) -> {
                    SegmentIndex.Recovery r = opened.recovery();
                    if (!r.clean()) log.log(Level.WARNING, "recordings in {0}: index brought in line with the files: {1}", opened.layout().root(), r);
                    for (String u : r.unreadable()) log.log(Level.WARNING, "recordings: unreadable segment kept out of the index: {0}", u);
                });
                all.failures().forEach((name, why) -> log.log(wanted ? Level.ERROR : Level.WARNING, "recordings: storage {0}: {1}", name, why));
                storages = all;
                SegmentIndex opened = all.index(ArgusConfig.Recording.MAIN_STORAGE);
                if (opened == null) throw new IOException(all.failures().get(ArgusConfig.Recording.MAIN_STORAGE));
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
                try {
                    eventLog = EventLog.open(settings.dir());
                    if (eventLog.setAside() != null) {
                        log.log(Level.WARNING, "recordings: the event log could not be read ({0}): set aside, started again",
                                eventLog.setAside());
                    }
                } catch (IOException | RuntimeException e) {
                    // the recording goes on; the timeline shows only the events the history holds
                    log.log(Level.WARNING, "recordings: no event log in {0}: {1}", settings.dir(), e.getMessage());
                }
            } catch (IOException | RuntimeException e) {
                // detection does not wait for the disk: the cameras run, unrecorded, and the status says why
                openFailure = "cannot open the recordings in " + settings.dir() + ": " + e.getMessage();
                log.log(wanted ? Level.ERROR : Level.WARNING, openFailure);
            }
            return null;
        }).onSuccess(v -> {
            clipWriter = vertx.createSharedWorkerExecutor("argus-clips", 1);
            if (index != null) {
                // exports take turns with clips on the one clip writer; those with boxes re-encode for minutes, so on
                // a thread of their own (closed, and so interrupted, with this verticle's undeployment)
                WorkerExecutor burnIn = vertx.createSharedWorkerExecutor("argus-exports-burn-in", 1);
                Storages all = storages;
                exportJobs = new ExportJobs(settings.dir(), all::partsOf, work -> clipWriter.executeBlocking(() -> {
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
            eventConsumer = vertx.eventBus().localConsumer(io.argus.pipeline.base.Addresses.EVENTS_LOCAL, m -> onEvent(m.body()));
        });
    }

    @Override
    public Future<?> stop() {
        if (timer >= 0) vertx.cancelTimer(timer);
        if (flushTimer >= 0) vertx.cancelTimer(flushTimer);
        if (clipWriter != null) clipWriter.close();
        detectionConsumers.values().forEach(MessageConsumer::unregister);
        if (eventConsumer != null) eventConsumer.unregister();
        return vertx.executeBlocking(() -> {
            writeDetections();
            if (detectionLog != null) detectionLog.close();
            if (eventLog != null) eventLog.close();
            for (CameraRecorder r : recorders.values()) r.close();
            recorders.clear();
            if (storages != null) storages.close();
            return null;
        });
    }

    @Override
    public PacketSink sinkFor(CameraConfig camera) {
        rules.put(camera.id(), camera.record());
        if (!camera.record().on() || index == null) return PacketSink.NONE;
        SegmentIndex into = storeOf(camera);
        if (into == null) return PacketSink.NONE;   // its directory failed to open: the status says why
        context.runOnContext(v -> logDetectionsOf(camera.id()));
        return recorders.computeIfAbsent(camera.id(), id -> new CameraRecorder(id, into, settings.segmentSeconds() * 1000L,
                settings.queueBytes(), options(camera.record())));
    }

    /**
     * The index of the directory {@code camera} records into: the one its {@code record.storage} names, or the main one
     * when this node has no directory of that name (a camera that came from another node, or from a REST request,
     * is still recorded); null when that directory failed to open.
     */
    private SegmentIndex storeOf(CameraConfig camera) {
        String name = camera.record().storage();
        boolean known = settings.storages().stream().anyMatch(d -> d.name().equals(name));
        if (!known) {
            log.log(Level.WARNING, "recordings: camera {0} asks for storage {1}, which this node does not have: recorded in {2}",
                    camera.id(), name, ArgusConfig.Recording.MAIN_STORAGE);
            return index;
        }
        return storages.index(name);
    }

    /** A camera's {@code record:} as its recorder takes it; the pre-roll held in memory within the queue's budget. */
    private CameraRecorder.Options options(CameraConfig.Record r) {
        CameraRecorder.Mode mode = switch (r.mode()) {
            case "events" -> CameraRecorder.Mode.EVENTS;
            case "motion" -> CameraRecorder.Mode.MOTION;
            default -> CameraRecorder.Mode.CONTINUOUS;
        };
        return new CameraRecorder.Options(mode, r.preRollSeconds() * 1000L, r.postRollSeconds() * 1000L,
                r.motionThreshold(), r.motionArea() / 100.0, settings.queueBytes());
    }

    /**
     * An event of one of this node's cameras: a camera recorded in events mode records its span (the recorder adds the
     * rolls). Events come from the tracker on this node, but are still checked: a message without a camera, an id or
     * a start is ignored.
     */
    private void onEvent(Object body) {
        if (!(body instanceof JsonObject e)) return;
        String camera = e.getValue("cameraId") instanceof String c ? c : null;
        String id = e.getValue("id") instanceof String i ? i : null;
        if (camera == null || id == null || !(e.getValue("start") instanceof Number start)) return;
        CameraRecorder r = recorders.get(camera);
        if (r == null) return;
        long end = e.getValue("end") instanceof Number n ? Math.round(n.doubleValue()) : -1;
        if (r.options().mode() == CameraRecorder.Mode.EVENTS) r.around(id, Math.round(start.doubleValue()), end);
        if (eventLog != null && (unwrittenEvents.containsKey(id) || unwrittenEvents.size() < EVENTS_BUFFERED)) {
            unwrittenEvents.put(id, new EventLog.Event(id, camera, Math.round(start.doubleValue()), end, e.encode()));
        }
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
        Storages all = storages;
        if (index == null) return Future.succeededFuture(List.of());
        return vertx.executeBlocking(() -> all.segments(camera, fromMs, toMs, limit));
    }

    /** Segments closer than this are one span on the timeline (consecutive ones meet within a millisecond). */
    public static final long SPAN_GAP_MS = 1_000;

    @Override
    public Future<List<SegmentIndex.Span>> spans(String camera, long fromMs, long toMs, int limit) {
        Storages all = storages;
        if (index == null) return Future.succeededFuture(List.of());
        return vertx.executeBlocking(() -> all.spans(camera, fromMs, toMs, SPAN_GAP_MS, limit));
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
                w = ClipWriter.write(storages.partsOf(camera, fromMs, toMs), fromMs, toMs, file);
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
    public Future<JsonObject> cancelExport(String id) {
        ExportJobs e = exportJobs;
        if (e == null) return Future.failedFuture(new NoSuchElementException("no export " + id));
        try {
            return Future.succeededFuture(e.cancel(id));
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
        flushEvents();
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

    private void flushEvents() {
        EventLog events = eventLog;
        if (events == null || unwrittenEvents.isEmpty()) return;
        List<EventLog.Event> batch = List.copyOf(unwrittenEvents.values());
        unwrittenEvents.clear();
        vertx.executeBlocking(() -> {
            events.put(batch);
            return null;
        }).onFailure(e -> log.log(Level.WARNING, "recordings: " + e.getMessage()));
    }

    @Override
    public Future<List<EventLog.Event>> storedEvents(String camera, long fromMs, long toMs, int limit) {
        EventLog events = eventLog;
        if (events == null) return Future.succeededFuture(List.of());
        return vertx.executeBlocking(() -> events.between(camera, fromMs, toMs, limit));
    }

    @Override
    public Future<EventLog.Event> storedEvent(String id) {
        EventLog events = eventLog;
        if (events == null) return Future.failedFuture(new NoSuchElementException("no event log is open here"));
        return vertx.executeBlocking(() -> {
            EventLog.Event e = events.event(id);
            if (e == null) throw new NoSuchElementException("no event " + id + " is kept with the recordings");
            return e;
        });
    }

    /** At stop: what is still buffered. */
    private void writeDetections() {
        EventLog events = eventLog;
        if (events != null) {
            try {
                events.put(List.copyOf(unwrittenEvents.values()));
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "recordings: " + e.getMessage());
            }
        }
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
        Storages all = storages;
        if (index == null) return Future.failedFuture(new IllegalArgumentException("recordings are not open"));
        return vertx.executeBlocking(() -> all.file(name));
    }

    @Override
    public Future<JsonObject> status() {
        SegmentIndex i = index;
        Storages all = storages;
        return vertx.executeBlocking(() -> {
            // each directory read once: its bytes per camera (one query) and its free space asked now (one statfs: a
            // disk that fills between retention rounds shows at once)
            Map<String, Long> bytes = new java.util.HashMap<>();
            JsonArray dirs = new JsonArray();
            boolean anyFilling = false;
            long mainFree = -1;
            for (ArgusConfig.Recording.Storage d : settings.storages()) {
                SegmentIndex di = all == null ? null : all.index(d.name());
                Map<String, Long> held = di == null ? Map.of() : di.bytesByCamera();
                held.forEach((camera, b) -> bytes.merge(camera, b, Long::sum));
                long free = free(d.dir());
                if (d.name().equals(ArgusConfig.Recording.MAIN_STORAGE)) mainFree = free;
                boolean filling = free >= 0 && free < d.warnFreeBytes();
                anyFilling |= filling && di != null;
                String error = all == null ? openFailure : all.failures().get(d.name());
                dirs.add(new JsonObject().put("name", d.name()).put("dir", d.dir().toString()).put("open", di != null)
                        .put("error", error).put("bytes", held.values().stream().mapToLong(Long::longValue).sum())
                        .put("maxBytes", d.maxBytes()).put("freeBytes", free).put("diskFilling", filling));
            }
            JsonObject cameras = new JsonObject();
            recorders.forEach((id, r) -> {
                CameraRecorder.Stats s = r.stats();
                cameras.put(id, new JsonObject().put("mode", r.options().mode().name().toLowerCase(java.util.Locale.ROOT))
                        .put("storage", rules.getOrDefault(id, CameraConfig.Record.OFF).storage())
                        .put("state", s.state()).put("received", s.received())
                        .put("written", s.written()).put("droppedQueueFull", s.droppedQueueFull())
                        .put("skippedWaitingKeyframe", s.skippedWaitingKeyframe()).put("lostToErrors", s.lostToErrors())
                        .put("notRecorded", s.notRecorded()).put("preRollPackets", s.preRollPackets())
                        .put("segments", s.segments()).put("lastError", s.lastError())
                        .put("bytesStored", bytes.getOrDefault(id, 0L)));
            });
            JsonArray deleted;
            synchronized (lastDeletions) {
                deleted = new JsonArray(List.copyOf(lastDeletions));
            }
            return new JsonObject().put("recording", i != null).put("error", openFailure).put("dir", settings.dir().toString())
                    .put("bytes", bytes.values().stream().mapToLong(Long::longValue).sum())
                    .put("maxBytes", settings.maxBytes()).put("freeBytes", mainFree)
                    .put("diskFilling", anyFilling || (mainFree >= 0 && mainFree < settings.warnFreeBytes()))
                    .put("storage", dirs).put("cameras", cameras).put("lastDeletions", deleted);
        });
    }

    private static long free(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Each directory within its own budgets; every camera's age and size rules in each. */
    private void retention() {
        SegmentIndex i = index;
        Storages all = storages;
        if (i == null) return;
        vertx.executeBlocking(() -> {
            Map<String, Retention.CameraRule> perCamera = new java.util.HashMap<>();
            rules.forEach((id, r) -> perCamera.put(id, new Retention.CameraRule(r.retainDays(), r.maxBytes())));
            List<Retention.Deletion> gone = new java.util.ArrayList<>();
            for (ArgusConfig.Recording.Storage d : settings.storages()) {
                SegmentIndex di = all.index(d.name());
                if (di == null) continue;
                gone.addAll(Retention.enforce(di, new Retention.Rules(d.maxBytes(), d.keepFreeBytes(), perCamera),
                        System.currentTimeMillis(), () -> free(d.dir())));
                long left = free(d.dir());
                if (left >= 0 && left < d.warnFreeBytes()) {
                    log.log(Level.WARNING, "recordings: {0} bytes free in {1} (storage {2}), under warnFreeBytes {3}", left,
                            d.dir(), d.name(), d.warnFreeBytes());
                }
            }
            DetectionLog boxes = detectionLog;
            if (boxes != null) {
                // boxes live as long as the pictures they were seen in
                for (String camera : boxes.cameras()) {
                    List<Segment> oldest = all.segments(camera, Long.MIN_VALUE, Long.MAX_VALUE, 1);   // the one being written too
                    boxes.deleteBefore(camera, oldest.isEmpty() ? Long.MAX_VALUE : oldest.get(0).startMs());
                }
            }
            EventLog events = eventLog;
            if (events != null) {
                // events live as long as the recording they happened in
                for (String camera : events.cameras()) {
                    List<Segment> oldest = all.segments(camera, Long.MIN_VALUE, Long.MAX_VALUE, 1);
                    events.deleteBefore(camera, oldest.isEmpty() ? Long.MAX_VALUE : oldest.get(0).startMs());
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
            return null;
        }).onFailure(e -> log.log(Level.WARNING, "recordings: retention failed: " + e.getMessage()));
    }
}
