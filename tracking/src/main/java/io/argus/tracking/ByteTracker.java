package io.argus.tracking;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * ByteTrack (Zhang et al., ECCV 2022) for one camera: boxes of successive frames become tracks with ids.
 *
 * <p>Each frame, every track's Kalman filter predicts where its box is now; then, as the reference implementation
 * (yolox/tracker/byte_tracker.py) does:
 * <ol>
 *   <li>high-score detections are matched to the confirmed tracks (cost 1 - IoU, limit {@code matchThreshold}):
 *       first to those followed in the last frame, then, of the detections left, to the lost ones (the reference
 *       matches both in one assignment; see below); a lost track matched is re-found with its id;</li>
 *   <li>low-score detections are matched to the followed tracks still unmatched (limit 0.5): a weak, partly occluded
 *       box continues its track but never starts one; followed tracks still unmatched become lost;</li>
 *   <li>the remaining high detections are matched to the unconfirmed tracks, born last frame (limit 0.7): a match
 *       confirms the track and gives it its id, no match drops it;</li>
 *   <li>remaining high detections scoring at least {@code newTrackThreshold} start unconfirmed tracks, confirmed at
 *       once only on the tracker's first frame;</li>
 *   <li>lost tracks unmatched for more than {@code trackBuffer} frames are removed; a followed and a lost track with
 *       nearly the same box (IoU above 0.85) are one object twice: the younger goes, unless the lost one is hidden
 *       (see below).</li>
 * </ol>
 * With {@code perClass}, a detection is only matched to tracks of its class.
 *
 * <p>Rules the reference does not have (docs/tracking.md, "Where IDF1 is lost"):
 * <ul>
 *   <li>when the frame's size is known, a track lost while its box touched an edge of the frame and moved out through
 *       it has left the view, and is kept only {@code exitBuffer} frames instead of {@code trackBuffer}. Otherwise the
 *       filter, which sees the clipped box shrink and move at half the object's speed, keeps predicting it at the edge
 *       for a second, where the next object to come in that way takes over its id (the tracking video's object 5
 *       entering where 3 had left half a second earlier);</li>
 *   <li>a track lost while being hidden (its box had shrunk, or its score had fallen) is matched, while lost, at its
 *       {@link OccludedPath}: its last whole box moved on at its whole boxes' speed, not where the filter followed the
 *       shrinking part; such a track is kept {@link #HIDDEN_BUFFER_FACTOR} times {@code trackBuffer}, because its path
 *       only meets detections where its object has got to (the post hid objects of the tracking video for up to 35
 *       frames);</li>
 *   <li>a track whose detection also covers the predicted box of another track of its class, unmatched in this
 *       frame, goes on as predicted ({@link SharedBox}): a box over two crossing objects must not drag one track onto
 *       the other;</li>
 *   <li>a high-score detection over a track of its class matched in this frame starts no track ({@link DuplicateBox}):
 *       it is a second box of that object;</li>
 *   <li>the first association is a matching cascade (DeepSORT's, by time since the last match, in two levels):
 *       tracks followed in the last frame take their boxes before lost tracks may. A lost track's box is a guess (a
 *       prediction, or a hidden track's path) and a followed track's is fresh; in one assignment, a hidden track
 *       whose path crossed the object in front of it fitted that object's box better than the object's own track
 *       when the detector's box jumped, took it, and the two ids swapped (the tracking video's seed 20261502, two
 *       triangles in an X). Matching by frames since the last match level by level (1, 2, 3...) did the same as two
 *       levels on the 40 development seeds;</li>
 *   <li>a hidden lost track is never removed as a duplicate of a followed one: its box is its path, and where that
 *       path runs behind the object in front, it lies on that object's box without being that object (seed 20261507:
 *       the triangle behind lost its track, and its id, to ByteTrack's duplicate removal).</li>
 * </ul>
 *
 * <p>Ids are given when a track is confirmed, so the ids reported are 1, 2, 3... without the gaps that one-frame
 * false positives would leave; every id reported ends in {@link #removed()} once. Not thread-safe: one caller, the
 * camera's frames in order.
 */
public final class ByteTracker {
    /** The second association's cost limit (ByteTrack's 0.5): a low-score box must overlap its track well. */
    private static final double LOW_SCORE_MATCH_LIMIT = 0.5;
    /** The unconfirmed tracks' cost limit (ByteTrack's 0.7). */
    private static final double UNCONFIRMED_MATCH_LIMIT = 0.7;
    /** Above this IoU a followed and a lost track are one object (ByteTrack's remove_duplicate_stracks, 1 - 0.15). */
    private static final double DUPLICATE_IOU = 0.85;
    /** Weight of the newest interval in the smoothed frame interval (velocities in px/s). */
    private static final double INTERVAL_SMOOTHING = 0.1;
    /** A box this close to a frame edge (share of the frame's size, at least MIN_EDGE_MARGIN_PX) touches it. */
    private static final double EDGE_MARGIN = 0.01;
    private static final double MIN_EDGE_MARGIN_PX = 2;
    /** A track lost while hidden is kept this many times trackBuffer (45, 60 and 90 frames did alike at 30). */
    static final int HIDDEN_BUFFER_FACTOR = 2;

    private final TrackerSettings settings;
    /** Every track held: followed (confirmed or not) and lost. */
    private final List<Track> tracks = new ArrayList<>();
    private final List<Long> removed = new ArrayList<>();
    private long lastId;
    private int frame;
    private double lastTimeMs = Double.NaN;
    /** Smoothed time between updates, ms; 0 until two frames were seen. */
    private double msPerFrame;

    public ByteTracker(TrackerSettings settings) {
        this.settings = settings;
    }

    /**
     * One frame's detections (source pixels) at capture time timeMs (ms, increasing). Returns a list aligned with
     * detections: the TrackState of the confirmed track each detection belongs to, or null when it belongs to none (a
     * low-score detection no track wanted, a high-score one below newTrackThreshold, a track not yet confirmed, a box
     * without area).
     */
    public List<TrackState> update(List<Detection> detections, double timeMs) {
        return update(detections, timeMs, 0, 0);
    }

    /**
     * As {@link #update(List, double)}, for a frame of frameWidth x frameHeight pixels: tracks lost at its edges,
     * moving out, are let go after {@code exitBuffer} frames. A size of 0 means unknown (no track is taken as gone).
     */
    public List<TrackState> update(List<Detection> detections, double timeMs, int frameWidth, int frameHeight) {
        frame++;
        measureFrameInterval(timeMs);
        removed.clear();
        for (Track track : tracks) track.predict(frame);

        List<Candidate> high = new ArrayList<>();
        List<Candidate> low = new ArrayList<>();
        for (int i = 0; i < detections.size(); i++) {
            Detection d = detections.get(i);
            if (!hasArea(d.box())) continue;
            if (d.confidence() >= settings.highThreshold()) high.add(new Candidate(i, d));
            else if (d.confidence() >= settings.lowThreshold()) low.add(new Candidate(i, d));
        }

        List<Track> confirmed = new ArrayList<>();
        List<Track> unconfirmed = new ArrayList<>();
        for (Track track : tracks) (track.confirmed ? confirmed : unconfirmed).add(track);

        // 1. high-score detections with the confirmed tracks: those followed in the last frame first, then the lost
        // ones with the detections left (the matching cascade)
        List<Track> followed = new ArrayList<>();
        List<Track> lost = new ArrayList<>();
        for (Track track : confirmed) (track.status == Status.FOLLOWED ? followed : lost).add(track);
        List<Candidate> highLeft = match(followed, high, settings.matchThreshold());
        highLeft = match(lost, highLeft, settings.matchThreshold());

        // 2. low-score detections with the followed tracks still unmatched; the rest of those are lost now
        List<Track> followedUnmatched = new ArrayList<>();
        for (Track track : confirmed) {
            if (track.status == Status.FOLLOWED && !track.matched()) followedUnmatched.add(track);
        }
        match(followedUnmatched, low, LOW_SCORE_MATCH_LIMIT);
        // the matches of 1 and 2 are applied once every confirmed track's match is known: a box shared with a track
        // that got none is not followed
        applyMatches(confirmed);
        for (Track track : followedUnmatched) {
            if (track.matched()) continue;
            track.lose(track.lastScore < settings.highThreshold());
            track.leftTheView = leavingTheView(track, frameWidth, frameHeight);
        }

        // 3. the high ones left with the tracks born last frame: a match confirms, no match ends a false start
        highLeft = match(unconfirmed, highLeft, UNCONFIRMED_MATCH_LIMIT);
        applyMatches(unconfirmed);
        for (Track track : unconfirmed) {
            if (track.matched()) confirm(track);
            else tracks.remove(track);
        }

        // 4. new tracks from the high ones still left, but for second boxes of objects followed
        for (Candidate c : highLeft) {
            if (c.detection.confidence() < settings.newTrackThreshold()) continue;
            if (isAnotherBoxOfAMatchedTrack(c.detection)) continue;
            Track track = new Track(c, frame, settings.perClass());
            tracks.add(track);
            if (frame == 1) confirm(track);  // as the reference: on the first frame there is nothing to confirm against
        }

        // 5. lost too long; duplicates
        for (Track track : List.copyOf(tracks)) {
            if (track.status != Status.LOST) continue;
            int kept = track.leftTheView ? Math.min(settings.exitBuffer(), settings.trackBuffer())
                    : track.hidden != null ? HIDDEN_BUFFER_FACTOR * settings.trackBuffer()
                    : settings.trackBuffer();
            if (frame - track.lastMatchedFrame > kept) remove(track);
        }
        removeDuplicates();

        return statesOf(detections.size());
    }

    /**
     * Whether a track just lost was last seen going out of a frame of this size: its last matched box within
     * {@link #EDGE_MARGIN} of an edge and its centre moving towards that edge.
     */
    private static boolean leavingTheView(Track track, int frameWidth, int frameHeight) {
        if (frameWidth <= 0 || frameHeight <= 0) return false;
        Box b = track.lastMatchedBox;
        double mx = Math.max(MIN_EDGE_MARGIN_PX, EDGE_MARGIN * frameWidth);
        double my = Math.max(MIN_EDGE_MARGIN_PX, EDGE_MARGIN * frameHeight);
        double vx = track.filter.velocityXPerFrame(), vy = track.filter.velocityYPerFrame();
        return b.x() <= mx && vx < 0 || b.right() >= frameWidth - mx && vx > 0
                || b.y() <= my && vy < 0 || b.bottom() >= frameHeight - my && vy > 0;
    }

    /** Ids of tracks removed (lost longer than trackBuffer, or found twice) by the last update: objects gone. */
    public List<Long> removed() {
        return List.copyOf(removed);
    }

    /** Confirmed tracks held, followed or lost: the ids reported and not yet in {@link #removed()}. */
    public int activeTracks() {
        int n = 0;
        for (Track track : tracks) if (track.confirmed) n++;
        return n;
    }

    /**
     * Matches tracks with candidates at least cost and returns the candidates left; the matched tracks take their
     * detections in {@link #applyMatches}. Cost: 1 - IoU of the track's predicted box and the detection's; never across
     * classes when per class.
     */
    private List<Candidate> match(List<Track> pool, List<Candidate> candidates, double limit) {
        if (pool.isEmpty() || candidates.isEmpty()) return candidates;
        double[][] cost = new double[pool.size()][candidates.size()];
        for (int r = 0; r < pool.size(); r++) {
            Track track = pool.get(r);
            for (int c = 0; c < candidates.size(); c++) {
                Detection d = candidates.get(c).detection;
                cost[r][c] = settings.perClass() && d.classId() != track.classId()
                        ? Double.POSITIVE_INFINITY
                        : 1 - track.box.iou(d.box());
            }
        }
        int[] columnOf = Assignment.solve(cost, limit);
        boolean[] taken = new boolean[candidates.size()];
        for (int r = 0; r < pool.size(); r++) {
            if (columnOf[r] == Assignment.UNASSIGNED) continue;
            pool.get(r).match(candidates.get(columnOf[r]));
            taken[columnOf[r]] = true;
        }
        List<Candidate> left = new ArrayList<>();
        for (int c = 0; c < candidates.size(); c++) if (!taken[c]) left.add(candidates.get(c));
        return left;
    }

    /**
     * Each track of the pool matched in this frame takes its detection: its filter is corrected with it, unless the
     * box is shared with another track of its class that got none ({@link SharedBox}); then it goes on as predicted.
     * A hidden track found again starts afresh on its box in any case (it is no longer where the filter was), and a
     * track born last frame, not yet confirmed, has no velocity to go on with.
     */
    private void applyMatches(List<Track> pool) {
        List<Track> unmatched = new ArrayList<>();
        for (Track track : pool) if (!track.matched()) unmatched.add(track);
        for (Track track : pool) {
            Candidate c = track.pending;
            if (c == null) continue;
            if (track.confirmed && track.hidden == null && sharesItsBox(track, c.detection.box(), unmatched)) {
                track.coast(c, frame);
            } else {
                track.update(c, frame);
            }
        }
    }

    /** Whether the box matched to track also holds the object of one of the unmatched tracks (of its class). */
    private boolean sharesItsBox(Track track, Box detection, List<Track> unmatched) {
        for (Track other : unmatched) {
            if (settings.perClass() && other.classId() != track.classId()) continue;
            if (SharedBox.isShared(detection, other.box)) return true;
        }
        return false;
    }

    /**
     * Whether a detection is a second box of the object of a confirmed track of its class matched in this frame (not
     * one born in it: on the tracker's first frame every detection starts a confirmed track).
     */
    private boolean isAnotherBoxOfAMatchedTrack(Detection d) {
        for (Track track : tracks) {
            if (!track.confirmed || !track.matched() || track.startFrame == frame) continue;
            if (settings.perClass() && track.classId() != d.classId()) continue;
            if (DuplicateBox.isAnotherBoxOf(d.box(), track.box)) return true;
        }
        return false;
    }

    /**
     * ByteTrack's remove_duplicate_stracks: a followed track and a lost one whose boxes overlap by more than
     * DUPLICATE_IOU are the same object; the one followed for fewer frames goes (the followed one on a tie). A hidden
     * lost track is left out: its box is where its object should be behind something, quite possibly behind the
     * followed object itself.
     */
    private void removeDuplicates() {
        List<Track> duplicates = new ArrayList<>();
        for (Track followed : tracks) {
            if (followed.status != Status.FOLLOWED) continue;
            for (Track lost : tracks) {
                if (lost.status != Status.LOST || lost.hidden != null) continue;
                if (settings.perClass() && lost.classId() != followed.classId()) continue;
                if (followed.box.iou(lost.box) <= DUPLICATE_IOU) continue;
                duplicates.add(followed.framesFollowed() > lost.framesFollowed() ? lost : followed);
            }
        }
        for (Track track : duplicates) remove(track);
    }

    private List<TrackState> statesOf(int detectionCount) {
        TrackState[] states = new TrackState[detectionCount];
        for (Track track : tracks) {
            if (track.confirmed && track.matched()) {
                states[track.detectionIndex] = new TrackState(track.id, track.classId(), frame - track.startFrame,
                        track.filter.velocityX(msPerFrame), track.filter.velocityY(msPerFrame), track.filter.box());
            }
        }
        return Collections.unmodifiableList(Arrays.asList(states));
    }

    private void confirm(Track track) {
        track.confirmed = true;
        track.id = ++lastId;
    }

    private void remove(Track track) {
        if (tracks.remove(track) && track.confirmed) removed.add(track.id);
    }

    /** Velocities are per frame in the filter; the frame interval, smoothed over jitter, makes them per second. */
    private void measureFrameInterval(double timeMs) {
        double interval = timeMs - lastTimeMs;  // NaN on the first frame
        if (interval > 0) {
            msPerFrame = msPerFrame == 0 ? interval : msPerFrame + INTERVAL_SMOOTHING * (interval - msPerFrame);
        }
        lastTimeMs = timeMs;
    }

    private static boolean hasArea(Box box) {
        return box.w() > 0 && box.h() > 0 && Float.isFinite(box.x()) && Float.isFinite(box.y())
                && Float.isFinite(box.w()) && Float.isFinite(box.h());
    }

    /** A detection of this frame and its index in the caller's list. */
    private record Candidate(int index, Detection detection) {}

    /** Followed: matched on its last frame (or just born); lost: unmatched since, kept for re-finding. */
    private enum Status { FOLLOWED, LOST }

    /** One object's track. */
    private static final class Track {
        KalmanBoxFilter filter;
        final int startFrame;
        private final ClassVotes classVotes;
        long id;                    // 0 until confirmed
        boolean confirmed;
        Status status = Status.FOLLOWED;
        int lastMatchedFrame;
        /** The index of this frame's detection, -1 when unmatched in this frame. */
        int detectionIndex;
        /** The filter's box now: predicted, or corrected after a match. */
        Box box;
        /** The detection's box at the last match. */
        Box lastMatchedBox;
        /** Lost going out through an edge of the frame (kept exitBuffer frames). */
        boolean leftTheView;
        /** The last matched boxes, oldest first. */
        final Deque<OccludedPath.Sighting> recent = OccludedPath.memory();
        /** Lost while being hidden: where the whole object goes meanwhile (null otherwise). */
        OccludedPath hidden;
        /** The score of the detection last matched. */
        float lastScore;
        /** This frame's match, until {@link ByteTracker#applyMatches} applies it. */
        Candidate pending;

        Track(Candidate first, int frame, boolean perClass) {
            filter = new KalmanBoxFilter(first.detection.box());
            startFrame = frame;
            lastMatchedFrame = frame;
            classVotes = new ClassVotes(first.detection.classId(), perClass);
            classVotes.add(first.detection);
            detectionIndex = first.index;
            box = filter.box();
            lastMatchedBox = first.detection.box();
            lastScore = first.detection.confidence();
            OccludedPath.remember(recent, frame, lastMatchedBox);
        }

        void predict(int frame) {
            // ByteTrack holds the height of a box it does not see
            if (status == Status.LOST) filter.predictHoldingHeight();
            else filter.predict();
            box = hidden != null ? hidden.boxAt(frame) : filter.box();
            detectionIndex = -1;
        }

        /** Unmatched while followed: lost now, perhaps behind something (fading: last matched on a low score). */
        void lose(boolean fading) {
            status = Status.LOST;
            hidden = OccludedPath.of(recent, fading);
        }

        /** This frame's detection, taken in {@link ByteTracker#applyMatches}. */
        void match(Candidate c) {
            pending = c;
            detectionIndex = c.index;
        }

        /**
         * Matched to a box it shares with another object: the detection is this track's, but its filter goes on as
         * predicted, and the box is not remembered as one of its object's.
         */
        void coast(Candidate c, int frame) {
            matchedAt(c, frame);
        }

        void update(Candidate c, int frame) {
            if (hidden != null) {
                // out from behind: the filter followed a shrinking part and then guessed; start it on the whole box
                filter = new KalmanBoxFilter(c.detection.box());
                hidden = null;
            } else {
                filter.update(c.detection.box());
            }
            box = filter.box();
            OccludedPath.remember(recent, frame, c.detection.box());
            matchedAt(c, frame);
        }

        private void matchedAt(Candidate c, int frame) {
            lastMatchedBox = c.detection.box();
            lastScore = c.detection.confidence();
            leftTheView = false;
            status = Status.FOLLOWED;
            lastMatchedFrame = frame;
            detectionIndex = c.index;
            pending = null;
            classVotes.add(c.detection);
        }

        boolean matched() {
            return detectionIndex >= 0;
        }

        int classId() {
            return classVotes.winner();
        }

        /** ByteTrack's frame_id - start_frame: how long it was followed, up to its last match. */
        int framesFollowed() {
            return lastMatchedFrame - startFrame;
        }
    }

    /**
     * A track's class: fixed per class; otherwise the class its detections' confidences add up most for, so one
     * mislabelled frame does not change it. Small arrays: a track sees one class, rarely two or three.
     */
    private static final class ClassVotes {
        private final boolean fixed;
        private int[] classes;
        private double[] sums = new double[1];
        private int size;
        private int winner;

        ClassVotes(int firstClass, boolean fixed) {
            this.fixed = fixed;
            classes = new int[] {firstClass};
            winner = firstClass;
        }

        void add(Detection d) {
            if (fixed) return;
            int k = 0;
            while (k < size && classes[k] != d.classId()) k++;
            if (k == size) {
                if (size == classes.length) {
                    classes = Arrays.copyOf(classes, size * 2);
                    sums = Arrays.copyOf(sums, size * 2);
                }
                classes[k] = d.classId();
                size++;
            }
            sums[k] += d.confidence();
            if (sums[k] > sumOf(winner)) winner = classes[k];
        }

        int winner() {
            return winner;
        }

        private double sumOf(int classId) {
            for (int k = 0; k < size; k++) if (classes[k] == classId) return sums[k];
            return 0;
        }
    }
}
