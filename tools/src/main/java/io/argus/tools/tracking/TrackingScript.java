package io.argus.tools.tracking;

import io.argus.trainer.data.Backdrop;
import io.argus.trainer.data.SyntheticScenes;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;

/**
 * What happens in a {@link TrackingVideo}, picked by a seed: the scene (a still textured background; a post hanging
 * from the top, a strip of another part of the scene with dark edges, that objects can pass behind; a counting line
 * in the lower part) and nine objects of the demo's classes, one after another in overlapping turns, each entering at
 * an edge and leaving at another:
 * <ul>
 * <li>1 and 2 cross each other head-on in the upper band, one passing in front of the other;</li>
 * <li>3 comes down through the counting line's segment, fast, then slower;</li>
 * <li>4 passes behind the post;</li>
 * <li>5 goes up through the line's segment, speeding up after it;</li>
 * <li>6 comes down beside the segment's end: it crosses the line's extension, which must not count;</li>
 * <li>7 stops for one to two seconds, then goes on another way;</li>
 * <li>8 and 9 come down from the upper corners and cross like an X, one hiding the other for a moment.</li>
 * </ul>
 * Everything is in scene pixels (the demo's 128x128 input). Classes, speeds (0.6..1.5 px a frame), places and times
 * come from the seed. The scene stays where the demo model was trained, so that what is measured is the tracking:
 * objects are 28..36 px (smaller ones it misses or misnames more often), coloured to stand out from the background
 * all along their way, and the head-on pair pass with their rows 0.55..0.75 of a size apart, overlapping by at most
 * about half (its training scenes never overlap more); only the X hides one object wholly behind another, briefly.
 * Objects that no role makes meet never overlap more than a quarter of the smaller one: a meeting the times drawn for
 * the roles would bring about by chance is put off ({@link #keptClear}).
 * Paths keep clear of the line except for the scripted crossings, and never stop near it, so the true counts are
 * what a good tracker would count.
 */
final class TrackingScript {
    static final int SCENE_SIZE = 128;
    /** Objects below this layer pass behind the post. */
    static final int POST_LAYER = 1;
    private static final double MIN_SIZE = 28, MAX_SIZE = 36;
    /** The farthest a shape reaches from its centre along x or y, in sizes (a stretched, turned cross: 0.66). */
    private static final double REACH = 0.67;
    /** An anchor this far (scene px) from the segment's end keeps clear of it, whatever the detector's jitter. */
    private static final double LINE_END_MARGIN = 14;
    /** Objects not scripted to cross the line keep their anchors this far above it. */
    private static final double LINE_CLEARANCE = 6;
    /**
     * Objects no role makes meet overlap at most this share of the smaller box (the scripted pairs: about half, and
     * the X wholly, briefly).
     */
    static final double MAX_UNSCRIPTED_OVERLAP = 0.25;
    private static final int CLEARING_STEP = 5, MAX_CLEARING_DELAY = 400;

    final long seed;
    final BufferedImage backdrop;
    final double noiseSigma;
    final Rectangle2D post;
    /** Where the post's texture comes from: the backdrop this far to the right of the post (negative: left). */
    final double postTextureShift;
    /** The counting line's ends, scene pixels: {x0, y0, x1, y1}. */
    final double[] line;
    final List<ScriptedObject> objects;
    final int frames;

    private final SplittableRandom rnd;

