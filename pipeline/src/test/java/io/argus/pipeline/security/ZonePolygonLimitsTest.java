package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.config.SceneRulesJson;
import io.argus.testkit.Budget;
import io.argus.tracking.Point;
import io.argus.tracking.SceneRules;
import io.argus.tracking.Zone;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Zone polygons cannot make the server work for minutes: a polygon of 80,000 points (66 s of checking before) is
 * refused at once, naming the limit; a polygon at the limit, even one whose edges all span the picture's width, is
 * checked in milliseconds; a camera has at most {@link SceneRules#MAX_ZONES} zones and
 * {@link SceneRules#MAX_LINES} lines. The faster check still finds exactly the crossings that comparing every pair of
 * edges finds (random polygons against that rule, written out here). Budget: 5 s.
 */
@Budget(seconds = 5)
class ZonePolygonLimitsTest {
    static JsonArray points(List<Point> polygon) {
        JsonArray a = new JsonArray();
        for (Point p : polygon) a.add(new JsonArray().add(p.x()).add(p.y()));
        return a;
    }

    static JsonArray zones(List<Point> polygon) {
        return new JsonArray().add(new JsonObject().put("id", "z").put("polygon", points(polygon)));
    }

    /** A regular polygon of n corners around (r, r): simple. */
    static List<Point> circle(int n, double r) {
        List<Point> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double a = 2 * Math.PI * i / n;
            p.add(new Point(r + r * Math.cos(a), r + r * Math.sin(a)));
        }
        return p;
    }

    /**
     * A simple polygon of n corners, most of whose edges span the whole width: the worst case for a sweep along x, each
     * edge's box overlapping every other's in x.
     */
    static List<Point> zigzag(int n) {
        List<Point> p = new ArrayList<>();
        int teeth = (n - 2) / 2;
        for (int i = 0; i < teeth; i++) {
            p.add(new Point(0, 2 * i));
            p.add(new Point(10_000, 2 * i + 1));
        }
        p.add(new Point(10_001, 2 * teeth + 5));
        p.add(new Point(-1, 2 * teeth + 5));
        return p;
    }

    @Test
    void eightyThousandPointsAreRefusedAtOnceNamingTheLimit() {
        List<Point> huge = circle(80_000, 100_000);
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(ConfigException.class, () -> SceneRulesJson.zonesFromJson(zones(huge), "zones")));
        assertEquals("zones[0].polygon", e.key(), e.getMessage());
        assertEquals("zones[0].polygon: expected at most " + Zone.MAX_POINTS + " points, found 80000", e.getMessage());
        IllegalArgumentException direct = assertTimeoutPreemptively(Duration.ofSeconds(2),
                () -> assertThrows(IllegalArgumentException.class, () -> new Zone("z", huge, false, List.of(), 1, 0)));
        assertTrue(direct.getMessage().contains("expected at most 1000 points, found 80000"), direct.getMessage());
        assertThrows(ConfigException.class, () -> SceneRulesJson.zonesFromJson(zones(circle(Zone.MAX_POINTS + 1, 500)), "zones"));
    }

    @Test
    void aPolygonAtTheLimitIsCheckedInMilliseconds() {
        for (List<Point> polygon : List.of(circle(Zone.MAX_POINTS, 500), zigzag(Zone.MAX_POINTS))) {
            assertEquals(Zone.MAX_POINTS, polygon.size());
            // generous for a busy 2-core machine: the check itself takes milliseconds once the JIT has seen it
            assertTimeoutPreemptively(Duration.ofSeconds(3), () -> {
                for (int i = 0; i < 3; i++) assertEquals(1, SceneRulesJson.zonesFromJson(zones(polygon), "zones").size());
            });
        }
        // the last corner of the zigzag moved across its first tooth: found, and named by the edges that meet
        List<Point> crossed = new ArrayList<>(zigzag(Zone.MAX_POINTS));
        crossed.set(crossed.size() - 1, new Point(5_000, -5));
        ConfigException e = assertTimeoutPreemptively(Duration.ofSeconds(3),
                () -> assertThrows(ConfigException.class, () -> SceneRulesJson.zonesFromJson(zones(crossed), "zones")));
        assertTrue(e.getMessage().contains("expected edges that do not cross, found edge"), e.getMessage());
    }

    @Test
    void aCameraHasAtMostAHundredZonesAndAHundredLines() {
        JsonArray zones = new JsonArray();
        JsonArray lines = new JsonArray();
        for (int i = 0; i <= SceneRules.MAX_ZONES; i++) {
            zones.add(new JsonObject().put("id", "z" + i).put("polygon", points(List.of(new Point(0, 0), new Point(10, 0), new Point(0, 10)))));
            lines.add(new JsonObject().put("id", "l" + i).put("from", new JsonArray().add(0).add(0)).put("to", new JsonArray().add(9).add(9)));
        }
        ConfigException z = assertThrows(ConfigException.class, () -> SceneRulesJson.zonesFromJson(zones, "zones"));
        assertEquals("zones: expected at most 100 zones per camera, found 101", z.getMessage());
        ConfigException l = assertThrows(ConfigException.class, () -> SceneRulesJson.linesFromJson(lines, "lines"));
        assertEquals("lines: expected at most 100 lines per camera, found 101", l.getMessage());
        zones.remove(SceneRules.MAX_ZONES);
        assertEquals(SceneRules.MAX_ZONES, SceneRulesJson.zonesFromJson(zones, "zones").size());
    }

    /**
     * Random polygons of 4 to 12 corners on a small integer grid (so that touching, collinear and crossing edges are
     * common, and every test is exact): accepted exactly when no two edges that are not neighbours meet.
     */
    @Test
    void theIndexFindsExactlyTheCrossingsThatEveryPairFinds() {
        Random random = new Random(20261128);
        int simple = 0, crossing = 0;
        for (int trial = 0; trial < 5_000; trial++) {
            int n = 4 + random.nextInt(9);
            List<Point> polygon = new ArrayList<>();
            for (int i = 0; i < n; i++) polygon.add(new Point(random.nextInt(8), random.nextInt(8)));
            if (!passesTheOtherChecks(polygon)) continue;
            boolean meets = everyPairMeeting(polygon);
            String problem = problem(polygon);
            if (meets) {
                crossing++;
                assertTrue(problem != null && problem.contains("do not cross"), polygon + ": " + problem);
            } else {
                simple++;
                assertEquals(null, problem, polygon.toString());
            }
        }
        System.out.println("random polygons: " + simple + " simple, " + crossing + " crossing");
        assertTrue(simple > 50 && crossing > 500, "both kinds tried: " + simple + " simple, " + crossing + " crossing");
    }

    static String problem(List<Point> polygon) {
        try {
            new Zone("z", polygon, false, List.of(), 1, 0);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** No corner twice in a row, an area, no edge folding back onto the one before: what is checked before crossings. */
    static boolean passesTheOtherChecks(List<Point> p) {
        int n = p.size();
        double twiceArea = 0;
        for (int i = 0; i < n; i++) {
            Point a = p.get(i), b = p.get((i + 1) % n), c = p.get((i + 2) % n);
            if (a.equals(b)) return false;
            twiceArea += a.x() * b.y() - b.x() * a.y();
            double cross = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
            if (cross == 0 && (b.x() - a.x()) * (c.x() - b.x()) + (b.y() - a.y()) * (c.y() - b.y()) < 0) return false;
        }
        return twiceArea != 0;
    }

    /** The rule written out: some two edges that are not neighbours share a point. */
    static boolean everyPairMeeting(List<Point> p) {
        int n = p.size();
        for (int i = 0; i < n; i++) {
            for (int j = i + 2; j < n; j++) {
                if (i == 0 && j == n - 1) continue;
                if (meet(p.get(i), p.get(i + 1), p.get(j), p.get((j + 1) % n))) return true;
            }
        }
        return false;
    }

    static double cross(Point a, Point b, Point c) {
        return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    }

    static boolean within(Point a, Point b, Point c) {
        return Math.min(a.x(), b.x()) <= c.x() && c.x() <= Math.max(a.x(), b.x())
                && Math.min(a.y(), b.y()) <= c.y() && c.y() <= Math.max(a.y(), b.y());
    }

    static boolean meet(Point a, Point b, Point c, Point d) {
        double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
        if (d1 * d2 < 0 && d3 * d4 < 0) return true;
        return (d1 == 0 && within(c, d, a)) || (d2 == 0 && within(c, d, b)) || (d3 == 0 && within(a, b, c)) || (d4 == 0 && within(a, b, d));
    }
}
