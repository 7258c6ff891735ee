package io.argus.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Box;
import io.argus.testkit.Budget;
import io.argus.tracking.Line.Direction;
import io.argus.tracking.ObjectEvent.Change;
import io.argus.tracking.ObjectEvent.Crossed;
import io.argus.tracking.ObjectEvent.Entered;
import io.argus.tracking.ObjectEvent.Kind;
import io.argus.tracking.ObjectEvent.Left;
import io.argus.tracking.ObjectEvent.Loitering;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Presence with inertia, loitering, segment crossings, the events of an object, counts, rules replaced. */
@Budget(seconds = 5)
class SceneWatchTest {
    static final int W = 1280, H = 720;
    static final double T0 = 1763884800123.4;

    // the porch of docs/tracking.md and a gate drawn left to right at y = 300, from x = 50 to x = 700
    static Zone porch(int inertia, double loiterSeconds, String... classes) {
        return new Zone("porch", List.of(new Point(100, 400), new Point(600, 400), new Point(600, 700), new Point(100, 700)),
                false, List.of(classes), inertia, loiterSeconds);
    }

    /**
     * A line that counts a crossing on the first frame on the new side (inertia 1): the geometry tests step objects
     * over it in single frames. {@link #aSlowObjectJitteringOverTheLineCountsOnce} tests the default inertia.
     */
    static Line gate(String... classes) { return new Line("gate", new Point(50, 300), new Point(700, 300), false, List.of(classes), 1); }

    static SceneRules rules(List<Zone> zones, List<Line> lines) { return new SceneRules(zones, lines, Anchor.BOTTOM_CENTER); }

    /** A 40 x 100 box whose bottom centre (the anchor) is at (x, y). */
    static Tracked at(long id, String className, double x, double y) { return at(id, className, x, y, 0.8f); }

    static Tracked at(long id, String className, double x, double y, float confidence) {
        return new Tracked(id, className.equals("person") ? 0 : 2, className, confidence,
                new Box((float) (x - 20), (float) (y - 100), 40, 100));
    }

    /** A camera fed at 10 frames a second. */
    static final class Camera {
        final SceneWatch watch;
        double time = T0;
        int frameWidth = W, frameHeight = H;
        final List<ObjectEvent> events = new ArrayList<>();

        Camera(SceneRules rules) { watch = new SceneWatch("door", rules); }

        List<ObjectEvent> frame(Tracked... objects) { return frame(List.of(objects), List.of()); }

        List<ObjectEvent> remove(Long... ids) { return frame(List.of(), List.of(ids)); }

        List<ObjectEvent> frame(List<Tracked> objects, List<Long> removed) {
            List<ObjectEvent> out = watch.update(time, frameWidth, frameHeight, objects, removed);
            time += 100;
            events.addAll(out);
            return out;
        }

        List<Change> changes(Class<? extends Change> type) {
            return events.stream().flatMap(e -> e.changes().stream()).filter(type::isInstance).toList();
        }
    }

    // ---- lines

    /**
     * The default inertia (3): an object walking slowly down over the line while its box edge jitters back and forth
     * across it (y: 297, 302, 299, 303, 301, 304, ...) is one crossing "in", counted on its third frame in a row below.
     */
    @Test
    void aSlowObjectJitteringOverTheLineCountsOnce() {
        Line slow = new Line("gate", new Point(50, 300), new Point(700, 300), false, List.of());
        assertEquals(3, slow.inertia());
        Camera cam = new Camera(rules(List.of(), List.of(slow)));
        double[] ys = {290, 297, 302, 299, 303, 301, 298, 304, 306, 305, 309, 312};
        List<Integer> countedAt = new ArrayList<>();
        for (int i = 0; i < ys.length; i++) {
            if (!cam.frame(at(1, "person", 300, ys[i])).stream().flatMap(e -> e.changes().stream()).toList().isEmpty()) countedAt.add(i);
        }
        assertEquals(List.of(new Crossed("gate", Line.Direction.IN)), cam.changes(Crossed.class));
        assertEquals(List.of(9), countedAt, "counted when seen below three frames in a row (304, 306, 305)");
    }