    TrackingScript(long seed) {
        this.seed = seed;
        this.rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
        this.backdrop = Backdrop.paint(SCENE_SIZE, SCENE_SIZE, rnd.split());
        this.noiseSigma = rnd.nextDouble(3, 8);

        double postW = rnd.nextDouble(14, 24), postH = rnd.nextDouble(44, 56);
        double postX = rnd.nextDouble(44, 84) - postW / 2;
        this.post = new Rectangle2D.Double(postX, rnd.nextDouble(2, 8), postW, postH);
        double source = postX < SCENE_SIZE / 2.0 ? rnd.nextDouble(postX + postW, SCENE_SIZE - postW)
                : rnd.nextDouble(0, postX - postW);
        this.postTextureShift = source - postX;

        double lx0 = rnd.nextDouble(6, 16), lx1 = rnd.nextDouble(70, 80), ly = rnd.nextDouble(94, 102);
        double tilt = rnd.nextDouble(-3, 3);
        this.line = rnd.nextBoolean() ? new double[] {lx0, ly + tilt, lx1, ly - tilt}
                : new double[] {lx1, ly - tilt, lx0, ly + tilt};
        double lineTop = ly - Math.abs(tilt);
        // the lowest centre an object of a size may pass at without its anchor nearing the line
        DoubleUnaryOperator lowest = size -> lineTop - LINE_CLEARANCE - REACH * size;

        List<ScriptedObject> out = new ArrayList<>();
        int t0 = rnd.nextInt(0, 10);

        // 1, 2: head-on crossing in the upper band, meeting at xMeet, rows apart by 0.55..0.75 of their size
        Look a = look(), b = look();
        double apart = rnd.nextDouble(0.55, 0.75) * (a.size() + b.size()) / 2;
        boolean aAbove = rnd.nextBoolean();
        double upper = Math.min(rnd.nextDouble(16, 26),
                lowest.applyAsDouble(aAbove ? b.size() : a.size()) - apart);
        double ya = aAbove ? upper : upper + apart, yb = aAbove ? upper + apart : upper;
        double xMeet = rnd.nextDouble(44, 84), va = rnd.nextDouble(0.8, 1.3), vb = rnd.nextDouble(0.8, 1.3);
        double meet = t0 + (xMeet + a.margin()) / va;
        double startB = Math.max(0, meet - (SCENE_SIZE + b.margin() - xMeet) / vb);
        boolean aInFront = rnd.nextBoolean();
        out.add(place(a, 1, aInFront ? 3 : 2, "crosses object 2 head-on",
                ScriptedPath.startingAt(t0, -a.margin(), ya).moveTo(SCENE_SIZE + a.margin(), ya, va).build()));
        out.add(place(b, 2, aInFront ? 2 : 3, "crosses object 1 head-on",
                ScriptedPath.startingAt(startB, SCENE_SIZE + b.margin(), yb)
                        .moveTo(-b.margin(), yb, vb).build()));

        // 3: down through the segment, fast then slower
        Look c = look();
        double xc = rnd.nextDouble(lx0 + LINE_END_MARGIN + 2, lx1 - LINE_END_MARGIN - 2);
        out.add(place(c, 3, 4, "comes down through the counting line, fast then slower",
                ScriptedPath.startingAt(t0 + rnd.nextInt(50, 70), xc, -c.margin())
                        .moveTo(xc, rnd.nextDouble(30, 50), rnd.nextDouble(1.1, 1.5))
                        .moveTo(xc, SCENE_SIZE + c.margin(), rnd.nextDouble(0.6, 0.9)).build()));

        // 4: behind the post, across the whole width
        Look d = look();
        double yd = post.getCenterY();
        boolean fromLeft = rnd.nextBoolean();
        double xFrom = fromLeft ? -d.margin() : SCENE_SIZE + d.margin(), xTo = fromLeft ? SCENE_SIZE + d.margin() : -d.margin();
        out.add(place(d, 4, 0, "passes behind the post",
                ScriptedPath.startingAt(t0 + rnd.nextInt(110, 130), xFrom, yd)
                        .moveTo(xTo, yd, rnd.nextDouble(0.8, 1.2)).build()));

        // 5: up through the segment, speeding up after it
        Look e = look();
        double xe = rnd.nextDouble(lx0 + LINE_END_MARGIN + 2, lx1 - LINE_END_MARGIN - 2);
        out.add(place(e, 5, 5, "goes up through the counting line, speeding up",
                ScriptedPath.startingAt(t0 + rnd.nextInt(170, 190), xe, SCENE_SIZE + e.margin())
                        .moveTo(xe, rnd.nextDouble(50, 66), rnd.nextDouble(0.7, 1.0))
                        .moveTo(xe, -e.margin(), rnd.nextDouble(1.1, 1.4)).build()));

        // 6: down beside the segment's end (wholly in the frame): crosses the line's extension only
        Look f = look();
        double xf = rnd.nextDouble(lx1 + LINE_END_MARGIN, Math.max(lx1 + LINE_END_MARGIN + 1, SCENE_SIZE - REACH * f.size()));
        out.add(place(f, 6, 6, "comes down past the end of the counting line",
                ScriptedPath.startingAt(t0 + rnd.nextInt(240, 260), xf, -f.margin())
                        .moveTo(xf, SCENE_SIZE + f.margin(), rnd.nextDouble(0.9, 1.3)).build()));

        // 7: stops for a while in the upper half, then leaves another way
        Look g = look();
        double yg = Math.min(rnd.nextDouble(22, 40), lowest.applyAsDouble(g.size())), xStop = rnd.nextDouble(36, 80);
        out.add(place(g, 7, 7, "stops for a while, then goes on another way",
                ScriptedPath.startingAt(t0 + rnd.nextInt(290, 310), -g.margin(), yg)
                        .moveTo(xStop, yg, rnd.nextDouble(0.9, 1.3))
                        .pause(rnd.nextInt(25, 50))
                        .moveTo(SCENE_SIZE + g.margin(), yg - rnd.nextDouble(0, 20), rnd.nextDouble(0.7, 1.2)).build()));

        // 8, 9: an X above the line, from the upper corners down to the opposite sides, meeting in the middle
        Look h = look(), k = look();
        int tx = t0 + rnd.nextInt(350, 370);
        double high = rnd.nextDouble(6, 20);
        double low = Math.min(rnd.nextDouble(44, 56), Math.min(lowest.applyAsDouble(h.size()), lowest.applyAsDouble(k.size())));
        double speed = rnd.nextDouble(0.8, 1.2);
        boolean hInFront = rnd.nextBoolean();
        out.add(place(h, 8, hInFront ? 9 : 8, "crosses object 9 diagonally",
                ScriptedPath.startingAt(tx, -h.margin(), high).moveTo(SCENE_SIZE + h.margin(), low, speed).build()));
        out.add(place(k, 9, hInFront ? 8 : 9, "crosses object 8 diagonally",
                ScriptedPath.startingAt(tx, SCENE_SIZE + k.margin(), high)
                        .moveTo(-k.margin(), low, speed * rnd.nextDouble(0.9, 1.1)).build()));

        this.objects = keptClear(out, List.of(List.of(1, 2), List.of(3), List.of(4), List.of(5), List.of(6), List.of(7),
                List.of(8, 9)));
        this.frames = (int) Math.ceil(objects.stream().mapToDouble(o -> o.path().lastFrame()).max().orElse(0)) + 1;
    }

