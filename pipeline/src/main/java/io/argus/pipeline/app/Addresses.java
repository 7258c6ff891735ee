package io.argus.pipeline.app;

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
}