    /** With inertia, a crossing beside the segment is still nothing, and a return within the inertia cancels it. */
    @Test
    void aReturnBeforeTheInertiaCountsNothing() {
        Line slow = new Line("gate", new Point(50, 300), new Point(700, 300), false, List.of());
        Camera cam = new Camera(rules(List.of(), List.of(slow)));
        for (double y : new double[]{290, 305, 310, 295, 290, 285}) cam.frame(at(1, "person", 300, y));   // two frames below
        for (double y : new double[]{290, 310, 320, 330}) cam.frame(at(2, "person", 800, y));             // beside the segment
        assertEquals(List.of(), cam.changes(Crossed.class));
    }

    @Test
    void aPathAcrossTheLinesExtensionCountsNothing() {
        Camera cam = new Camera(rules(List.of(), List.of(gate())));
        cam.frame(at(1, "person", 800, 250));
        cam.frame(at(1, "person", 800, 350));      // crosses y = 300 at x = 800, beyond the end at 700
        cam.frame(at(1, "person", 1000, 200));     // and back again, further out
        assertEquals(List.of(), cam.changes(Crossed.class));
        assertEquals(0, cam.watch.crossings("gate", "person", Direction.IN));
        assertEquals(0, cam.watch.crossings("gate", "person", Direction.OUT));
        cam.frame(at(1, "person", 400, 250));      // round the end (above the line all along)
        cam.frame(at(1, "person", 400, 350));      // and down through the segment
        assertEquals(List.of(new Crossed("gate", Direction.IN)), cam.changes(Crossed.class));
    }

    @Test
    void downThroughALeftToRightLineIsInAndUpIsOut() {
        Camera cam = new Camera(rules(List.of(), List.of(gate(), new Line("etag", new Point(700, 300), new Point(50, 300), false, List.of(), 1))));
        cam.frame(at(1, "person", 300, 280));
        cam.frame(at(1, "person", 300, 320));
        cam.frame(at(1, "person", 300, 290));
        assertEquals(List.of(new Crossed("gate", Direction.IN), new Crossed("etag", Direction.OUT),
                new Crossed("gate", Direction.OUT), new Crossed("etag", Direction.IN)), cam.changes(Crossed.class));
        assertEquals(1, cam.watch.crossings("gate", "person", Direction.IN));
        assertEquals(1, cam.watch.crossings("gate", "person", Direction.OUT));
    }

    @Test
    void aFastObjectJumpingAcrossTheSegmentCountsOnce() {
        Camera cam = new Camera(rules(List.of(), List.of(gate())));
        cam.frame(at(1, "car", 100, 20));
        cam.frame(at(1, "car", 650, 710));         // one frame: from the top of the picture to the bottom, diagonally
        cam.frame(at(1, "car", 660, 715));
        cam.frame(at(1, "car", 670, 719));
        assertEquals(List.of(new Crossed("gate", Direction.IN)), cam.changes(Crossed.class));
        assertEquals(1, cam.watch.crossings("gate", "car", Direction.IN));
    }

    @Test
    void anObjectMissingForFramesThatReappearsOnTheOtherSideCrossed() {
        Camera cam = new Camera(rules(List.of(), List.of(gate())));
        for (int i = 0; i < 3; i++) cam.frame(at(1, "person", 300, 250), at(2, "person", 900, 100));
        for (int i = 0; i < 7; i++) cam.frame(at(2, "person", 900, 100));   // 1 is lost by the detector, not removed
        cam.frame(at(1, "person", 320, 360), at(2, "person", 900, 100));
        assertEquals(List.of(new Crossed("gate", Direction.IN)), cam.changes(Crossed.class));
    }

