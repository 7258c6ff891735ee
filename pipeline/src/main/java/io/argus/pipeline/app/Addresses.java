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

    /** Camera control (request/reply): list, get, add, remove, pause, resume. */
    public static final String CAMERA_CONTROL = "argus.control.cameras";

    /** Camera added/removed notices: {"event": "added"|"removed", "id": ...}. */
    public static final String CAMERA_EVENTS = "argus.cameras.events";
}
