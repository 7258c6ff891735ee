package io.argus.pipeline.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * ByteTrack on scripted scenes: objects that cross, hide, stop, come back, change class, or are seen only weakly.
 * Frames are 40 ms apart (25 frames/s); boxes are 40x80 unless said otherwise.
 */
class ByteTrackerTest {
    private static final double FRAME_MS = 40;
    private static final int PERSON = 0;
    private static final int BICYCLE = 1;

    /** The tracker and the frame it is at, so a scene reads as one call per frame. */
    private static final class Scene {
        final ByteTracker tracker;
        int frame;

        Scene(TrackerSettings settings) {
            tracker = new ByteTracker(settings);
        }

        Scene() {
            this(TrackerSettings.DEFAULTS);
        }

        List<TrackState> frame(Detection... detections) {
            frame++;
            return tracker.update(List.of(detections), 1_763_884_800_000.0 + frame * FRAME_MS);
        }
    }

    private static Detection person(double x, double y) {
        return detection(PERSON, 0.9, x, y);
    }

    private static Detection detection(int classId, double confidence, double x, double y) {
        return new Detection(classId, classId == PERSON ? "person" : "bicycle", (float) confidence,
                new Box((float) x, (float) y, 40, 80));
    }

    private static long idOf(TrackState state) {
        assertNotNull(state, "the detection has a track");
        return state.id();
    }

    @Test
    void idsStartAtOnePerTracker() {
        for (int camera = 0; camera < 2; camera++) {
            Scene scene = new Scene();
            List<TrackState> states = scene.frame(person(100, 100), person(400, 100));
            assertEquals(1, idOf(states.get(0)));
            assertEquals(2, idOf(states.get(1)));
        }
    }

    @Test
    void onlyTheFirstFrameConfirmsATrackAtOnce() {
        Scene scene = new Scene();
        assertEquals(1, idOf(scene.frame(person(100, 100)).get(0)), "first frame: reported at once");
        List<TrackState> second = scene.frame(person(100, 100), person(500, 100));
        assertEquals(1, idOf(second.get(0)));
        assertNull(second.get(1), "a newcomer waits for a second sighting");
        assertEquals(2, idOf(scene.frame(person(100, 100), person(500, 100)).get(1)));
    }

    @Test
    void aOneFrameFalseStartUsesNoId() {
        Scene scene = new Scene();
        scene.frame(person(100, 100));
        scene.frame(person(100, 100), person(800, 400));  // seen once, never again
        scene.frame(person(100, 100));
        scene.frame(person(100, 100), person(500, 100));
        List<TrackState> states = scene.frame(person(100, 100), person(500, 100));
        assertEquals(2, idOf(states.get(1)), "ids run 1, 2 without a gap");
        assertTrue(scene.tracker.removed().isEmpty(), "a track never reported is never listed as removed");
    }

    @Test
    void twoObjectsCrossingPathsKeepTheirIds() {
        Scene scene = new Scene();
        // A goes right, B left, 10 px apart vertically: their boxes overlap almost entirely mid-way (frame 50)
        for (int f = 0; f < 100; f++) {
            List<TrackState> states = scene.frame(person(100 + 6 * f, 300), person(700 - 6 * f, 310));
            assertEquals(1, idOf(states.get(0)), "A at frame " + f);
            assertEquals(2, idOf(states.get(1)), "B at frame " + f);
        }
    }

    @Test
    void crossingBehindAnotherAndHiddenMeanwhileKeepsIds() {
        Scene scene = new Scene();
        int hidden = 0;
        for (int f = 0; f < 100; f++) {
            double ax = 100 + 6 * f;
            double bx = 700 - 6 * f;
            if (Math.abs(ax - bx) < 120) {
                // B passes behind A: the detector sees only A
                hidden++;
                assertEquals(1, idOf(scene.frame(person(ax, 300)).get(0)), "A at frame " + f);
            } else {
                List<TrackState> states = scene.frame(person(ax, 300), person(bx, 310));
                assertEquals(1, idOf(states.get(0)), "A at frame " + f);
                assertEquals(2, idOf(states.get(1)), "B at frame " + f);
            }
        }
        assertEquals(19, hidden, "B was hidden for 19 frames, moving 114 px meanwhile");
    }