    @Test
    void landingExactlyOnTheLineDecidesNothingByItself() {
        Camera cam = new Camera(rules(List.of(), List.of(gate())));
        // touches the line and goes back: no crossing
        cam.frame(at(1, "person", 300, 280));
        cam.frame(at(1, "person", 300, 300));
        cam.frame(at(1, "person", 300, 280));
        assertEquals(List.of(), cam.changes(Crossed.class));
        // stops on the line for a while, then goes on: one crossing, when it is off the line again
        cam.frame(at(1, "person", 300, 300));
        cam.frame(at(1, "person", 300, 300));
        assertEquals(List.of(), cam.changes(Crossed.class));
        cam.frame(at(1, "person", 300, 320));
        assertEquals(List.of(new Crossed("gate", Direction.IN)), cam.changes(Crossed.class));
        // reaches the infinite line beyond the segment's end, slides along it onto the segment, leaves: it crossed
        // beside the segment (the first touch decides)
        cam.frame(at(2, "person", 800, 280));
        cam.frame(at(2, "person", 800, 300));
        cam.frame(at(2, "person", 600, 300));
        cam.frame(at(2, "person", 600, 320));
        assertEquals(1, cam.changes(Crossed.class).size());
        // through an end point exactly: the ends belong to the segment
        cam.frame(at(3, "person", 690, 290));
        cam.frame(at(3, "person", 710, 310));
        assertEquals(2, cam.watch.crossings("gate", "person", Direction.IN));
    }

    /**
     * 300 scripted objects walking up and down the picture, each at its own x (inside the segment, on its ends, just
     * beyond them), in steps of 0 to 60 px that often land exactly on the line: the counts equal the ground truth
     * (for a vertical path, every change of side through the segment's x range), exactly.
     */
    @Test
    void crossingCountsEqualTheGroundTruthExactly() {
        Camera cam = new Camera(rules(List.of(), List.of(gate())));
        Random random = new Random(15);
        double[] xs = {49, 50, 51, 200, 375, 699, 700, 701, 1000};
        int objects = 300, frames = 200;
        double[] x = new double[objects], y = new double[objects];
        int[] lastSide = new int[objects];
        int truthIn = 0, truthOut = 0;
        for (int o = 0; o < objects; o++) {
            x[o] = xs[o % xs.length];
            y[o] = 200 + 10 * random.nextInt(21);
        }
        for (int f = 0; f < frames; f++) {
            List<Tracked> frame = new ArrayList<>();
            for (int o = 0; o < objects; o++) {
                if (f > 0) y[o] = Math.max(150, Math.min(450, y[o] + 10 * (random.nextInt(13) - 6)));
                int side = (int) Math.signum(y[o] - 300);   // -1 above (the line's left), +1 below
                boolean overSegment = x[o] >= 50 && x[o] <= 700;
                if (side != 0) {
                    if (overSegment && lastSide[o] == -1 && side == 1) truthIn++;
                    if (overSegment && lastSide[o] == 1 && side == -1) truthOut++;
                    lastSide[o] = side;
                }
                frame.add(at(o + 1, "person", x[o], y[o]));
            }
            cam.frame(frame, List.of());
        }
        assertTrue(truthIn > 1000 && truthOut > 1000, "a busy script: " + truthIn + " in, " + truthOut + " out");
        assertEquals(truthIn, cam.watch.crossings("gate", "person", Direction.IN));
        assertEquals(truthOut, cam.watch.crossings("gate", "person", Direction.OUT));
        assertEquals(truthIn + truthOut, cam.changes(Crossed.class).size());
    }

    @Test
    void lineClassFilterCountsOnlyItsClasses() {
        Camera cam = new Camera(rules(List.of(), List.of(gate("car"))));
        cam.frame(at(1, "person", 300, 250), at(2, "car", 400, 250));
        cam.frame(at(1, "person", 300, 350), at(2, "car", 400, 350));
        assertEquals(List.of(new Crossed("gate", Direction.IN)), cam.changes(Crossed.class));
        assertEquals(1, cam.watch.crossings("gate", "car", Direction.IN));
        assertEquals(0, cam.watch.crossings("gate", "person", Direction.IN));
    }

    // ---- zones

    @Test
    void inertiaFramesInsideBeforeEnteredAndOutsideBeforeLeft() {
        Camera cam = new Camera(rules(List.of(porch(3, 0)), List.of()));
        cam.frame(at(1, "person", 300, 500));
        cam.frame(at(1, "person", 300, 500));
        cam.frame(at(1, "person", 300, 800));      // a two-frame visit: nothing
        cam.frame(at(1, "person", 300, 500));
        cam.frame(at(1, "person", 300, 500));
        assertEquals(List.of(), cam.changes(Entered.class));
        assertEquals(List.of(new Entered("porch")), cam.frame(at(1, "person", 300, 500)).get(0).changes(), "the third frame in a row");
        assertEquals(1, cam.watch.inside("porch", "person"));
        cam.frame(at(1, "person", 300, 800));
        cam.frame(at(1, "person", 300, 800));
        assertEquals(List.of(), cam.changes(Left.class));
        assertEquals(List.of(new Left("porch")), cam.frame(at(1, "person", 300, 800)).get(0).changes());
        assertEquals(0, cam.watch.inside("porch", "person"));
    }

