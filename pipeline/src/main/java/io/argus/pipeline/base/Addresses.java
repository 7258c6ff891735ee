package io.argus.pipeline.base;

import io.argus.pipeline.config.Names;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/**
 * Every event-bus address and what travels on it: the catalogue. The bus carries what is broadcast (detections,
 * snapshot notices, tracked-object events and counts, camera and training notices) and what nodes of a cluster ask
 * each other; in-process requests are typed services, not messages ({@code DatasetService}, {@code
 * ModelRegistryService}, {@code TrainingService}, {@code ModelControl}, {@code Cameras}, {@code EventQueries}). Each
 * address below says who publishes or asks, whether it stays on the node (local) or crosses the cluster, and the shape
 * of its messages: a record of this file with its JSON form ({@code toJson}) and its reading ({@code from}, which checks
 * what it reads), a record of its own file named here, or a JSON document whose schema the docs give (those go to
 * browsers as they are). Frames stay on the node; detections, events and snapshots may cross the cluster. One
 * address is not here: {@code argus.cluster.handover.<node>}, where a node that stops hands a camera over warm to its
 * heir ({@code {"camera": id}}), private to {@code cluster/CameraOwnership}.
 */
public final class Addresses {
    private Addresses() {}

    // ---- the live pipeline ---------------------------------------------------------------------------------------

    /**
     * Frames for one model's batcher (local; {@code frames/VideoFrame}, by reference through its local codec
     * {@code frames/FrameCodec}: a frame is never copied or sent to another node).
     */
    public static String frames(String model) { return "argus.frames." + model; }

    /**
     * Detection messages of one camera (JSON, published by the node that runs it, clustered; schema in
     * docs/pipeline.md, made by {@code publish/DetectionMessage}).
     */
    public static String detections(String camera) { return "argus.detections." + camera; }

    /**
     * Snapshot notices of one camera: a JPEG is available at the given URL, with its frame's detections (JSON,
     * clustered; made by {@code publish/Snapshots}).
     */
    public static String snapshots(String camera) { return "argus.snapshots." + camera; }

    // ---- cameras -------------------------------------------------------------------------------------------------

    /** This node's cameras added or removed ({@link CameraNotice}, local; published by {@code camera/CameraSupervisor}). */
    public static final String CAMERA_EVENTS = "argus.cameras.events";

    /**
     * Cameras added to or removed from the cluster-wide list, as this node noticed ({@link CameraNotice}, local;
     * published by {@code cluster/CameraOwnership}).
     */
    public static final String CLUSTER_CAMERA_EVENTS = "argus.cluster.cameras.events";

    /**
     * Starting and stopping this node's cameras from {@code cluster/CameraOwnership} (local request and reply, the only
     * in-process request left on the bus: {@code {"action": "add"|"pause"|"remove", "id", "camera": {definition}}},
     * the camera's description as the reply, a failure's HTTP status as its code). Everything else asks
     * {@code camera/Cameras}.
     */
    public static final String CAMERA_CONTROL = "argus.control.cameras";

    /**
     * One node's cameras, asked by the other nodes (clustered request and reply, {@link NodeCameraRequest}): get, pause
     * and resume of a camera that runs there; the reply is its description (JSON), a failure's HTTP status its code.
     */
    public static String nodeCameras(String node) { return "argus.control.node." + node + ".cameras"; }

    // ---- tracked-object events ---------------------------------------------------------------------------------------

    /**
     * Tracked-object events of every camera (JSON {@code {"type": "event", ...}}, docs/tracking.md; made by
     * {@code events/ObjectEventJson}), published by the node that runs the camera; clustered: every node's WebSocket
     * gateway and event history see every camera's events.
     */
    public static final String EVENTS = "argus.events";

    /** Count changes of every camera ({@code {"type": "count", ...}}, docs/tracking.md); clustered like {@link #EVENTS}. */
    public static final String COUNTS = "argus.counts";

