package io.argus.tracking;

/**
 * The knobs of {@link ByteTracker} (YAML {@code tracking:}, and per camera), named as in docs/tracking.md.
 *
 * @param highThreshold     detections scoring at least this are "high": they go to the first association and may
 *                          start tracks (ByteTrack's track_thresh, 0.5)
 * @param lowThreshold      "low" detections, in [lowThreshold, highThreshold), may only continue a track that is being
 *                          followed; below it a detection is ignored (0.1)
 * @param newTrackThreshold an unmatched high detection starts a track only from this score (ByteTrack's det_thresh,
 *                          track_thresh + 0.1 = 0.6)
 * @param matchThreshold    the first association's cost limit, cost = 1 - IoU: a pair costing more is never matched
 *                          (0.8, i.e. IoU at least 0.2)
 * @param trackBuffer       a track missing for more frames than this is removed (30: one second at 30 frames/s)
 * @param exitBuffer        a track lost at an edge of the frame while moving out through it is removed after this
 *                          many frames instead (5), when the frame's size is known: it left the view, and keeping it
 *                          would hand its id to the next object coming in there
 * @param perClass          associate detections only with tracks of their class, as if each class had its own tracker
 *                          (ids stay unique per camera); false lets a track change class
 */
public record TrackerSettings(double highThreshold, double lowThreshold, double newTrackThreshold,
                              double matchThreshold, int trackBuffer, int exitBuffer, boolean perClass) {

    /** ByteTrack's defaults (its MOT17 settings at 30 frames/s), per class. */
    public static final TrackerSettings DEFAULTS = new TrackerSettings(0.5, 0.1, 0.6, 0.8, 30, 5, true);

    public TrackerSettings {
        requireFraction("highThreshold", highThreshold);
        requireFraction("lowThreshold", lowThreshold);
        requireFraction("newTrackThreshold", newTrackThreshold);
        requireFraction("matchThreshold", matchThreshold);
        if (lowThreshold > highThreshold) {
            throw new IllegalArgumentException(
                    "lowThreshold (" + lowThreshold + ") must be <= highThreshold (" + highThreshold + ")");
        }
        if (trackBuffer < 0) throw new IllegalArgumentException("trackBuffer must be >= 0, found " + trackBuffer);
        if (exitBuffer < 0) throw new IllegalArgumentException("exitBuffer must be >= 0, found " + exitBuffer);
    }

    /** These settings with perClass changed. */
    public TrackerSettings withPerClass(boolean perClass) {
        return new TrackerSettings(
                highThreshold, lowThreshold, newTrackThreshold, matchThreshold, trackBuffer, exitBuffer, perClass);
    }

    /** These settings with trackBuffer changed. */
    public TrackerSettings withTrackBuffer(int trackBuffer) {
        return new TrackerSettings(
                highThreshold, lowThreshold, newTrackThreshold, matchThreshold, trackBuffer, exitBuffer, perClass);
    }

    private static void requireFraction(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1], found " + value);
        }
    }
}