    @Test
    void anAnchorExactlyOnTheEdgeIsInside() {
        Camera cam = new Camera(rules(List.of(porch(1, 0)), List.of()));
        assertEquals(List.of(new Entered("porch")), cam.frame(at(1, "person", 600, 550)).get(0).changes(), "right edge");
        assertEquals(List.of(new Entered("porch")), cam.frame(at(2, "person", 300, 700)).get(0).changes(), "bottom edge");
        assertEquals(List.of(), cam.frame(at(3, "person", 601, 550)).get(0).changes(), "a pixel out");
    }

    /** A parked object whose detected box jitters +-2 px across the zone's edge: no enter/leave flapping. */
    @Test
    void aStationaryObjectJitteringOnTheEdgeDoesNotFlap() {
        Camera cam = new Camera(rules(List.of(porch(3, 0)), List.of()));
        Random random = new Random(518);
        for (int f = 0; f < 500; f++) {
            cam.frame(at(1, "car", 600 + random.nextInt(5) - 2, 550),      // on the right edge
                    at(2, "person", 300, 700 + random.nextInt(5) - 2),    // on the bottom edge
                    at(3, "person", 100 + (f % 2 == 0 ? 2 : -2), 500));   // on the left edge, every other frame out
        }
        for (long id = 1; id <= 3; id++) {
            long track = id;
            List<Change> changes = cam.events.stream().filter(e -> e.trackId() == track).flatMap(e -> e.changes().stream()).toList();
            assertTrue(changes.stream().filter(Entered.class::isInstance).count() <= 1, "object " + id + ": " + changes);
            assertEquals(0, changes.stream().filter(Left.class::isInstance).count(), "object " + id + ": " + changes);
        }
    }

    @Test
    void anObjectWalkingOutLeavesSoonAfterTheMargin() {
        Camera cam = new Camera(rules(List.of(porch(3, 0)), List.of()));
        double x = 560;
        while (cam.changes(Entered.class).isEmpty()) cam.frame(at(1, "person", x += 3, 550));
        assertEquals(569, x, "entering is not delayed by the margin: the third frame in");
        while (cam.changes(Left.class).isEmpty() && x < 700) cam.frame(at(1, "person", x += 3, 550));
        // out by more than 15 px (15% of the box's 100 px) from x = 617 on; the third such frame leaves
        assertEquals(623, x);
    }

    @Test
    void zoneClassFilterLetsOnlyItsClassesIn() {
        Camera cam = new Camera(rules(List.of(porch(1, 0, "person")), List.of()));
        cam.frame(at(1, "car", 300, 500), at(2, "person", 400, 500));
        assertEquals(List.of(new Entered("porch")), cam.changes(Entered.class));
        assertEquals(2, cam.events.get(1).trackId());
        assertEquals(0, cam.watch.inside("porch", "car"));
        assertEquals(1, cam.watch.inside("porch", "person"));
    }

    @Test
    void loiteringIsToldOncePerStay() {
        Camera cam = new Camera(rules(List.of(porch(3, 10)), List.of()));
        for (int f = 0; f < 300; f++) cam.frame(at(1, "person", 300, 500));          // 30 s inside
        assertEquals(List.of(new Loitering("porch", 10.0)), cam.changes(Loitering.class), "10 s after the first frame inside");
        ObjectEvent told = cam.events.stream().filter(e -> e.changes().contains(new Loitering("porch", 10.0))).findFirst().orElseThrow();
        assertEquals(T0 + 10_000, told.time(), 1e-6);
        for (int f = 0; f < 3; f++) cam.frame(at(1, "person", 300, 800));            // leaves
        for (int f = 0; f < 150; f++) cam.frame(at(1, "person", 300, 500));          // a second stay of 15 s
        assertEquals(2, cam.changes(Loitering.class).size());
        assertEquals(2, cam.changes(Entered.class).size());
    }

