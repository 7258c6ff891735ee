package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.AffineTransform;
import java.awt.geom.Area;
import java.awt.geom.PathIterator;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The partial scenes of the synthetic dataset: what a camera shows that the whole scenes of {@link SyntheticScenes}
 * never do. Objects of about the tracking video's size, drawn as SyntheticScenes draws them on the same
 * {@link Backdrop}, are cut off by the image's border (entering or leaving the view), pass behind posts (strips of
 * the ground itself, as the tracking video's post) or behind each other. What the frame shows of each is measured on
 * the shapes themselves, and it is labelled as the tracking video's ground truth boxes it:
 * <ul>
 * <li>the box is the whole shape's bounding box cut to the image (a detector sees no more of it), also where posts or
 * other objects hide a part of it;</li>
 * <li>it is labelled only when at least {@value #MIN_IN_VIEW} of the shape is inside the image and at least
 * {@value #MIN_UNHIDDEN} of that part is not hidden.</li>
 * </ul>
 * Why those two figures: the tracking evaluation scores a box when at least half of its object shows; every object it
 * scores is labelled here. A shape cut off by the border keeps a label down to 30% in view: its box then holds just
 * what shows, and a detector that already knows an entering object when it counts does not miss its first frames.
 * Less than that is often a single arm of a cross or one point of a star, which no one can name: labelling those
 * would teach the model to guess, and guessed classes end tracks. A shape mostly hidden behind something is not
 * labelled: its box would stretch over what hides it, a box no detector can see.
 * <p>
 * Scene i depends only on (seed, i).
 */
public final class PartialScenes {
    /** The tracking video's objects are 28..36 px: a little either way. */
    static final double MIN_SIZE = 24;
    static final double MAX_SIZE = 40;
    /** The least share of a shape inside the image for a label (see the class comment). */
    static final double MIN_IN_VIEW = 0.3;
    /** The least share of a shape's part inside the image that must not be hidden, for a label. */
    static final double MIN_UNHIDDEN = 0.5;

    private PartialScenes() {}

    /** One object as laid out: its shape where it is drawn, its look, and whether it passes behind the posts. */
    record Item(int classId, Shape shape, Color color, boolean outlined, boolean behindPosts) {
        /** What of the image the object covers: its shape and, when it has one, its outline. */
        Area body() {
            Area a = new Area(shape);
            if (outlined) a.add(new Area(new BasicStroke(SyntheticScenes.OUTLINE_WIDTH).createStrokedShape(shape)));
            return a;
        }
    }

    /** A post over {@code strip}, showing the ground {@code shiftX}, {@code shiftY} pixels away. */
    record Post(Rectangle2D strip, double shiftX, double shiftY) {}

    /** A scene before it is painted: the ground, the objects in the order they were placed, the posts, the noise. */
    record Layout(int width, int height, BufferedImage ground, List<Item> items, List<Post> posts, double noiseSigma,
                  long noiseSeed) {
        /** The objects in drawing order: those behind the posts first, then the rest; each hides the ones before. */
        List<Item> behind() { return items.stream().filter(Item::behindPosts).toList(); }

        List<Item> inFront() { return items.stream().filter(i -> !i.behindPosts()).toList(); }
    }

    /** How much of an object shows: the share of its shape inside the image, and the share of that not hidden. */
    record Visibility(double inView, double unhidden) {
        boolean labelled() { return inView >= MIN_IN_VIEW && unhidden >= MIN_UNHIDDEN; }
    }

    /** Scene {@code index} of the partial scenes of {@code seed}: the image (3-byte BGR) and its labels. */
    public static SyntheticScenes.Scene render(int width, int height, long seed, int index) {
        Layout l = layout(width, height, seed, index);
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = img.createGraphics();
        g.drawImage(l.ground(), 0, 0, null);
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        for (Item i : l.behind()) SyntheticScenes.paintObject(g, i.shape(), i.color(), i.outlined());
        for (Post p : l.posts()) Backdrop.paintPost(g, l.ground(), p.strip(), p.shiftX(), p.shiftY());
        for (Item i : l.inFront()) SyntheticScenes.paintObject(g, i.shape(), i.color(), i.outlined());
        g.dispose();
        Backdrop.noise(img, l.noiseSigma(), new SplittableRandom(l.noiseSeed()));

        List<Visibility> seen = visibility(l);
        Rectangle2D frame = new Rectangle2D.Double(0, 0, width, height);
        List<Truth> truths = new ArrayList<>();
        for (int k = 0; k < l.items().size(); k++) {
            if (!seen.get(k).labelled()) continue;
            Item i = l.items().get(k);
            Rectangle2D box = i.shape().getBounds2D().createIntersection(frame);
            truths.add(new Truth((float) (box.getCenterX() / width), (float) (box.getCenterY() / height),
                    (float) (box.getWidth() / width), (float) (box.getHeight() / height), i.classId()));
        }
        return new SyntheticScenes.Scene(img, truths);
    }

    /** Lays out scene {@code index} of {@code seed}: everything {@link #render} paints, nothing painted yet. */
    static Layout layout(int width, int height, long seed, int index) {
        // another stream than the whole scenes' of the same seed and index
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index * 0xBF58476D1CE4E5B9L
                + 0x2545F4914F6CDD1DL);
        BufferedImage ground = Backdrop.paint(width, height, rnd.split());
        Rectangle2D frame = new Rectangle2D.Double(0, 0, width, height);

        List<Item> items = new ArrayList<>();
        int wanted = 1 + rnd.nextInt(4);
        for (int attempt = 0; attempt < 40 && items.size() < wanted; attempt++) {
            int cls = rnd.nextInt(SyntheticScenes.CLASSES.size());
            double size = rnd.nextDouble(MIN_SIZE, MAX_SIZE);
            Shape shape = SyntheticScenes.shape(cls, size, rnd);
            double[] c = centre(shape.getBounds2D(), width, height, items, rnd);
            Shape placed = AffineTransform.getTranslateInstance(c[0], c[1]).createTransformedShape(shape);
            Rectangle2D inView = placed.getBounds2D().createIntersection(frame);
            if (inView.getWidth() < 1 || inView.getHeight() < 1) continue;
            // chosen against the ground under the part in view, as the video picks against the ground along the way
            Color color = SyntheticScenes.contrasting(ground,
                    new double[] {inView.getMinX(), inView.getMinY(), inView.getMaxX(), inView.getMaxY()}, rnd);
            items.add(new Item(cls, placed, color, rnd.nextInt(3) == 0, rnd.nextBoolean()));
        }

        // no post in 30% of the scenes (objects then hide only each other), one in half, two in the rest
        double p = rnd.nextDouble();
        int count = p < 0.3 ? 0 : p < 0.8 ? 1 : 2;
        List<Post> posts = new ArrayList<>();
        for (int k = 0; k < count; k++) posts.add(post(width, height, items, rnd));
        return new Layout(width, height, ground, List.copyOf(items), List.copyOf(posts), rnd.nextDouble(3, 10),
                rnd.nextLong());
    }

    /**
     * Where a shape of bounds {@code b} (about the origin) goes: cut off by an edge (or, now and then, a corner) of
     * the image, over an object placed before (one of them then hides a part of the other), or wholly in view.
     */
    private static double[] centre(Rectangle2D b, int width, int height, List<Item> items, SplittableRandom rnd) {
        double cx = rnd.nextDouble(-b.getMinX() + 1, width - b.getMaxX() - 1);
        double cy = rnd.nextDouble(-b.getMinY() + 1, height - b.getMaxY() - 1);
        double how = rnd.nextDouble();
        if (how < 0.45) {
            int edge = rnd.nextInt(4);
            if (edge < 2) cx = cutBy(edge, b.getMinX(), b.getMaxX(), width, rnd);
            else cy = cutBy(edge, b.getMinY(), b.getMaxY(), height, rnd);
            if (rnd.nextInt(4) == 0) {
                // a corner: an edge of the other axis too
                int other = edge < 2 ? 2 + rnd.nextInt(2) : rnd.nextInt(2);
                if (other < 2) cx = cutBy(other, b.getMinX(), b.getMaxX(), width, rnd);
                else cy = cutBy(other, b.getMinY(), b.getMaxY(), height, rnd);
            }
        } else if (how < 0.75 && !items.isEmpty()) {
            Rectangle2D o = items.get(rnd.nextInt(items.size())).shape().getBounds2D();
            double reach = (Math.max(b.getWidth(), b.getHeight()) + Math.max(o.getWidth(), o.getHeight())) / 2;
            double distance = rnd.nextDouble(0.3, 0.85) * reach;
            double angle = rnd.nextDouble(0, 2 * Math.PI);
            cx = o.getCenterX() + distance * Math.cos(angle) - b.getCenterX();
            cy = o.getCenterY() + distance * Math.sin(angle) - b.getCenterY();
        }
        return new double[] {cx, cy};
    }

    /**
     * The centre coordinate that leaves a share (from a sliver to all of it) of the shape's extent {@code min..max}
     * (about its centre) inside {@code 0..side}, the rest beyond edge {@code edge}: 0 left, 1 right, 2 top, 3 bottom.
     */
    private static double cutBy(int edge, double min, double max, int side, SplittableRandom rnd) {
        double shown = rnd.nextDouble(0.1, 1.0) * (max - min);
        return edge % 2 == 0 ? shown - max : side - shown - min;
    }

    /**
     * A post: upright (as the tracking video's) or lying, 10..26 px thick, a third of the image long or more, most
     * often across an object; its texture is the ground from another place across the image.
     */
    private static Post post(int width, int height, List<Item> items, SplittableRandom rnd) {
        boolean upright = rnd.nextDouble() < 0.7;
        double thick = rnd.nextDouble(10, 26);
        double length = rnd.nextDouble(0.35, 1.0) * (upright ? height : width);
        double x, y;
        if (!items.isEmpty() && rnd.nextDouble() < 0.8) {
            Rectangle2D o = items.get(rnd.nextInt(items.size())).shape().getBounds2D();
            x = o.getCenterX() + rnd.nextDouble(-0.5, 0.5) * o.getWidth();
            y = o.getCenterY() + rnd.nextDouble(-0.5, 0.5) * o.getHeight();
        } else {
            x = rnd.nextDouble(0, width);
            y = rnd.nextDouble(0, height);
        }
        double along = rnd.nextDouble(0, length);
        Rectangle2D strip = upright ? new Rectangle2D.Double(x - thick / 2, y - along, thick, length)
                : new Rectangle2D.Double(x - along, y - thick / 2, length, thick);
        double start = upright ? strip.getMinX() : strip.getMinY();
        double side = upright ? width : height;
        double source = rnd.nextDouble(0, side - thick);
        // far enough away that the post does not show the very ground it stands on
        if (Math.abs(source - start) < thick) source = (source + side / 2) % (side - thick);
        double shift = source - start;
        return upright ? new Post(strip, shift, 0) : new Post(strip, 0, shift);
    }

    /**
     * How much of each object of the layout shows, in its order of {@code items}: its body inside the image, less
     * whatever is painted over it (the posts, for one behind them; the objects painted after it).
     */
    static List<Visibility> visibility(Layout l) {
        Area frame = new Area(new Rectangle2D.Double(0, 0, l.width(), l.height()));
        List<Area> order = new ArrayList<>();     // what is painted, bottom first
        int[] at = new int[l.items().size()];     // where each object is in it
        for (int k = 0; k < at.length; k++) {
            if (l.items().get(k).behindPosts()) { at[k] = order.size(); order.add(l.items().get(k).body()); }
        }
        for (Post p : l.posts()) order.add(new Area(p.strip()));
        for (int k = 0; k < at.length; k++) {
            if (!l.items().get(k).behindPosts()) { at[k] = order.size(); order.add(l.items().get(k).body()); }
        }

        List<Visibility> out = new ArrayList<>();
        for (int k = 0; k < at.length; k++) {
            Area body = order.get(at[k]);
            Area shown = new Area(body);
            shown.intersect(frame);
            Area unhidden = new Area(shown);
            for (int above = at[k] + 1; above < order.size(); above++) unhidden.subtract(order.get(above));
            double whole = area(body), inView = area(shown);
            out.add(new Visibility(inView / whole, inView == 0 ? 0 : area(unhidden) / inView));
        }
        return out;
    }

    /**
     * The area of a shape: the shoelace formula over its outlines and holes (which run the other way round), its
     * curves flattened to within 0.01 px (a circle of 30 px then comes out 0.1% small, in all shares alike).
     */
    static double area(Shape s) {
        double sum = 0;
        double[] c = new double[6];
        double x0 = 0, y0 = 0, px = 0, py = 0;
        for (PathIterator it = s.getPathIterator(null, 0.01); !it.isDone(); it.next()) {
            switch (it.currentSegment(c)) {
                case PathIterator.SEG_MOVETO -> {
                    x0 = px = c[0];
                    y0 = py = c[1];
                }
                case PathIterator.SEG_LINETO -> {
                    sum += px * c[1] - c[0] * py;
                    px = c[0];
                    py = c[1];
                }
                case PathIterator.SEG_CLOSE -> {
                    sum += px * y0 - x0 * py;
                    px = x0;
                    py = y0;
                }
                default -> throw new IllegalStateException("a flattened path has only lines");
            }
        }
        return Math.abs(sum) / 2;
    }
}