    @Test
    void anObjectOccludedForTenFramesIsFoundAgainWithItsId() {
        Scene scene = new Scene();
        for (int f = 0; f < 20; f++) assertEquals(1, idOf(scene.frame(person(100 + 4 * f, 200)).get(0)));
        for (int f = 20; f < 30; f++) {
            scene.frame();
            assertTrue(scene.tracker.removed().isEmpty());
            assertEquals(1, scene.tracker.activeTracks(), "lost, not gone");
        }
        for (int f = 30; f < 50; f++) {
            assertEquals(1, idOf(scene.frame(person(100 + 4 * f, 200)).get(0)), "back where it went on to, frame " + f);
        }
    }

    /**
     * An object passing behind a post: for a while the detector sees only its part still in view, a box that shrinks
     * and stops at the post's edge; then nothing for 20 frames; then the part coming out on the other side. The track
     * is found again with its id, because a lost track that was being hidden moves on as its whole box was moving;
     * the filter alone, which followed the shrinking part, would still be waiting at the post's right edge.
     */
    @Test
    void anObjectPassingBehindAPostIsFoundAgainOnTheOtherSide() {
        Scene scene = new Scene();
        double speed = -3, postLeft = 200, postRight = 260;   // moving left; the post covers x 200..260
        long id = 0;
        boolean sawHidden = false;
        for (int f = 0; f < 90; f++) {
            double left = 400 + speed * f, right = left + 60;   // the object, 60 px wide
            double seenLeft = left, seenRight = right;
            if (left < postRight && right > postLeft) {
                // the detector finds the larger part left of or right of the post, and nothing when neither is 20 px
                double rightPart = right - Math.max(left, postRight), leftPart = Math.min(right, postLeft) - left;
                if (rightPart >= leftPart) { seenLeft = Math.max(left, postRight); seenRight = right; }
                else { seenLeft = left; seenRight = Math.min(right, postLeft); }
            }
            if (seenRight - seenLeft < 20) {
                sawHidden = true;
                assertTrue(scene.frame().isEmpty());
                continue;
            }
            Detection d = new Detection(PERSON, "person", 0.9f, new Box((float) seenLeft, 100, (float) (seenRight - seenLeft), 80));
            TrackState state = scene.frame(d).getFirst();
            assertNotNull(state, "frame " + f + ": the object at x " + left + ", seen " + seenLeft + ".." + seenRight);
            long now = state.id();
            if (f == 0) id = now;
            assertEquals(id, now, "frame " + f + ": the object at x " + left + " keeps its id");
        }
        assertTrue(sawHidden && scene.tracker.removed().isEmpty());
    }

    /**
     * With the frame's size known, a track lost at the bottom edge while going out through it has left: it is kept
     * exitBuffer frames, not trackBuffer, and the next object to come in there 10 frames later gets an id of its own.
     * Without the size, the old track takes the newcomer (ByteTrack's behaviour, kept for callers that do not say).
     */
    @Test
    void aTrackThatLeftThroughAnEdgeDoesNotTakeTheNextObjectComingInThere() {
        for (boolean sizeKnown : new boolean[] {true, false}) {
            ByteTracker tracker = new ByteTracker(TrackerSettings.DEFAULTS);
            int width = sizeKnown ? 640 : 0, height = sizeKnown ? 480 : 0;
            int frame = 0;
            long leaving = 0;
            // going down to the bottom edge, seen whole until its box touches the edge, then missed (as a detector
            // misses an object cut by the frame): the filter has it moving on down at 4 px a frame
            for (double top = 320; top <= 400; top += 4, frame++) {
                Detection d = new Detection(PERSON, "person", 0.9f, new Box(300, (float) top, 40, 80));
                leaving = idOf(tracker.update(List.of(d), frame * FRAME_MS, width, height).getFirst());
            }
            List<Long> ended = new ArrayList<>();
            for (int i = 0; i < 10; i++, frame++) {
                tracker.update(List.of(), frame * FRAME_MS, width, height);
                ended.addAll(tracker.removed());
            }
            assertEquals(sizeKnown ? List.of(leaving) : List.of(), ended, "ended within 10 frames of leaving");
            // another object comes up into view at the same place, cut by the frame's bottom
            long entering = 0;
            for (double top = 440; top > 380; top -= 4, frame++) {
                Detection d = new Detection(PERSON, "person", 0.9f, new Box(302, (float) top, 40, (float) Math.min(80, 480 - top)));
                TrackState t = tracker.update(List.of(d), frame * FRAME_MS, width, height).getFirst();
                if (t != null && entering == 0) entering = t.id();
            }
            if (sizeKnown) assertTrue(entering != 0 && entering != leaving, "a new id for the newcomer: " + entering);
            else assertEquals(leaving, entering, "size unknown: the lost track takes the newcomer");
        }
    }