    /** This node's own cameras' events only (local, as {@link #EVENTS}): what the MQTT output publishes, once per cluster. */
    public static final String EVENTS_LOCAL = "argus.events.local";

    /** This node's own cameras' count changes only (local, as {@link #COUNTS}), for the MQTT output. */
    public static final String COUNTS_LOCAL = "argus.counts.local";

    /** A camera's zones and lines changed ({@link RulesChanged}, clustered publish): its owner reloads them. */
    public static final String SCENE_RULES_CHANGED = "argus.scenes.changed";

    /**
     * A camera was deleted and its zones and lines with it ({@link RulesChanged}, clustered publish): every node deletes
     * the copy it kept in its own file, so that none brings them back for a later camera of that id.
     */
    public static final String SCENE_RULES_FORGOTTEN = "argus.scenes.forgotten";

    /**
     * The cluster's record of run-time camera changes changed ({@code {"node": <the node that changed it>}}, clustered
     * publish): every node copies the record to its own file (cluster/ClusterChanges).
     */
    public static final String CAMERA_CHANGES = "argus.camera-changes.changed";

    // ---- online training -----------------------------------------------------------------------------------------

    /**
     * Online-training progress ({@link TrainingEvent}, local; docs/online-training.md): what the dataset, the trainer
     * and the registry did; the dashboard follows it, and {@code cluster/ModelVersionSync} announces swaps from it.
     */
    public static final String TRAINING_EVENTS = "argus.training.events";

    // ---- between the nodes of a cluster --------------------------------------------------------------------------------

    /**
     * A node's snapshots, asked by the other nodes (clustered request; {@code cluster/SnapshotQuery}, its JSON and its
     * checked reading; the reply a JPEG {@code Buffer} with its frame number in the {@code frame} header, see
     * {@code cluster/NodeSnapshots}).
     */
    public static String nodeSnapshots(String node) { return "argus.node." + node + ".snapshots"; }

    /**
     * A node's kept weights, asked by the other nodes chunk by chunk (clustered request {@code {"model", "version",
     * "offset"}}, read and checked by {@code cluster/WeightsServer}; the reply a {@code Buffer} of at most 1 MiB with the
     * file's size in the {@code size} header).
     */
    public static String nodeWeights(String node) { return "argus.node." + node + ".weights"; }

    /**
     * A node's recordings, asked by the other nodes (clustered request; {@code cluster/RecordingQuery}, its JSON and its
     * checked reading): a camera's segments in a time range, a chunk of at most 1 MiB of a segment or of a clip made
     * for the asker (a {@code Buffer}, the file's size in the {@code size} header), a range's or an event's clip made
     * there (see {@code cluster/NodeRecordings}).
     */
    public static String nodeRecordings(String node) { return "argus.node." + node + ".recordings"; }

    /**
     * A version of a model promoted on a node (clustered publish; {@code cluster/VersionAnnouncement}, its JSON and its
     * checked reading): every node fetches and adopts it ({@code cluster/ModelVersionSync}).
     */
    public static final String MODEL_VERSIONS = "argus.cluster.model-versions";

    // ---- the messages --------------------------------------------------------------------------------------------

    /** A camera added or removed: {@code {"event": "added"|"removed", "id": camera}}. */
    public record CameraNotice(Change change, String camera) {
        public enum Change { ADDED, REMOVED }

        public static CameraNotice added(String camera) { return new CameraNotice(Change.ADDED, camera); }

        public static CameraNotice removed(String camera) { return new CameraNotice(Change.REMOVED, camera); }

        public JsonObject toJson() {
            return new JsonObject().put("event", change.name().toLowerCase(Locale.ROOT)).put("id", camera);
        }

        /** A notice as published; an {@link IllegalArgumentException} for anything else. */
        public static CameraNotice from(Object body) {
            if (!(body instanceof JsonObject j) || !(j.getValue("id") instanceof String id)) {
                throw new IllegalArgumentException("camera notice: expected {\"event\": \"added\"|\"removed\", \"id\"}, found "
                        + Names.quoted(String.valueOf(body)));
            }
            return switch (String.valueOf(j.getValue("event"))) {
                case "added" -> added(id);
                case "removed" -> removed(id);
                default -> throw new IllegalArgumentException("camera notice: event: expected added or removed, found "
                        + Names.quoted(String.valueOf(j.getValue("event"))));
            };
        }
    }

