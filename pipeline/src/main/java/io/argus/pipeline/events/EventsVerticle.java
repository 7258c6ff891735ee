package io.argus.pipeline.events;

import io.argus.detector.Box;
import io.argus.pipeline.app.Addresses;
import io.argus.pipeline.app.ArgusMetrics;
import io.argus.pipeline.cluster.ClusterMaps;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.publish.Snapshots;
import io.argus.pipeline.tracking.ObjectEvent;
import io.argus.pipeline.tracking.SceneRules;
import io.argus.pipeline.tracking.SceneWatch;
import io.argus.pipeline.tracking.Tracked;
import io.argus.pipeline.tracking.Zone;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tracks become events (docs/tracking.md): for each camera this node runs, its tracked detection messages go through
 * the camera's {@link SceneWatch} (zones, lines, inertia, loitering), and what happens is published as events
 * ({@code argus.events}, cluster-wide, and {@code argus.events.local} for the MQTT output) and count changes
 * ({@code argus.counts}, {@code argus.counts.local}). Each event gets the best snapshot of its object (the dashboard
 * snapshot where it was most confident). Every node also keeps the recent events of every camera for
 * {@code /api/events}, and answers for zones, lines and counts, which live in cluster-wide maps (a plain local map on a
 * single node): a camera's new owner after a failover finds its rules and totals there.
 */
public final class EventsVerticle extends AbstractVerticle {
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
    private final Snapshots snapshots;
    private final ArgusMetrics metrics;
    private final Map<String, Camera> cameras = new HashMap<>();
    private final EventHistory history;
    private final Map<String, io.micrometer.core.instrument.Counter> eventCounters = new HashMap<>();
    private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
    private ArgusMetrics.Group meters;
    private AsyncMap<String, JsonObject> rulesMap;
    private AsyncMap<String, JsonObject> countsMap;

    /**
     * @param configuredCameras the config file's cameras, whose zones and lines apply until REST changes them
     * @param rulesDir          where REST changes to zones and lines are kept across restarts (one file per camera)
     */
    public EventsVerticle(EventSettings settings, List<CameraConfig> configuredCameras, Path rulesDir, Snapshots snapshots,
                          ArgusMetrics metrics) {
        this.settings = settings;
        for (CameraConfig c : configuredCameras) configured.put(c.id(), c.scene());
        this.rulesDir = rulesDir;
        this.snapshots = snapshots;
        this.metrics = metrics;
        this.history = new EventHistory(settings.history());
    }