    @Test
    void aLowScoreDetectionContinuesATrack() {
        Scene scene = new Scene();
        for (int f = 0; f < 5; f++) scene.frame(person(100 + 3 * f, 200));
        for (int f = 5; f < 15; f++) {
            // half hidden: the detector is unsure
            List<TrackState> states = scene.frame(detection(PERSON, 0.2, 100 + 3 * f, 200));
            assertEquals(1, idOf(states.get(0)), "frame " + f);
        }
    }

    @Test
    void aLowScoreDetectionNeverStartsATrack() {
        Scene scene = new Scene();
        for (int f = 0; f < 10; f++) {
            assertNull(scene.frame(detection(PERSON, 0.2, 100, 200)).get(0));
        }
        assertEquals(0, scene.tracker.activeTracks());
        // nor does one between the high threshold (0.5) and the new track threshold (0.6)
        for (int f = 0; f < 10; f++) assertNull(scene.frame(detection(PERSON, 0.55, 600, 200)).get(0));
        assertEquals(0, scene.tracker.activeTracks());
    }

    @Test
    void aLowScoreDetectionAwayFromEveryTrackBelongsToNone() {
        Scene scene = new Scene();
        scene.frame(person(100, 200));
        List<TrackState> states = scene.frame(person(100, 200), detection(PERSON, 0.3, 900, 600));
        assertEquals(1, idOf(states.get(0)));
        assertNull(states.get(1));
    }

    @Test
    void aTrackLostLongerThanTheBufferIsRemoved() {
        Scene scene = new Scene(TrackerSettings.DEFAULTS.withTrackBuffer(30));
        for (int f = 0; f < 10; f++) scene.frame(person(300, 300));
        for (int missing = 1; missing <= 30; missing++) {
            scene.frame();
            assertTrue(scene.tracker.removed().isEmpty(), "still kept after " + missing + " missing frames");
        }
        scene.frame();
        assertEquals(List.of(1L), scene.tracker.removed(), "31 missing frames: more than trackBuffer");
        assertEquals(0, scene.tracker.activeTracks());
        scene.frame();
        assertTrue(scene.tracker.removed().isEmpty(), "removed() tells the last update only");
        // the object is back after its track ended: a new track, a new id
        scene.frame(person(300, 300));
        assertEquals(2, idOf(scene.frame(person(300, 300)).get(0)));
    }

    @Test
    void aTrackMissingExactlyTheBufferIsStillFound() {
        Scene scene = new Scene(TrackerSettings.DEFAULTS.withTrackBuffer(30));
        for (int f = 0; f < 10; f++) scene.frame(person(300, 300));
        for (int missing = 1; missing <= 30; missing++) scene.frame();
        assertEquals(1, idOf(scene.frame(person(300, 300)).get(0)));
        assertTrue(scene.tracker.removed().isEmpty());
    }

    @Test
    void perClassAClassChangeStartsAnotherTrack() {
        Scene scene = new Scene(TrackerSettings.DEFAULTS.withPerClass(true));
        for (int f = 0; f < 5; f++) assertEquals(1, idOf(scene.frame(person(100 + 2 * f, 200)).get(0)));
        assertNull(scene.frame(detection(BICYCLE, 0.9, 110, 200)).get(0), "a bicycle is not the person's track");
        TrackState bicycle = scene.frame(detection(BICYCLE, 0.9, 112, 200)).get(0);
        assertEquals(2, idOf(bicycle));
        assertEquals(BICYCLE, bicycle.classId());
    }

    @Test
    void classAgnosticAClassChangeKeepsTheTrackAndItsMajorityClass() {
        Scene scene = new Scene(TrackerSettings.DEFAULTS.withPerClass(false));
        for (int f = 0; f < 5; f++) scene.frame(person(100 + 2 * f, 200));
        for (int f = 5; f < 8; f++) {
            TrackState state = scene.frame(detection(BICYCLE, 0.9, 100 + 2 * f, 200)).get(0);
            assertEquals(1, idOf(state), "one object, whatever its label, frame " + f);
            assertEquals(PERSON, state.classId(), "five person sightings outweigh three bicycle ones");
        }
    }

