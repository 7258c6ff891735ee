package io.argus.pipeline.events;

import io.argus.detector.Box;
import io.argus.detector.io.AtomicFile;
import io.argus.pipeline.base.Addresses;
import io.argus.pipeline.base.Addresses.CameraNotice;
import io.argus.pipeline.base.Addresses.RulesChanged;
import io.argus.pipeline.base.ArgusMetrics;
import io.argus.pipeline.base.EventPicture;
import io.argus.pipeline.base.RequestRefused;
import io.argus.pipeline.base.ServiceCall;
import io.argus.pipeline.camera.CameraStatus;
import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.cluster.ClusterMaps;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.EventSettings;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.SceneRulesJson;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.recording.Recordings;
import io.argus.tracking.ObjectEvent;
import io.argus.tracking.SceneRules;
import io.argus.tracking.SceneWatch;
import io.argus.tracking.Tracked;
import io.argus.tracking.Zone;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tracks become events (docs/tracking.md): for each camera this node runs, its tracked detection messages go through
 * the camera's {@link SceneWatch} (zones, lines, inertia, loitering), and what happens is published as events
 * ({@code argus.events}, cluster-wide, and {@code argus.events.local} for the MQTT output) and count changes
 * ({@code argus.counts}, {@code argus.counts.local}). Each event gets the best snapshot of its object (the dashboard
 * snapshot where it was most confident). Every node also keeps the recent events of every camera for
 * {@code /api/events}, and answers for zones, lines and counts, which live in cluster-wide maps (a plain local map on a
 * single node): a camera's new owner after a failover finds its rules and totals there. It is the
 * {@link EventQueries}.
 */
public final class EventsVerticle extends AbstractVerticle implements EventQueries {
    private static final Logger LOG = Logger.getLogger(EventsVerticle.class.getName());
    private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

    /** One camera this node runs: its rules applied to its tracks, its counts and its events' snapshots. */
    private final class Camera {
        final String id;
        final SceneWatch watch;
        final CountBook counts;
        final BestSnapshots best;
        /** Open events by track id: which event a snapshot's detection belongs to. */
        final Map<Long, String> eventOfTrack = new HashMap<>();
        /** Lines each open event's object crossed so far ({@code crossedLines}, what /api/events?line= filters on). */
        final Map<Long, Set<String>> linesOfTrack = new HashMap<>();
        final List<MessageConsumer<?>> consumers = new ArrayList<>();
        /** Its series (events, zone and line counts), removed with it. */
        final ArgusMetrics.Group meters = metrics.group();
        final Map<String, io.micrometer.core.instrument.Counter> eventCounters = new HashMap<>();
        final Map<String, AtomicLong> gauges = new HashMap<>();
        /**
         * Detections are looked at only once the totals kept in the cluster are in (a failover: the counts go on from
         * there rather than being overwritten by them); the first frames of a camera on its new node pass unwatched.
         */
        boolean restored;

        Camera(String id, SceneRules rules) {
            this.id = id;
            this.watch = new SceneWatch(id, rules);
            this.counts = new CountBook(id);
            this.best = new BestSnapshots(settings.snapshotsPerCamera());
        }
    }

    private final EventSettings settings;
    private final Map<String, SceneRules> configured = new HashMap<>();
    private final Path rulesDir;
    private final Cameras here;
    private final Cameras known;
    private final Snapshots snapshots;
    /** Whether a camera is recorded here, and its clips' pre- and post-roll. */
    private final Recordings recordings;
    private final ArgusMetrics metrics;
    private final Function<String, List<String>> classesOf;
    private final Map<String, Camera> cameras = new HashMap<>();
    private final EventHistory history;
    private ArgusMetrics.Group meters;
    /** The change of each camera's rules under way, if any (entries leave when done: bounded by the requests in flight). */
    private final Map<String, Future<?>> saving = new HashMap<>();
    private AsyncMap<String, JsonObject> rulesMap;
    private AsyncMap<String, JsonObject> countsMap;

