package io.argus.pipeline.cluster;

import io.argus.pipeline.base.EventPicture;
import io.argus.pipeline.config.Names;
import io.argus.tracking.ObjectEvent;
import io.vertx.core.json.JsonObject;

/**
 * What one node asks another for ({@link NodeSnapshots}): one JPEG of a camera that runs there, either its latest
 * snapshot, the snapshot of one frame, or the best snapshot of one tracked-object event. The asking node builds it
 * from a REST path; the answering node reads it back with {@link #from}, which checks every field, because a request
 * from the cluster is as hostile as one from the network until checked.
 *
 * @param camera the camera's id
 * @param frame  the frame's number, or null (the latest snapshot, or an event's)
 * @param event  a tracked-object event's id ({@code <camera>-<track>-<seconds>}), or null
 * @param picture which picture of the event's best snapshot (null unless an event's)
 */
public record SnapshotQuery(String camera, Long frame, String event, EventPicture picture) {
    /** The camera's latest snapshot. */
    public static SnapshotQuery latest(String camera) { return new SnapshotQuery(camera, null, null, null); }

    /** The snapshot of one frame of the camera. */
    public static SnapshotQuery frame(String camera, long frame) { return new SnapshotQuery(camera, frame, null, null); }

    /** A picture of the best snapshot of an event of the camera. */
    public static SnapshotQuery event(String camera, String event, EventPicture picture) {
        return new SnapshotQuery(camera, null, event, picture);
    }

    /**
     * This query when every field is well formed, else an {@link IllegalArgumentException} naming the field, what was
     * expected and what was found.
     */
    public SnapshotQuery checked() {
        Names.require("camera id", camera);
        if (frame != null && frame < 0) {
            throw new IllegalArgumentException("frame: expected a frame number of 0 or more, found " + frame);
        }
        if (event != null) {
            Names.require("event id", event, Names.DERIVED_MAX);
            if (frame != null) {
                throw new IllegalArgumentException("frame: an event's snapshot is asked by the event id alone, found a frame too");
            }
            if (!camera.equals(ObjectEvent.cameraOf(event))) {
                throw new IllegalArgumentException("event id: expected an event of camera " + Names.quoted(camera) + ", found "
                        + Names.quoted(event));
            }
        }
        return this;
    }

    public JsonObject toJson() {
        JsonObject j = new JsonObject().put("camera", camera);
        if (frame != null) j.put("frame", frame);
        if (event != null) j.put("event", event).put("picture", (picture == null ? EventPicture.SNAPSHOT : picture).jsonName());
        return j;
    }

    /** A request from another node, checked ({@link #checked}); anything else than a JSON object is refused too. */
    public static SnapshotQuery from(Object body) {
        if (!(body instanceof JsonObject j)) {
            throw new IllegalArgumentException("expected a JSON object {\"camera\", \"frame\"?, \"event\"?}, found "
                    + (body == null ? "nothing" : body.getClass().getSimpleName()));
        }
        Object camera = j.getValue("camera");
        Object frame = j.getValue("frame");
        Object event = j.getValue("event");
        Object picture = j.getValue("picture");
        if (camera != null && !(camera instanceof String)) {
            throw new IllegalArgumentException("camera id: expected a string, found " + Names.quoted(String.valueOf(camera)));
        }
        if (frame != null && !(frame instanceof Integer || frame instanceof Long)) {
            throw new IllegalArgumentException("frame: expected a whole number, found " + Names.quoted(String.valueOf(frame)));
        }
        if (event != null && !(event instanceof String)) {
            throw new IllegalArgumentException("event id: expected a string, found " + Names.quoted(String.valueOf(event)));
        }
        if (picture != null && (!(picture instanceof String) || event == null)) {
            throw new IllegalArgumentException("picture: expected snapshot, clean or crop with an event, found "
                    + Names.quoted(String.valueOf(picture)));
        }
        EventPicture which = event == null ? null : picture == null ? EventPicture.SNAPSHOT : EventPicture.parse((String) picture);
        return new SnapshotQuery((String) camera, frame != null ? ((Number) frame).longValue() : null, (String) event, which).checked();
    }

    /** For messages: "camera "cam"", "frame 12 of camera "cam"", "event "cam-3-17"". */
    public String describe() {
        if (event != null) return "event " + Names.quoted(event);
        return (frame != null ? "frame " + frame + " of " : "") + "camera " + Names.quoted(camera);
    }
}