    /**
     * The objects, each scripted meeting (a group: the head-on pair, the X) started as much later as it takes, in steps
     * of {@link #CLEARING_STEP} frames, for its objects never to overlap an earlier group's by more than
     * {@link #MAX_UNSCRIPTED_OVERLAP}. Without this, the times drawn for each role alone sometimes had two objects meet
     * where nobody scripted it: one entering at the bottom where another was leaving, both of one class, their boxes
     * overlapping by two thirds, which the demo model (trained on scenes whose objects never overlap more than half)
     * sees as one box; the video then tested the detector's NMS on a pair no role asked for (seeds 20261203, -04, -10:
     * docs/tracking.md). Only the paths' times move; where each object goes, and so the line's true counts, do not.
     */
    private static List<ScriptedObject> keptClear(List<ScriptedObject> scripted, List<List<Integer>> groups) {
        List<ScriptedObject> placed = new ArrayList<>();
        for (List<Integer> group : groups) {
            List<ScriptedObject> members = scripted.stream().filter(o -> group.contains(o.id())).toList();
            for (int delay = 0; ; delay += CLEARING_STEP) {
                if (delay > MAX_CLEARING_DELAY) {
                    throw new IllegalStateException("objects " + group + " still overlap an earlier object after a "
                            + MAX_CLEARING_DELAY + "-frame delay");
                }
                int d = delay;
                List<ScriptedObject> moved = members.stream().map(o -> o.onPath(o.path().delayed(d))).toList();
                if (moved.stream().allMatch(o -> placed.stream().allMatch(p -> mostOverlap(o, p) <= MAX_UNSCRIPTED_OVERLAP))) {
                    placed.addAll(moved);
                    break;
                }
            }
        }
        return List.copyOf(placed);
    }