    /**
     * @param configuredCameras the config file's cameras, whose zones and lines apply until REST changes them
     * @param rulesDir          where REST changes to zones and lines are kept across restarts (one file per camera)
     * @param here              this node's cameras: those it follows
     * @param known             who knows every camera ({@code here} alone, the cluster-wide list in a cluster): zones and
     *                          lines are kept for known cameras only
     * @param classesOf         a model's class names by model id (null: unknown): a zone or line may only name classes
     *                          of its camera's model
     */
    public EventsVerticle(EventSettings settings, List<CameraConfig> configuredCameras, Path rulesDir, Cameras here,
                          Cameras known, Snapshots snapshots, ArgusMetrics metrics, Function<String, List<String>> classesOf,
                          Recordings recordings) {
        this.settings = settings;
        this.recordings = recordings;
        for (CameraConfig c : configuredCameras) configured.put(c.id(), c.scene());
        this.rulesDir = rulesDir;
        this.here = here;
        this.known = known;
        this.snapshots = snapshots;
        this.metrics = metrics;
        this.classesOf = classesOf;
        this.history = new EventHistory(settings.history());
    }

    @Override
    public void start(Promise<Void> started) {
        meters = metrics.group();
        metrics.gauge(meters, "argus.events.history", "Events kept for /api/events", history::size);
        metrics.gauge(meters, "argus.events.forgotten", "Events forgotten by the history's bound", history::forgotten);
        vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> history.record(m.body()));
        vertx.eventBus().consumer(Addresses.SCENE_RULES_CHANGED, m -> {
            RulesChanged changed;
            try {
                changed = RulesChanged.from(m.body());
            } catch (IllegalArgumentException e) {
                LOG.log(Level.FINE, "a notice of changed zones and lines ignored: " + e.getMessage());
                return;
            }
            reloadRules(changed.camera());
        });
        vertx.eventBus().consumer(Addresses.SCENE_RULES_FORGOTTEN, m -> {
            try {
                forgetHere(RulesChanged.from(m.body()).camera());
            } catch (IllegalArgumentException e) {
                LOG.log(Level.FINE, "a notice of forgotten zones and lines ignored: " + e.getMessage());
            }
        });
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CAMERA_EVENTS, m -> {
            CameraNotice notice = CameraNotice.from(m.body());
            if (notice.change() == CameraNotice.Change.ADDED) follow(notice.camera());
            else unfollow(notice.camera());
        });
        // sealed and validated in a cluster (ClusterMaps): what a stranger writes there reads as absent
        Future.all(ClusterMaps.sceneRules(vertx).onSuccess(m -> rulesMap = m), ClusterMaps.counts(vertx).onSuccess(m -> countsMap = m))
                .compose(v -> here.list()
                        .map(list -> {
                            for (CameraStatus c : list) follow(c.id());
                            return (Void) null;
                        })
                        .recover(e -> Future.succeededFuture()))   // no cameras yet: the supervisor announces them
                .<Void>mapEmpty().onComplete(started);
    }

    @Override
    public void stop() {
        for (String id : new ArrayList<>(cameras.keySet())) unfollow(id);
        if (meters != null) meters.close();
    }

    // ---- cameras this node runs ------------------------------------------------------------------------------

    private void follow(String camera) {
        if (camera == null || cameras.containsKey(camera)) return;
        Camera c = new Camera(camera, SceneRules.NONE);
        cameras.put(camera, c);
        c.consumers.add(vertx.eventBus().<JsonObject>localConsumer(Addresses.detections(camera), m -> onDetections(c, m.body())));
        c.consumers.add(vertx.eventBus().<JsonObject>localConsumer(Addresses.snapshots(camera), m -> onSnapshot(c, m.body())));
        rules(camera).onSuccess(r -> {
            if (cameras.get(camera) == c) c.watch.setRules(r);
        });
        // the totals the cluster kept (a failover, or a restart of a single node's map: nothing then)
        countsMap.get(camera).onComplete(ar -> {
            if (cameras.get(camera) != c) return;
            if (ar.succeeded()) c.counts.restore(ar.result());
            else LOG.log(Level.WARNING, "counts of camera " + camera + " kept in the cluster could not be read; counting from 0: " + ar.cause());
            c.restored = true;
        });
    }

    private void unfollow(String camera) {
        Camera c = cameras.remove(camera);
        if (c == null) return;
        c.consumers.forEach(MessageConsumer::unregister);
        c.meters.close();
    }

    /**
     * The camera's rules: the cluster's map (a REST change), else one kept in this node's file, else those the camera
     * is defined with now (the REST body that added it, or the config file's, which a camera re-added over REST under
     * the id of the file's replaces), else (a camera not run on this node) the config file's, else none.
     */
    private Future<SceneRules> rules(String camera) {
        return rulesMap.get(camera).compose(json -> {
            if (json != null) return Future.succeededFuture(SceneRulesJson.fromJson(json, "cameras." + camera));
            return kept(camera).compose(kept -> {
                if (kept != null) return Future.succeededFuture(kept);
                return here.get(camera).map(status -> defined(status.json()))
                        .recover(e -> Future.succeededFuture(configured.getOrDefault(camera, SceneRules.NONE)));
            });
        });
    }

    /**
     * The rules kept in this node's file for {@code camera}, or null when there is none (or it cannot be used: said in
     * the log). Read with Vert.x's asynchronous file system: the event loop never waits for the disk.
     */
    private Future<SceneRules> kept(String camera) {
        Path file = rulesFile(camera);
        if (file == null) return Future.succeededFuture(null);
        String path = file.toString();
        return vertx.fileSystem().exists(path).compose(exists -> !exists ? Future.<SceneRules>succeededFuture(null)
                : vertx.fileSystem().readFile(path).map(b -> SceneRulesJson.fromJson(new JsonObject(b), path))
                        .otherwise(e -> {
                            LOG.log(Level.WARNING, "zones and lines of camera " + camera + " in " + file + " not used: " + e.getMessage());
                            return null;
                        }));
    }

    /**
     * Succeeds when {@code camera} is one Argus knows, else fails with 404: zones and lines are kept for real cameras
     * only, so a request can neither create files for made-up ids nor fill the cluster's map with them. While the list
     * of cameras cannot answer (a start, a cluster in trouble) a camera of the config file counts, any other is 503.
     */
    private Future<String> knownCamera(String camera) {
        return known.get(camera).map(CameraStatus::model)
                .recover(e -> {
                    if (RequestRefused.statusOf(e) == 404) {
                        return Future.failedFuture(RequestRefused.notFound("no camera " + Names.quoted(camera)
                                + ": zones and lines belong to a camera (add it first: POST /api/cameras)"));
                    }
                    if (configured.containsKey(camera)) return Future.succeededFuture(null);
                    return Future.failedFuture(new RequestRefused(503, "cannot tell now whether camera "
                            + Names.quoted(camera) + " exists (" + e.getMessage() + "); try again"));
                });
    }

    /** The rules in a camera's description ({@link CameraConfig#toJson}). */
    private static SceneRules defined(JsonObject camera) {
        JsonObject rules = new JsonObject();
        for (String k : new String[]{"zones", "lines", "anchor"}) if (camera.getValue(k) != null) rules.put(k, camera.getValue(k));
        return SceneRulesJson.fromJson(rules, "cameras." + camera.getString("id"));
    }

    /** {@code <rulesDir>/<camera>.json}, checked to be a file of that directory (the id is a name, never a path). */
    private Path rulesFile(String camera) {
        return rulesDir == null ? null : Names.fileIn(rulesDir, "camera id", camera, ".json");
    }

    private void reloadRules(String camera) {
        Camera c = cameras.get(camera);
        if (c == null) return;
        rules(camera).onSuccess(r -> {
            if (cameras.get(camera) != c) return;
            c.watch.setRules(r);
            Set<String> zoneIds = new HashSet<>();
            for (Zone z : r.zones()) zoneIds.add(z.id());
            List<JsonObject> emptied = c.counts.emptyZonesExcept(zoneIds);
            for (JsonObject count : emptied) publishCount(c, count);
            if (!emptied.isEmpty()) countsMap.put(c.id, c.counts.toJson());
        });
    }

    // ---- detections to events ----------------------------------------------------------------------------------

    private void onDetections(Camera c, JsonObject message) {
        if (!c.restored) return;
        List<Tracked> objects = new ArrayList<>();
        for (Object o : message.getJsonArray("detections", new JsonArray())) {
            if (!(o instanceof JsonObject d)) continue;
            JsonObject track = d.getJsonObject("track");
            if (track == null || track.getInteger("age", 0) < settings.minTrackFrames()) continue;
            JsonObject b = track.getJsonObject("box", d.getJsonObject("box"));   // the tracker's steadier box
            objects.add(new Tracked(track.getLong("id"), d.getInteger("classId"), d.getString("className"),
                    d.getFloat("confidence"), new Box(b.getFloat("x"), b.getFloat("y"), b.getFloat("w"), b.getFloat("h"))));
        }
        List<Long> ended = new ArrayList<>();
        for (Object o : message.getJsonArray("tracksEnded", new JsonArray())) ended.add(((Number) o).longValue());
        List<ObjectEvent> events = c.watch.update(message.getDouble("captureTime"), message.getInteger("width"),
                message.getInteger("height"), objects, ended);
        for (ObjectEvent e : events) publishEvent(c, ObjectEventJson.toJson(e));
    }

    private void publishEvent(Camera c, JsonObject event) {
        String id = event.getString("id");
        long track = event.getLong("trackId");
        Set<String> crossed = c.linesOfTrack.computeIfAbsent(track, t -> new java.util.TreeSet<>());
        for (Object o : event.getJsonArray("change", new JsonArray())) {
            if (o instanceof JsonObject change && change.getString("line") != null) crossed.add(change.getString("line"));
        }
        event.put("crossedLines", new JsonArray(new ArrayList<>(crossed)));
        // the evidence: the object cut out of its best snapshot, and the recording around it (when the camera records)
        event.put("crop", "/api/events/" + id + "/crop.jpg");
        Number end = (Number) event.getValue("end");
        JsonObject clip = recordings.clipReference(c.id, id, Math.round(event.getDouble("start")),
                end == null ? -1 : Math.round(end.doubleValue()));
        if (clip != null) event.put("clip", clip);
        else event.putNull("clip");
        if ("end".equals(event.getString("kind"))) {
            c.eventOfTrack.remove(track);
            c.linesOfTrack.remove(track);
        } else {
            c.eventOfTrack.put(track, id);
        }
        vertx.eventBus().publish(Addresses.EVENTS, event);
        vertx.eventBus().publish(Addresses.EVENTS_LOCAL, event, LOCAL);
        countEvent(c, event.getString("kind"));
        List<JsonObject> changed = c.counts.apply(event);
        for (JsonObject count : changed) publishCount(c, count);
        if (!changed.isEmpty()) countsMap.put(c.id, c.counts.toJson());
    }

    private void publishCount(Camera c, JsonObject count) {
        vertx.eventBus().publish(Addresses.COUNTS, count);
        vertx.eventBus().publish(Addresses.COUNTS_LOCAL, count, LOCAL);
        gaugeCount(c, count);
    }

    /** A snapshot notice: its tracked objects may have a better picture than their events kept so far. */
    private void onSnapshot(Camera c, JsonObject notice) {
        for (Object o : notice.getJsonArray("detections", new JsonArray())) {
            if (!(o instanceof JsonObject d) || d.getJsonObject("track") == null) continue;
            String event = c.eventOfTrack.get(d.getJsonObject("track").getLong("id"));
            float confidence = d.getFloat("confidence", 0f);
            if (event == null || !c.best.wants(event, confidence)) continue;
            Snapshots.Snapshot s = snapshots.get(c.id, notice.getLong("frame"));
            JsonObject b = d.getJsonObject("box");
            if (s != null && b != null) {
                c.best.offer(event, confidence, s.frame(), s.jpeg(), s.width(),
                        new Box(b.getFloat("x"), b.getFloat("y"), b.getFloat("w"), b.getFloat("h")));
            }
        }
    }

    // ---- requests ---------------------------------------------------------------------------------------------

    @Override
    public Future<JsonObject> events(EventHistory.Query query) {
        return ServiceCall.on(context, () -> Future.succeededFuture(history.page(query)));
    }

    @Override
    public Future<JsonObject> event(String id) {
        return ServiceCall.on(context, () -> {
            JsonObject e = history.get(Names.require("event id", id, Names.DERIVED_MAX));
            if (e == null) {
                return Future.failedFuture(RequestRefused.notFound("no event \"" + id + "\" (kept: the last "
                        + settings.history() + ")"));
            }
            return Future.succeededFuture(e);
        });
    }

    /**
     * Asked by REST or, for a camera that runs here, by another node (cluster/NodeSnapshots). The box is drawn or the
     * object cut out on a worker (decoding and encoding a JPEG takes milliseconds, too long for the event loop).
     */
    @Override
    public Future<byte[]> picture(String eventId, EventPicture kind) {
        return ServiceCall.on(context, () -> {
            String id = Names.require("event id", eventId, Names.DERIVED_MAX);
            Camera c = cameras.get(ObjectEvent.cameraOf(id));
            BestSnapshots.Best b = c == null ? null : c.best.get(id);
            if (b == null) {
                return Future.failedFuture(new RequestRefused(c == null ? 421 : 404, "no snapshot of event \"" + id + "\""
                        + (c == null ? " on this node (its camera runs elsewhere)" : " (none taken while it was seen, or forgotten)")));
            }
            return switch (kind) {
                case CLEAN -> Future.succeededFuture(b.jpeg());
                case SNAPSHOT -> vertx.executeBlocking(() -> EventPictures.withBox(b.jpeg(), b.frameWidth(), b.box()), false);
                case CROP -> vertx.executeBlocking(() -> EventPictures.crop(b.jpeg(), b.frameWidth(), b.box()), false);
            };
        });
    }

    @Override
    public Future<JsonObject> counts(String camera) {
        return ServiceCall.on(context, () -> {
            if (camera != null) {
                return countsMap.get(camera).map(c -> c != null ? c : new JsonObject().put("cameraId", camera)
                        .put("zones", new JsonArray()).put("lines", new JsonArray()));
            }
            return countsMap.entries().map(all -> {
                JsonArray out = new JsonArray();
                all.keySet().stream().sorted().forEach(k -> out.add(all.get(k)));
                return new JsonObject().put("cameras", out);
            });
        });
    }

    @Override
    public Future<JsonArray> rules(String camera, RulePart part) {
        return ServiceCall.on(context, () -> {
            Names.require("camera id", camera);
            return knownCamera(camera).compose(model -> rules(camera)).map(r -> part(SceneRulesJson.toJson(r), part))
                    .recover(e -> Future.failedFuture(failure(e, "")));
        });
    }

    private static JsonArray part(JsonObject rules, RulePart part) {
        return rules.getJsonArray(part.key(), new JsonArray());
    }

    /**
     * Replaces a camera's zones or lines: checked (a 400 names the bad field; an unknown camera is 404), kept in this
     * node's file for restarts, then put in the cluster's map, then the camera's owner is told to reload. The file
     * comes first and is written whole or not at all ({@link AtomicFile}): when it cannot be written (a full disk:
     * 507) the request fails with the reason and the old rules stay everywhere, file, map and the cameras' watches.
     */
    @Override
    public Future<JsonArray> setRules(String camera, RulePart part, JsonArray list) {
        return ServiceCall.on(context, () -> {
            Names.require("camera id", camera);
            // one change of a camera's rules at a time: a PUT of zones and one of lines at once must not undo each other
            Future<JsonObject> saved = saving.getOrDefault(camera, Future.succeededFuture())
                    .transform(previous -> change(camera, part.key(), list));
            saving.put(camera, saved);
            saved.onComplete(ar -> saving.remove(camera, saved));
            return saved.map(stored -> {
                        vertx.eventBus().publish(Addresses.SCENE_RULES_CHANGED, new RulesChanged(camera).toJson());
                        return part(stored, part);
                    })
                    .recover(e -> Future.failedFuture(failure(e, part.key() + " of camera " + Names.quoted(camera)
                            + " not saved, the previous ones stay: ")));
        });
    }

    /**
     * A camera deleted over REST takes its zones, lines and counts with it: the file, the cluster's map entries. A camera
     * added later under the same id starts from its own definition, never from rules drawn for the one before.
     */
    @Override
    public Future<Void> forget(String camera) {
        return ServiceCall.on(context, () -> {
            Names.require("camera id", camera);
            Path file = rulesFile(camera);
            Future<Void> forgotten = saving.getOrDefault(camera, Future.succeededFuture())
                    .transform(previous -> file == null ? Future.<Void>succeededFuture()
                            : vertx.<Void>executeBlocking(() -> {
                                Files.deleteIfExists(file);
                                return null;
                            }))
                    .compose(v -> rulesMap.remove(camera)).compose(v -> countsMap.remove(camera)).mapEmpty();
            saving.put(camera, forgotten);
            forgotten.onComplete(ar -> saving.remove(camera, forgotten));
            return forgotten.onSuccess(v -> {
                        vertx.eventBus().publish(Addresses.SCENE_RULES_CHANGED, new RulesChanged(camera).toJson());
                        vertx.eventBus().publish(Addresses.SCENE_RULES_FORGOTTEN, new RulesChanged(camera).toJson());
                    })
                    .recover(e -> Future.failedFuture(failure(e, "zones and lines of camera " + Names.quoted(camera)
                            + " not forgotten: ")));
        });
    }

    /**
     * Another node deleted {@code camera}: this node's file of its rules goes too, unless the cluster's map has rules of
     * the camera again (a camera of that id added and drawn on since: the file is then the newer rules' copy).
     */
    private void forgetHere(String camera) {
        Path file = rulesFile(camera);
        if (file == null) return;
        Future<Void> forgotten = saving.getOrDefault(camera, Future.succeededFuture())
                .transform(previous -> rulesMap.get(camera))
                .compose(current -> current != null ? Future.<Void>succeededFuture() : vertx.<Void>executeBlocking(() -> {
                    Files.deleteIfExists(file);
                    return null;
                }));
        saving.put(camera, forgotten);
        forgotten.onComplete(ar -> {
            saving.remove(camera, forgotten);
            if (ar.failed()) LOG.log(Level.WARNING, "zones and lines of deleted camera " + camera + " left in " + file + ": " + ar.cause());
        });
    }

    /** The camera's rules with {@code part} replaced by {@code list}, checked and kept; what was kept. */
    private Future<JsonObject> change(String camera, String part, JsonArray list) {
        return knownCamera(camera).compose(model -> rules(camera).compose(current -> {
            JsonObject json = SceneRulesJson.toJson(current).put(part, list);
            SceneRules checked;
            try {
                checked = SceneRulesJson.fromJson(json, camera);
                requireModelClasses(camera, model, part, checked);
            } catch (ConfigException | IllegalArgumentException e) {
                return Future.failedFuture(new IllegalArgumentException(e.getMessage()));
            } catch (RequestRefused e) {
                return Future.failedFuture(e);
            }
            JsonObject stored = SceneRulesJson.toJson(checked);
            return keep(camera, stored).map(stored);
        }));
    }

    /**
     * Every class a zone or line of {@code part} names must be one the camera's model detects: a zone watching for
     * "person" on a model without that class would never count anything, and nobody would be told. 400 naming the
     * entry and listing the model's classes (bounded). Unchecked when the model is not known here (a camera of a
     * model this node does not load, or the camera list cannot answer now).
     */
    private void requireModelClasses(String camera, String model, String part, SceneRules rules) {
        List<String> classes = model == null ? null : classesOf.apply(model);
        if (classes == null) return;
        Set<String> known = new HashSet<>(classes);
        boolean zones = part.equals(RulePart.ZONES.key());
        int count = zones ? rules.zones().size() : rules.lines().size();
        for (int i = 0; i < count; i++) {
            List<String> named = zones ? rules.zones().get(i).classes() : rules.lines().get(i).classes();
            for (int k = 0; k < named.size(); k++) {
                if (known.contains(named.get(k))) continue;
                String field = part + "[" + i + "].classes[" + k + "]";
                throw RequestRefused.notOneOf(400, field, field + ": model " + Names.quoted(model) + " of camera "
                        + Names.quoted(camera) + " has no class " + Names.quoted(named.get(k)), classes);
            }
        }
    }

    /**
     * Writes {@code rules} to the camera's file (on a worker), then to the cluster's map. Should the map refuse them, the
     * file is put back as it was, so that a restart does not bring back rules nobody saw.
     */
    private Future<Void> keep(String camera, JsonObject rules) {
        Path file = rulesFile(camera);
        if (file == null) return rulesMap.put(camera, rules);
        return vertx.executeBlocking(() -> {
            byte[] previous = Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
            AtomicFile.writeString(file, rules.encodePrettily());
            return Optional.ofNullable(previous);
        }).compose(previous -> rulesMap.put(camera, rules).recover(e -> vertx.executeBlocking(() -> {
            if (previous.isPresent()) AtomicFile.write(file, previous.get());
            else Files.deleteIfExists(file);
            return null;
        }).transform(restored -> Future.failedFuture(e))));
    }

    /**
     * A failed request's refusal: its own status (400, 404...), a bad value 400, a full disk 507 (Insufficient
     * Storage), anything else 500; always with the reason, after {@code context} when the fault is the server's.
     */
    private static RequestRefused failure(Throwable e, String context) {
        int status = RequestRefused.statusOf(e);
        if (status != 500) return e instanceof RequestRefused r ? r : new RequestRefused(status, e.getMessage(), e);
        return new RequestRefused(diskFull(e) ? 507 : 500, context + e.getMessage(), e);
    }

    private static boolean diskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof FileSystemException fs && fs.getReason() != null && fs.getReason().contains("No space left")) return true;
        }
        return false;
    }

    // ---- metrics ----------------------------------------------------------------------------------------------

    private void countEvent(Camera c, String kind) {
        c.eventCounters.computeIfAbsent(kind, k -> metrics.counter(c.meters, "argus.events",
                "Tracked-object events published by this node, by camera and kind", "camera", c.id, "kind", kind)).increment();
    }

    /** Prometheus: objects inside each zone and crossings of each line, per camera and class. */
    private void gaugeCount(Camera c, JsonObject count) {
        String camera = count.getString("cameraId");
        String cls = count.getString("className");
        if (count.containsKey("zone")) {
            String zone = count.getString("zone");
            gauge(c, "argus.zone.objects", "Objects inside a zone now", count.getLong("count"), "camera", camera, "zone", zone, "class", cls);
            gauge(c, "argus.zone.entries", "Objects that entered a zone", count.getLong("entered"), "camera", camera, "zone", zone, "class", cls);
        } else {
            String line = count.getString("line");
            gauge(c, "argus.line.crossings", "Line crossings", count.getLong("in"), "camera", camera, "line", line, "class", cls, "direction", "in");
            gauge(c, "argus.line.crossings", "Line crossings", count.getLong("out"), "camera", camera, "line", line, "class", cls, "direction", "out");
        }
    }

    private void gauge(Camera c, String name, String description, long value, String... tags) {
        c.gauges.computeIfAbsent(name + String.join("\u0000", tags), k -> {
            AtomicLong v = new AtomicLong();
            metrics.gauge(c.meters, name, description, v::get, tags);
            return v;
        }).set(value);
    }
}