    @Test
    void normalisedZonesScaleWithTheFrameSize() {
        Zone rightHalf = new Zone("right", List.of(new Point(0.5, 0), new Point(1, 0), new Point(1, 1), new Point(0.5, 1)),
                true, List.of(), 1, 0);
        Camera small = new Camera(rules(List.of(rightHalf), List.of()));
        small.frameWidth = 640;
        small.frameHeight = 480;
        small.frame(at(1, "person", 400, 300));
        assertEquals(List.of(new Entered("right")), small.changes(Entered.class), "x 400 of 640: the right half");
        Camera large = new Camera(rules(List.of(rightHalf), List.of()));
        large.frame(at(1, "person", 400, 300));
        assertEquals(List.of(), large.changes(Entered.class), "x 400 of 1280: the left half");
    }

    // ---- events and counts

    @Test
    void anObjectsEventsGoNewUpdateUpdateEnd() {
        // the porch spans the whole picture here, with the gate across it
        Zone porch = new Zone("porch", List.of(new Point(0, 0), new Point(W, 0), new Point(W, H), new Point(0, H)), false, List.of(), 3, 0);
        Line gate = new Line("gate", new Point(100, 500), new Point(1100, 500), false, List.of(), 1);
        Camera cam = new Camera(rules(List.of(porch), List.of(gate)));
        cam.frame(at(7, "person", 300, 450, 0.6f));
        cam.frame(at(7, "person", 300, 450, 0.9f));
        cam.frame(at(7, "person", 300, 450, 0.7f));
        cam.frame(at(7, "person", 300, 550, 0.5f));
        cam.remove(7L);
        cam.remove(7L);   // told twice: ended once

        List<ObjectEvent> e = cam.events;
        assertEquals(List.of(Kind.NEW, Kind.UPDATE, Kind.UPDATE, Kind.END), e.stream().map(ObjectEvent::kind).toList());
        assertEquals(List.of(), e.get(0).changes());
        assertEquals(List.of(new Entered("porch")), e.get(1).changes());
        assertEquals(List.of(new Crossed("gate", Direction.IN)), e.get(2).changes());
        assertEquals(List.of(new Left("porch")), e.get(3).changes());
        for (ObjectEvent event : e) assertEquals("door-7-1763884800123", event.id());
        assertEquals(List.of(), e.get(0).zones());
        assertEquals(List.of("porch"), e.get(2).zones());
        assertEquals(List.of(), e.get(3).zones());
        assertEquals(List.of("porch"), e.get(3).enteredZones());
        assertEquals(0.6f, e.get(0).confidence());
        assertEquals(0.9f, e.get(3).confidence(), "the best so far");
        assertNull(e.get(2).end());
        // the whole end event, as it goes over the wire: pipeline's events/ObjectEventJsonTest
        assertEquals(new ObjectEvent(Kind.END, "door-7-1763884800123", "door", 7, 0, "person", 1763884800123.4,
                1763884800523.4, 1763884800523.4, 0.9f, e.get(3).box(), List.of(), List.of("porch"),
                List.of(new Left("porch"))), e.get(3));
        assertEquals(new Box(280, 450, 40, 100), e.get(3).box());
    }

    @Test
    void severalChangesInOneFrameGoInOneUpdate() {
        Camera cam = new Camera(rules(List.of(porch(1, 0)), List.of(gate())));
        cam.frame(at(1, "person", 300, 250));
        List<ObjectEvent> events = cam.frame(at(1, "person", 300, 450));   // crosses the gate into the porch
        assertEquals(1, events.size());
        assertEquals(List.of(new Entered("porch"), new Crossed("gate", Direction.IN)), events.get(0).changes());
    }

