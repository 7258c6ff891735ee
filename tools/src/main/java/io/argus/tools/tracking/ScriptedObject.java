package io.argus.tools.tracking;

import io.argus.trainer.data.SyntheticScenes;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Shape;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.util.SplittableRandom;

/**
 * One object of a {@link TrackingVideo}: a shape of the demo's classes drawn as {@link SyntheticScenes} draws them,
 * moving along its {@link ScriptedPath}. Objects are drawn in order of {@code layer} (then id): those below the
 * occluder's layer pass behind it, and of two objects that overlap the one of the higher layer hides the other.
 * {@code role} says what the script wants it for ("crosses object 3", "stops and goes on", ...).
 */
final class ScriptedObject {
    private final int id;
    private final int classId;
    private final double size;
    private final Color color;
    private final boolean outlined;
    private final long shapeSeed;
    private final int layer;
    private final String role;
    private final ScriptedPath path;
    private final Shape outline; // centred at the origin

    ScriptedObject(int id, int classId, double size, Color color, boolean outlined, long shapeSeed, int layer,
                   String role, ScriptedPath path) {
        this.id = id;
        this.classId = classId;
        this.size = size;
        this.color = color;
        this.outlined = outlined;
        this.shapeSeed = shapeSeed;
        this.layer = layer;
        this.role = role;
        this.path = path;
        // the shape SyntheticScenes draws for this seed, taken from a drawing nobody sees
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = scratch.createGraphics();
        this.outline = SyntheticScenes.drawObject(g, classId, size, 0, 0, color, outlined, new SplittableRandom(shapeSeed));
        g.dispose();
    }

    int id() { return id; }

    int classId() { return classId; }

    double size() { return size; }

    Color color() { return color; }

    boolean outlined() { return outlined; }

    int layer() { return layer; }

    String role() { return role; }

    ScriptedPath path() { return path; }

    /** The same object on another path (its colour was picked for where it goes, which a delay does not change). */
    ScriptedObject onPath(ScriptedPath other) {
        return new ScriptedObject(id, classId, size, color, outlined, shapeSeed, layer, role, other);
    }

    /** Draws the object centred at (cx, cy), scene pixels; returns its shape there. */
    Shape draw(Graphics2D g, double cx, double cy) {
        return SyntheticScenes.drawObject(g, classId, size, cx, cy, color, outlined, new SplittableRandom(shapeSeed));
    }

    /** The object's shape centred at (cx, cy), without drawing it. */
    Shape shapeAt(double cx, double cy) {
        return AffineTransform.getTranslateInstance(cx, cy).createTransformedShape(outline);
    }

    /** Half the larger side of the shape's bounding box: how far it reaches from its centre at most, along x or y. */
    double reach() {
        var b = outline.getBounds2D();
        return Math.max(Math.max(-b.getMinX(), b.getMaxX()), Math.max(-b.getMinY(), b.getMaxY()));
    }
}