    @Test
    void perClassOverlappingObjectsOfTwoClassesKeepTheirIds() {
        // a person on a bicycle: two boxes almost one on the other, moving together
        Scene scene = new Scene(TrackerSettings.DEFAULTS.withPerClass(true));
        for (int f = 0; f < 40; f++) {
            List<TrackState> states = scene.frame(
                    detection(BICYCLE, 0.8, 100 + 5 * f, 210), detection(PERSON, 0.9, 102 + 5 * f, 200));
            assertEquals(1, idOf(states.get(0)));
            assertEquals(BICYCLE, states.get(0).classId());
            assertEquals(2, idOf(states.get(1)));
            assertEquals(PERSON, states.get(1).classId());
        }
    }

    @Test
    void anObjectThatStopsKeepsItsIdAndItsVelocityFalls() {
        Scene scene = new Scene();
        double x = 100;
        TrackState state = null;
        for (int f = 0; f < 30; f++) {
            state = scene.frame(person(x += 5, 200)).get(0);
            assertEquals(1, idOf(state));
        }
        assertEquals(125, state.vx(), 10, "5 px a frame at 25 frames/s");
        assertEquals(0, state.vy(), 10);
        for (int f = 0; f < 100; f++) {
            state = scene.frame(person(x, 200)).get(0);
            assertEquals(1, idOf(state), "standing still, frame " + f);
        }
        assertEquals(0, state.vx(), 2, "at rest");
        for (int f = 0; f < 30; f++) assertEquals(1, idOf(scene.frame(person(x -= 4, 200)).get(0)), "off again");
    }

    @Test
    void velocityIsInPixelsPerSecondAtTheCamerasFrameRate() {
        // 3 px a frame at 30 frames/s, with the stamps' jitter of a live camera: 90 px/s
        ByteTracker tracker = new ByteTracker(TrackerSettings.DEFAULTS);
        TrackState state = null;
        for (int f = 0; f < 60; f++) {
            double jitterMs = f % 2 == 0 ? 2 : -2;
            state = tracker.update(List.of(person(100 + 3 * f, 200)), f * 1000.0 / 30 + jitterMs).get(0);
        }
        assertEquals(90, state.vx(), 4);
        assertEquals(0, state.vy(), 4);
    }

    @Test
    void ageCountsFramesSinceTheFirstDetection() {
        Scene scene = new Scene();
        assertEquals(0, scene.frame(person(100, 100)).get(0).ageFrames());
        scene.frame();
        scene.frame();
        assertEquals(3, scene.frame(person(100, 100)).get(0).ageFrames(), "lost frames count");
    }

    @Test
    void aBoxWithoutAreaBelongsToNoTrack() {
        Scene scene = new Scene();
        List<TrackState> states = scene.frame(
                new Detection(PERSON, "person", 0.9f, new Box(10, 10, 0, 20)), person(100, 100));
        assertNull(states.get(0));
        assertEquals(1, idOf(states.get(1)));
    }

    @Test
    void aCrowdKeepsItsIds() {
        // 40 objects crossing one another for 300 frames with noisy boxes: each keeps one id, none is missed
        MovingBoxes crowd = new MovingBoxes(40, 1280, 720, 1.5, 7);
        ByteTracker tracker = new ByteTracker(TrackerSettings.DEFAULTS);
        List<Set<Long>> idsOf = new ArrayList<>();
        for (int i = 0; i < 40; i++) idsOf.add(new HashSet<>());
        int untracked = 0;
        for (int f = 1; f <= 300; f++) {
            List<TrackState> states = tracker.update(crowd.next(), f * FRAME_MS);
            for (int i = 0; i < states.size(); i++) {
                if (states.get(i) == null) untracked++;
                else idsOf.get(i).add(states.get(i).id());
            }
        }
        int switches = 0;
        for (Set<Long> ids : idsOf) switches += ids.size() - 1;
        assertEquals(0, switches, "id switches; ids per object: " + idsOf);
        assertEquals(0, untracked, "detections without a track");
        assertEquals(40, tracker.activeTracks());
    }
}