    @Test
    void countsPerClassAndWhichOnesTheLastUpdateChanged() {
        Camera cam = new Camera(rules(List.of(porch(1, 0)), List.of(gate())));
        cam.frame(at(1, "person", 300, 500), at(2, "person", 400, 500), at(3, "car", 500, 500), at(4, "person", 300, 250));
        assertEquals(List.of(SceneCount.ofZone("porch", "car", 1), SceneCount.ofZone("porch", "person", 2)), cam.watch.changedCounts());
        cam.frame(at(1, "person", 300, 500), at(2, "person", 400, 500), at(3, "car", 500, 500), at(4, "person", 300, 250));
        assertEquals(List.of(), cam.watch.changedCounts(), "nothing moved");
        cam.frame(List.of(at(2, "person", 400, 500), at(3, "car", 500, 500), at(4, "person", 300, 350)), List.of(1L));
        assertEquals(List.of(SceneCount.ofZone("porch", "person", 1), SceneCount.ofLine("gate", "person", 1, 0)), cam.watch.changedCounts());
        cam.frame(List.of(at(5, "person", 450, 500), at(4, "person", 300, 360)), List.of(2L, 3L));
        assertEquals(List.of(SceneCount.ofZone("porch", "car", 0)), cam.watch.changedCounts(), "one person in, one out: no change");
        assertEquals(List.of(SceneCount.ofZone("porch", "car", 0), SceneCount.ofZone("porch", "person", 1),
                SceneCount.ofLine("gate", "person", 1, 0)), cam.watch.counts());
    }

    @Test
    void replacedRulesKeepTheStateOfWhatStays() {
        Camera cam = new Camera(rules(List.of(porch(1, 0), new Zone("shed", List.of(new Point(0, 0), new Point(50, 0), new Point(50, 50)), false, List.of(), 1, 0)),
                List.of(gate())));
        cam.frame(at(1, "person", 300, 500), at(2, "person", 300, 250));
        cam.frame(at(2, "person", 300, 350));
        assertEquals(1, cam.watch.crossings("gate", "person", Direction.IN));
        int before = cam.events.size();

        // the porch grows, the shed goes, the gate moves below object 2 (which stands still)
        Zone biggerPorch = new Zone("porch", List.of(new Point(50, 380), new Point(650, 380), new Point(650, 710), new Point(50, 710)), false, List.of(), 1, 0);
        Line lowerGate = new Line("gate", new Point(50, 400), new Point(700, 400), false, List.of(), 1);
        cam.watch.setRules(rules(List.of(biggerPorch), List.of(lowerGate)));
        cam.frame(at(1, "person", 300, 500), at(2, "person", 300, 350));
        assertEquals(before, cam.events.size(), "no enter again, no crossing by standing still");
        assertEquals(1, cam.watch.inside("porch", "person"));
        assertEquals(1, cam.watch.crossings("gate", "person", Direction.IN), "a moved line keeps its counts");
        cam.frame(at(2, "person", 300, 450));
        assertEquals(2, cam.watch.crossings("gate", "person", Direction.IN), "and counts from its new place");

        // the porch goes: its presence ends quietly
        cam.watch.setRules(rules(List.of(), List.of(lowerGate)));
        cam.frame(at(1, "person", 300, 500));
        List<ObjectEvent> end = cam.remove(1L);
        assertEquals(List.of(), end.get(0).changes(), "no left from a zone that is gone");
        assertEquals(List.of(SceneCount.ofLine("gate", "person", 2, 0)), cam.watch.counts());
        assertEquals(0, cam.changes(Left.class).size());
    }

    @Test
    void removedTracksNeverSeenAreIgnoredAndEndAllEndsEveryone() {
        Camera cam = new Camera(rules(List.of(porch(1, 0)), List.of()));
        assertEquals(List.of(), cam.remove(99L));
        cam.frame(at(1, "person", 300, 500), at(2, "car", 900, 500));
        List<ObjectEvent> ends = cam.watch.endAll(cam.time);
        assertEquals(List.of(Kind.END, Kind.END), ends.stream().map(ObjectEvent::kind).toList());
        assertEquals(List.of(new Left("porch")), ends.get(0).changes());
        assertEquals(List.of(SceneCount.ofZone("porch", "person", 0)), cam.watch.changedCounts());
        assertEquals(0, cam.watch.watchedObjects());
        assertTrue(Arrays.asList(1L, 2L).containsAll(ends.stream().map(ObjectEvent::trackId).toList()));
    }
}
