package io.argus.tools.tracking;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Shape;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferInt;
import java.util.Arrays;
import java.util.List;

/**
 * How much of each object a frame shows: the frame's shapes are painted in drawing order, each in its own flat
 * "colour" (its index), at {@value #SUPERSAMPLE}x the scene's resolution without antialiasing; an object's visibility
 * is the share of its shape's pixels that still carry its index (of those it covers when painted alone in the same
 * place, so an object in full view is exactly 1), times the share of its whole shape inside the frame (the part out
 * of the frame counts as hidden). Not thread-safe: one meter per thread.
 */
final class VisibilityMeter {
    static final int SUPERSAMPLE = 4;
    /** The outline SyntheticScenes draws around some objects: part of the object. */
    private static final float OUTLINE_WIDTH = 1.2f;
    private static final int OCCLUDER = 0xFFFFFF;

    /** One shape of the frame: an object (index >= 0) or an occluder (index -1). */
    record Layer(int index, Shape shape, boolean outlined) {}

    private final int width;
    private final int height;
    private final BufferedImage ids;
    private final int[] idPixels;
    private final BufferedImage alone;
    private final int[] alonePixels;

    VisibilityMeter(int sceneWidth, int sceneHeight) {
        this.width = sceneWidth * SUPERSAMPLE;
        this.height = sceneHeight * SUPERSAMPLE;
        this.ids = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        this.idPixels = ((DataBufferInt) ids.getRaster().getDataBuffer()).getData();
        this.alone = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        this.alonePixels = ((DataBufferInt) alone.getRaster().getDataBuffer()).getData();
    }

    /** The visibility (0..1) of objects 0..objects-1, given the frame's layers from the bottom up. */
    double[] measure(List<Layer> layers, int objects) {
        Arrays.fill(idPixels, 0);
        Graphics2D g = ids.createGraphics();
        g.scale(SUPERSAMPLE, SUPERSAMPLE);
        for (Layer l : layers) paint(g, l, l.index() < 0 ? OCCLUDER : l.index() + 1);
        g.dispose();
        int[] visible = new int[objects];
        for (int p : idPixels) {
            int v = p & 0xFFFFFF;
            if (v != 0 && v != OCCLUDER) visible[v - 1]++;
        }
        double[] out = new double[objects];
        Rectangle2D frame = new Rectangle2D.Double(0, 0, width / (double) SUPERSAMPLE, height / (double) SUPERSAMPLE);
        for (Layer l : layers) {
            if (l.index() < 0) continue;
            int inFrame = aloneInFrame(l);
            if (inFrame == 0) continue;
            double unhidden = visible[l.index()] / (double) inFrame;
            double inside = frame.contains(l.shape().getBounds2D()) ? 1 : inFrame / (double) wholeArea(l);
            out[l.index()] = Math.min(1, unhidden * inside);
        }
        return out;
    }

    /** The pixels of the frame the shape covers when painted alone there. */
    private int aloneInFrame(Layer l) {
        Graphics2D g = alone.createGraphics();
        g.scale(SUPERSAMPLE, SUPERSAMPLE);
        paint(g, l, 1);
        g.dispose();
        Rectangle2D b = l.shape().getBounds2D();
        int x0 = Math.max(0, (int) Math.floor(b.getMinX() * SUPERSAMPLE) - 4);
        int y0 = Math.max(0, (int) Math.floor(b.getMinY() * SUPERSAMPLE) - 4);
        int x1 = Math.min(width, (int) Math.ceil(b.getMaxX() * SUPERSAMPLE) + 4);
        int y1 = Math.min(height, (int) Math.ceil(b.getMaxY() * SUPERSAMPLE) + 4);
        int n = 0;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                int i = y * width + x;
                if ((alonePixels[i] & 0xFFFFFF) != 0) n++;
                alonePixels[i] = 0; // clean for the next shape
            }
        }
        return n;
    }

    private static void paint(Graphics2D g, Layer l, int code) {
        g.setColor(new Color(code));
        g.fill(l.shape());
        if (l.outlined()) {
            g.setStroke(new BasicStroke(OUTLINE_WIDTH));
            g.draw(l.shape());
        }
    }

    /** The pixels the shape covers alone, out of the frame included (painted moved by whole pixels). */
    private static int wholeArea(Layer l) {
        Rectangle2D b = l.shape().getBounds2D();
        int x0 = (int) Math.floor(b.getMinX() * SUPERSAMPLE) - 4, y0 = (int) Math.floor(b.getMinY() * SUPERSAMPLE) - 4;
        int w = (int) Math.ceil(b.getMaxX() * SUPERSAMPLE) - x0 + 4, h = (int) Math.ceil(b.getMaxY() * SUPERSAMPLE) - y0 + 4;
        BufferedImage alone = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = alone.createGraphics();
        g.translate(-x0, -y0);
        g.scale(SUPERSAMPLE, SUPERSAMPLE);
        paint(g, l, 1);
        g.dispose();
        int n = 0;
        for (int p : ((DataBufferInt) alone.getRaster().getDataBuffer()).getData()) if ((p & 0xFFFFFF) != 0) n++;
        return n;
    }
}
