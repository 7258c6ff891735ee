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

    /** Collected frames and labels of the online trainer (request/reply, see training/DatasetVerticle). */
    public static final String DATASET_CONTROL = "argus.control.dataset";

    /** Fine-tune runs (request/reply, see training/TrainerVerticle). */
    public static final String TRAINING_CONTROL = "argus.control.training";

    /** Model versions and rollback (request/reply, see training/ModelRegistryVerticle). */
    public static final String REGISTRY_CONTROL = "argus.control.registry";

    /** Online-training progress (JSON, {"type": "training", "event": ...}; docs/online-training.md). */
    public static final String TRAINING_EVENTS = "argus.training.events";
}
