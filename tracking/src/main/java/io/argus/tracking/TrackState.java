package io.argus.tracking;

import io.argus.detector.Box;

/**
 * What {@link ByteTracker} says about one detection: the confirmed track it belongs to.
 *
 * @param id        the track's id, from 1 per tracker (per camera); kept while the object is lost and re-found
 * @param classId   the track's class: the detection's class when tracking per class; otherwise the class its
 *                  detections scored most for (confidence summed), so one mislabelled frame does not flip it
 * @param ageFrames frames since the track's first detection (0 on that frame), lost frames included
 * @param vx        velocity of the box centre along x, source pixels per second (Kalman estimate)
 * @param vy        velocity of the box centre along y, source pixels per second (image y grows downwards)
 * @param box       the track's box after this frame (the Kalman estimate, source pixels): steadier than the detection's
 *                  box, whose edges jitter from frame to frame; what zones and lines watch, so that an object standing
 *                  on a zone's edge does not flap in and out with its detector's noise
 */
public record TrackState(long id, int classId, int ageFrames, double vx, double vy, Box box) {}
