package io.argus.pipeline.base;

/** Event-bus addresses. Frames stay on the node; detections and snapshots may cross the cluster. */
public final class Addresses {
    private Addresses() {}

    /** Frames for one model's batcher (local only, {@link io.argus.pipeline.frames.FrameCodec}). */
    public static String frames(String model) { return "argus.frames." + model; }

    /** Detection messages of one camera (JSON, schema in docs/pipeline.md). */
    public static String detections(String camera) { return "argus.detections." + camera; }

    /** Snapshot notices of one camera: a JPEG is available at the given URL, with its frame's detections. */
    public static String snapshots(String camera) { return "argus.snapshots." + camera; }

    /** Control of one model's inference (request/reply): status, swap (see InferenceVerticle). */
    public static String modelControl(String model) { return "argus.control.model." + model; }

    /** Camera control (request/reply): list, get, add, remove, pause, resume. */
    public static final String CAMERA_CONTROL = "argus.control.cameras";

    /** Camera added/removed notices: {"event": "added"|"removed", "id": ...}. */
    public static final String CAMERA_EVENTS = "argus.cameras.events";

    /**
     * The cluster-wide camera list (request/reply, this node's consumer; see cluster/ClusterCamerasVerticle): list,
     * get, add, remove, pause, resume, nodes. Only in a cluster, where the REST camera routes go here.
     */
    public static final String CLUSTER_CAMERAS = "argus.control.cluster.cameras";

    /** Cameras added to or removed from the cluster-wide list, as this node noticed: {"event": "added"|"removed", "id"}. */
    public static final String CLUSTER_CAMERA_EVENTS = "argus.cluster.cameras.events";

    /** One node's {@link #CAMERA_CONTROL}, reachable from the other nodes (clustered consumer): get, pause, resume. */
    public static String nodeCameras(String node) { return "argus.control.node." + node + ".cameras"; }

    /** Collected frames and labels of the online trainer (request/reply, see training/DatasetVerticle). */
    public static final String DATASET_CONTROL = "argus.control.dataset";

    /** Fine-tune runs (request/reply, see training/TrainerVerticle). */
    public static final String TRAINING_CONTROL = "argus.control.training";

    /** Model versions and rollback (request/reply, see training/ModelRegistryVerticle). */
    public static final String REGISTRY_CONTROL = "argus.control.registry";

    /** Online-training progress (JSON, {"type": "training", "event": ...}; docs/online-training.md). */
    public static final String TRAINING_EVENTS = "argus.training.events";

    /**
     * Tracked-object events of every camera (JSON {"type": "event", ...}, docs/tracking.md), published by the node that
     * runs the camera; clustered: every node's WebSocket gateway and event history see every camera's events.
     */
    public static final String EVENTS = "argus.events";

    /** Count changes of every camera ({"type": "count", ...}, docs/tracking.md); clustered like {@link #EVENTS}. */
    public static final String COUNTS = "argus.counts";

    /** This node's own cameras' events only (local): what the MQTT output publishes, once per cluster. */
    public static final String EVENTS_LOCAL = "argus.events.local";

    /** This node's own cameras' count changes only (local), for the MQTT output. */
    public static final String COUNTS_LOCAL = "argus.counts.local";

    /**
     * Events, counts, zones and lines (request/reply, see events/EventsVerticle): events (a page), event, counts,
     * get-rules, set-rules, snapshot.
     */
    public static final String EVENTS_CONTROL = "argus.control.events";

    /** A camera's zones and lines changed (clustered publish of {"camera": id}): its owner reloads them. */
    public static final String SCENE_RULES_CHANGED = "argus.scenes.changed";

    /** The MQTT output's state and counters (request/reply, local; no handler when mqtt.enabled is false). */
    public static final String MQTT_CONTROL = "argus.control.mqtt";
}