    /**
     * The most two objects' boxes (their shapes' bounding boxes, cut to the scene) ever overlap, as a share of the
     * smaller box in that frame: 0 if they never meet in view.
     */
    static double mostOverlap(ScriptedObject a, ScriptedObject b) {
        Rectangle2D scene = new Rectangle2D.Double(0, 0, SCENE_SIZE, SCENE_SIZE);
        double from = Math.max(a.path().firstFrame(), b.path().firstFrame());
        double to = Math.min(a.path().lastFrame(), b.path().lastFrame());
        double most = 0;
        for (double t = Math.ceil(from); t <= to; t++) {
            double[] pa = a.path().at(t), pb = b.path().at(t);
            Rectangle2D ba = a.shapeAt(pa[0], pa[1]).getBounds2D().createIntersection(scene);
            Rectangle2D bb = b.shapeAt(pb[0], pb[1]).getBounds2D().createIntersection(scene);
            if (ba.isEmpty() || bb.isEmpty()) continue;
            Rectangle2D both = ba.createIntersection(bb);
            if (both.isEmpty()) continue;
            double smaller = Math.min(ba.getWidth() * ba.getHeight(), bb.getWidth() * bb.getHeight());
            most = Math.max(most, both.getWidth() * both.getHeight() / smaller);
        }
        return most;
    }

    /** How an object looks, but for its colour (picked for where it goes): class, size, outline, shape. */
    private record Look(int classId, double size, boolean outlined, long shapeSeed) {
        /** Centre this far outside the scene: the object is wholly out of view. */
        double margin() { return REACH * size + 1; }
    }

    private Look look() {
        int cls = rnd.nextInt(SyntheticScenes.CLASSES.size());
        double size = rnd.nextDouble(MIN_SIZE, MAX_SIZE);
        return new Look(cls, size, rnd.nextInt(3) == 0, rnd.nextLong());
    }

    private ScriptedObject place(Look look, int id, int layer, String role, ScriptedPath path) {
        return new ScriptedObject(id, look.classId(), look.size(), contrasting(path, look.size()), look.outlined(),
                look.shapeSeed(), layer, role, path);
    }

    /**
     * As SyntheticScenes picks an object's colour: saturated, the one of a few that differs most from the background
     * under the object; here the background all along its path, so that it stands out wherever it goes.
     */
    private Color contrasting(ScriptedPath path, double size) {
        List<double[]> under = new ArrayList<>();
        for (double t = path.firstFrame(); t <= path.lastFrame(); t += 5) {
            double[] p = path.at(t);
            double half = size / 2;
            Rectangle2D box = new Rectangle2D.Double(p[0] - half, p[1] - half, size, size)
                    .createIntersection(new Rectangle2D.Double(0, 0, SCENE_SIZE, SCENE_SIZE));
            if (box.getWidth() >= 2 && box.getHeight() >= 2) under.add(Backdrop.meanColor(backdrop, box));
        }
        if (under.isEmpty()) under.add(Backdrop.meanColor(backdrop, new Rectangle2D.Double(0, 0, SCENE_SIZE, SCENE_SIZE)));
        Color best = null;
        double bestDistance = -1;
        for (int attempt = 0; attempt < 12; attempt++) {
            Color c = Color.getHSBColor((float) rnd.nextDouble(), (float) rnd.nextDouble(0.5, 1),
                    (float) rnd.nextDouble(0.35, 1));
            double least = Double.MAX_VALUE;
            for (double[] m : under) {
                double dr = c.getRed() - m[0], dg = c.getGreen() - m[1], db = c.getBlue() - m[2];
                least = Math.min(least, Math.sqrt(dr * dr + dg * dg + db * db));
            }
            if (least > bestDistance) {
                best = c;
                bestDistance = least;
            }
            if (least > 150) break;
        }
        return best;
    }
}
