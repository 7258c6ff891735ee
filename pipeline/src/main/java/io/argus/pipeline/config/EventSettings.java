package io.argus.pipeline.config;


/**
 * The {@code events:} section. history: events every node keeps for {@code /api/events} (the oldest forgotten
 * first, counted); snapshotsPerCamera: best snapshots kept per camera (JPEGs on the camera's node; 0: none);
 * minTrackFrames: frames a track must have before it makes events (0: from its first confirmed frame), so a flicker
 * of false detections raises nothing.
 */
public record EventSettings(int history, int snapshotsPerCamera, int minTrackFrames) {
    public static final EventSettings DEFAULTS = new EventSettings(10_000, 50, 3);

    public static EventSettings read(ConfigNode n) {
        int history = n.integer("history", DEFAULTS.history(), 1, 10_000_000);
        int snapshots = n.integer("snapshotsPerCamera", DEFAULTS.snapshotsPerCamera(), 0, 100_000);
        int minFrames = n.integer("minTrackFrames", DEFAULTS.minTrackFrames(), 0, 10_000);
        n.finish();
        return new EventSettings(history, snapshots, minFrames);
    }
}