    /** A camera's zones or lines changed: {@code {"camera": id}}. */
    public record RulesChanged(String camera) {
        public JsonObject toJson() { return new JsonObject().put("camera", camera); }

        /** A notice from the cluster, its camera checked to be a name; an {@link IllegalArgumentException} otherwise. */
        public static RulesChanged from(Object body) {
            Object camera = body instanceof JsonObject j ? j.getValue("camera") : null;
            return new RulesChanged(Names.require("camera", camera instanceof String s ? s : null));
        }
    }

    /**
     * What online training did: {@code {"type": "training", "event", "model", ...details}}. The events and their
     * details: {@code frame-collected} ({@code frame}), {@code labels-changed} ({@code frame}), {@code frame-deleted}
     * ({@code id}), {@code run-started} ({@code run}), {@code iteration} ({@code run}, {@code iteration}, {@code of},
     * {@code loss}, ...), {@code evaluated} ({@code run}, {@code mapBefore}, {@code mapAfter}, {@code accept},
     * {@code reason}), {@code run-finished} ({@code run}), {@code swapped} and {@code rolled-back} ({@code version}: the
     * version as the REST API shows it, with {@code origin} for adopted weights).
     *
     * @param details the event's own fields, as docs/online-training.md lists them
     */
    public record TrainingEvent(String event, String model, JsonObject details) {
        public static TrainingEvent of(String event, String model) { return new TrainingEvent(event, model, new JsonObject()); }

        /** The same event with one more detail. */
        public TrainingEvent with(String key, Object value) { return with(new JsonObject().put(key, value)); }

        /** The same event with {@code more} details. */
        public TrainingEvent with(JsonObject more) {
            return new TrainingEvent(event, model, details.copy().mergeIn(more));
        }

        public JsonObject toJson() {
            return new JsonObject().put("type", "training").put("event", event).put("model", model).mergeIn(details);
        }

        /** An event as published; an {@link IllegalArgumentException} for anything else. */
        public static TrainingEvent from(Object body) {
            if (!(body instanceof JsonObject j) || !"training".equals(j.getValue("type"))
                    || !(j.getValue("event") instanceof String event) || !(j.getValue("model") instanceof String model)) {
                throw new IllegalArgumentException("training event: expected {\"type\": \"training\", \"event\", \"model\", ...},"
                        + " found " + Names.quoted(String.valueOf(body)));
            }
            JsonObject details = j.copy();
            details.remove("type");
            details.remove("event");
            details.remove("model");
            return new TrainingEvent(event, model, details);
        }
    }

    /** Another node's request for a camera that runs here: {@code {"action": "get"|"pause"|"resume", "id": camera}}. */
    public record NodeCameraRequest(Action action, String camera) {
        public enum Action { GET, PAUSE, RESUME }

        public JsonObject toJson() {
            return new JsonObject().put("action", action.name().toLowerCase(Locale.ROOT)).put("id", camera);
        }

        /**
         * A request from the cluster: an action of the three, a camera id that is a name; an
         * {@link IllegalArgumentException} naming what is wrong otherwise.
         */
        public static NodeCameraRequest from(Object body) {
            if (!(body instanceof JsonObject j)) throw new IllegalArgumentException("not relayed: expected a JSON object");
            String action = String.valueOf(j.getValue("action"));
            Action a = switch (action) {
                case "get" -> Action.GET;
                case "pause" -> Action.PAUSE;
                case "resume" -> Action.RESUME;
                default -> throw new IllegalArgumentException("not relayed: " + Names.quoted(action));
            };
            Object id = j.getValue("id");
            return new NodeCameraRequest(a, Names.require("camera id", id instanceof String s ? s : null));
        }
    }
}