    @Override
    public void start(Promise<Void> started) {
        meters = metrics.group();
        metrics.gauge(meters, "argus.events.history", "Events kept for /api/events", history::size);
        metrics.gauge(meters, "argus.events.forgotten", "Events forgotten by the history's bound", history::forgotten);
        vertx.eventBus().<JsonObject>localConsumer(Addresses.EVENTS_CONTROL, this::control);
        vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> history.record(m.body()));
        vertx.eventBus().<JsonObject>consumer(Addresses.SCENE_RULES_CHANGED, m -> reloadRules(m.body().getString("camera")));
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CAMERA_EVENTS, m -> {
            String id = m.body().getString("id");
            if ("added".equals(m.body().getString("event"))) follow(id);
            else unfollow(id);
        });
        // sealed and validated in a cluster (ClusterMaps): what a stranger writes there reads as absent
        Future.all(ClusterMaps.sceneRules(vertx).onSuccess(m -> rulesMap = m), ClusterMaps.counts(vertx).onSuccess(m -> countsMap = m))
                .compose(v -> vertx.eventBus().<JsonArray>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "list"))
                        .map(reply -> {
                            for (Object o : reply.body()) follow(((JsonObject) o).getString("id"));
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
        if (c != null) c.consumers.forEach(MessageConsumer::unregister);
    }

    /**
     * The camera's rules: the cluster's map (a REST change), else one kept in this node's file, else those the camera
     * was defined with (the config file, or the REST body that added it), else none.
     */
    private Future<SceneRules> rules(String camera) {
        return rulesMap.get(camera).compose(json -> {
            if (json != null) return Future.succeededFuture(SceneRules.fromJson(json, "cameras." + camera));
            Path file = rulesFile(camera);
            if (file != null && Files.isRegularFile(file)) {
                try {
                    return Future.succeededFuture(SceneRules.fromJson(new JsonObject(Files.readString(file)), file.toString()));
                } catch (Exception e) {
                    LOG.log(Level.WARNING, "zones and lines of camera " + camera + " in " + file + " not used: " + e.getMessage());
                }
            }
            if (configured.containsKey(camera)) return Future.succeededFuture(configured.get(camera));
            return vertx.eventBus().<JsonObject>request(Addresses.CAMERA_CONTROL, new JsonObject().put("action", "get").put("id", camera))
                    .map(reply -> defined(reply.body()))
                    .otherwise(SceneRules.NONE);
        });
    }

    /** The rules in a camera's description ({@link CameraConfig#toJson}). */
    private static SceneRules defined(JsonObject camera) {
        JsonObject rules = new JsonObject();
        for (String k : new String[]{"zones", "lines", "anchor"}) if (camera.getValue(k) != null) rules.put(k, camera.getValue(k));
        return SceneRules.fromJson(rules, "cameras." + camera.getString("id"));
    }

    private Path rulesFile(String camera) {
        return rulesDir == null ? null : rulesDir.resolve(camera + ".json");
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
        for (ObjectEvent e : events) publishEvent(c, e.toJson());
    }

    private void publishEvent(Camera c, JsonObject event) {
        String id = event.getString("id");
        long track = event.getLong("trackId");
        Set<String> crossed = c.linesOfTrack.computeIfAbsent(track, t -> new java.util.TreeSet<>());
        for (Object o : event.getJsonArray("change", new JsonArray())) {
            if (o instanceof JsonObject change && change.getString("line") != null) crossed.add(change.getString("line"));
        }
        event.put("crossedLines", new JsonArray(new ArrayList<>(crossed)));
        if ("end".equals(event.getString("kind"))) {
            c.eventOfTrack.remove(track);
            c.linesOfTrack.remove(track);
        } else {
            c.eventOfTrack.put(track, id);
        }
        vertx.eventBus().publish(Addresses.EVENTS, event);
        vertx.eventBus().publish(Addresses.EVENTS_LOCAL, event, LOCAL);
        countEvent(c.id, event.getString("kind"));
        List<JsonObject> changed = c.counts.apply(event);
        for (JsonObject count : changed) publishCount(c, count);
        if (!changed.isEmpty()) countsMap.put(c.id, c.counts.toJson());
    }

    private void publishCount(Camera c, JsonObject count) {
        vertx.eventBus().publish(Addresses.COUNTS, count);
        vertx.eventBus().publish(Addresses.COUNTS_LOCAL, count, LOCAL);
        gaugeCount(count);
    }

    /** A snapshot notice: its tracked objects may have a better picture than their events kept so far. */
    private void onSnapshot(Camera c, JsonObject notice) {
        for (Object o : notice.getJsonArray("detections", new JsonArray())) {
            if (!(o instanceof JsonObject d) || d.getJsonObject("track") == null) continue;
            String event = c.eventOfTrack.get(d.getJsonObject("track").getLong("id"));
            float confidence = d.getFloat("confidence", 0f);
            if (event == null || !c.best.wants(event, confidence)) continue;
            Snapshots.Snapshot s = snapshots.get(c.id, notice.getLong("frame"));
            if (s != null) c.best.offer(event, confidence, s.frame(), s.jpeg());
        }
    }

    // ---- requests ---------------------------------------------------------------------------------------------

    private void control(Message<JsonObject> m) {
        JsonObject q = m.body();
        try {
            switch (q.getString("action", "")) {
                case "events" -> m.reply(history.page(EventHistory.Query.parse(q::getString)));
                case "event" -> {
                    JsonObject e = history.get(q.getString("id"));
                    if (e == null) m.fail(404, "no event \"" + q.getString("id") + "\" (kept: the last " + settings.history() + ")");
                    else m.reply(e);
                }
                case "snapshot" -> {
                    Camera c = cameras.get(ObjectEvent.cameraOf(q.getString("id")));
                    BestSnapshots.Best b = c == null ? null : c.best.get(q.getString("id"));
                    if (b == null) m.fail(c == null ? 421 : 404, "no snapshot of event \"" + q.getString("id") + "\""
                            + (c == null ? " on this node (its camera runs elsewhere)" : " (none taken while it was seen, or forgotten)"));
                    else m.reply(Buffer.buffer(b.jpeg()));
                }
                case "counts" -> counts(m, q.getString("camera"));
                case "get-rules" -> rules(q.getString("camera")).onSuccess(r -> m.reply(part(r.toJson(), q.getString("part"))))
                        .onFailure(e -> m.fail(500, e.getMessage()));
                case "set-rules" -> setRules(m, q.getString("camera"), q.getString("part"), q.getJsonArray("rules"));
                default -> m.fail(400, "unknown action \"" + q.getString("action") + "\"");
            }
        } catch (IllegalArgumentException e) {
            m.fail(400, e.getMessage());
        }
    }

    private static JsonArray part(JsonObject rules, String part) {
        return rules.getJsonArray(part, new JsonArray());
    }

    private void counts(Message<JsonObject> m, String camera) {
        if (camera != null) {
            countsMap.get(camera).onSuccess(c -> m.reply(c != null ? c : new JsonObject().put("cameraId", camera)
                    .put("zones", new JsonArray()).put("lines", new JsonArray()))).onFailure(e -> m.fail(500, e.getMessage()));
            return;
        }
        countsMap.entries().onSuccess(all -> {
            JsonArray out = new JsonArray();
            all.keySet().stream().sorted().forEach(k -> out.add(all.get(k)));
            m.reply(new JsonObject().put("cameras", out));
        }).onFailure(e -> m.fail(500, e.getMessage()));
    }

    /**
     * Replaces a camera's zones or lines: checked (a 400 names the bad field), put in the cluster's map, kept in a
     * file on this node for restarts, then the camera's owner is told to reload.
     */
    private void setRules(Message<JsonObject> m, String camera, String part, JsonArray list) {
        rules(camera).compose(current -> {
            JsonObject json = current.toJson().put(part, list);
            SceneRules checked;
            try {
                checked = SceneRules.fromJson(json, camera);
            } catch (ConfigException | IllegalArgumentException e) {
                return Future.failedFuture(new IllegalArgumentException(e.getMessage()));
            }
            JsonObject stored = checked.toJson();
            return rulesMap.put(camera, stored).compose(v -> vertx.executeBlocking(() -> {
                Path file = rulesFile(camera);
                if (file != null) {
                    Files.createDirectories(file.getParent());
                    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                    Files.writeString(tmp, stored.encodePrettily());
                    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
                return stored;
            }));
        }).onSuccess(stored -> {
            vertx.eventBus().publish(Addresses.SCENE_RULES_CHANGED, new JsonObject().put("camera", camera));
            m.reply(part(stored, part));
        }).onFailure(e -> m.fail(e instanceof IllegalArgumentException ? 400 : 500, e.getMessage()));
    }

    // ---- metrics ----------------------------------------------------------------------------------------------

    private void countEvent(String camera, String kind) {
        eventCounters.computeIfAbsent(camera + "\u0000" + kind, k -> metrics.counter(meters, "argus.events",
                "Tracked-object events published by this node, by camera and kind", "camera", camera, "kind", kind)).increment();
    }

    /** Prometheus: objects inside each zone and crossings of each line, per camera and class. */
    private void gaugeCount(JsonObject count) {
        String camera = count.getString("cameraId");
        String cls = count.getString("className");
        if (count.containsKey("zone")) {
            String zone = count.getString("zone");
            gauge("argus.zone.objects", "Objects inside a zone now", count.getLong("count"), "camera", camera, "zone", zone, "class", cls);
            gauge("argus.zone.entries", "Objects that entered a zone", count.getLong("entered"), "camera", camera, "zone", zone, "class", cls);
        } else {
            String line = count.getString("line");
            gauge("argus.line.crossings", "Line crossings", count.getLong("in"), "camera", camera, "line", line, "class", cls, "direction", "in");
            gauge("argus.line.crossings", "Line crossings", count.getLong("out"), "camera", camera, "line", line, "class", cls, "direction", "out");
        }
    }

    private void gauge(String name, String description, long value, String... tags) {
        gauges.computeIfAbsent(name + String.join("\u0000", tags), k -> {
            AtomicLong v = new AtomicLong();
            metrics.gauge(meters, name, description, v::get, tags);
            return v;
        }).set(value);
    }
}
