package io.argus.trainer.data;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.util.SplittableRandom;

/**
 * The ground the shapes stand on, in the synthetic scenes and in the tracking video alike: a gradient under
 * translucent lines, dots and blobs, Gaussian noise per pixel on the finished picture, and posts (strips of another
 * part of the same ground, with dark edges) that objects can pass behind. One recipe for both, so that what the demo
 * model learns on the scenes is what it sees in the video.
 */
public final class Backdrop {
    private Backdrop() {}

    /** A new backdrop of {@code w} x {@code h} (3-byte BGR), without noise. */
    public static BufferedImage paint(int w, int h, SplittableRandom rnd) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        paint(g, w, h, rnd);
        g.dispose();
        return img;
    }

    /** Paints the backdrop over the whole of {@code g}'s {@code w} x {@code h}. */
    static void paint(Graphics2D g, int w, int h, SplittableRandom rnd) {
        g.setPaint(new GradientPaint((float) rnd.nextDouble(w), (float) rnd.nextDouble(h), randomColor(rnd, 255),
                (float) rnd.nextDouble(w), (float) rnd.nextDouble(h), randomColor(rnd, 255)));
        g.fillRect(0, 0, w, h);
        int clutter = 25 + rnd.nextInt(30);
        for (int i = 0; i < clutter; i++) {
            g.setColor(randomColor(rnd, 40 + rnd.nextInt(60)));
            double x = rnd.nextDouble(-10, w + 10);
            double y = rnd.nextDouble(-10, h + 10);
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    g.setStroke(new BasicStroke((float) rnd.nextDouble(1, 4)));
                    g.draw(new Line2D.Double(x, y, x + rnd.nextDouble(-60, 60), y + rnd.nextDouble(-60, 60)));
                }
                case 1 -> {
                    double d = rnd.nextDouble(2, 7);
                    g.fill(new Ellipse2D.Double(x, y, d, d));
                }
                default -> {
                    // a soft irregular blob, larger than the objects' details
                    Path2D p = new Path2D.Double();
                    double base = rnd.nextDouble(8, 30);
                    for (int k = 0; k < 7; k++) {
                        double a = 2 * Math.PI * k / 7;
                        double rad = base * rnd.nextDouble(0.6, 1.4);
                        if (k == 0) p.moveTo(x + rad * Math.cos(a), y + rad * Math.sin(a));
                        else p.lineTo(x + rad * Math.cos(a), y + rad * Math.sin(a));
                    }
                    p.closePath();
                    g.fill(p);
                }
            }
        }
    }

    static Color randomColor(SplittableRandom rnd, int alpha) {
        return new Color(rnd.nextInt(256), rnd.nextInt(256), rnd.nextInt(256), alpha);
    }

    /**
     * Paints a post over {@code strip}: the {@code backdrop} as it is {@code shiftX}, {@code shiftY} pixels away (so
     * the post looks like more of the ground, not like a flat bar that a detector would take for a stretched square),
     * with dark edges along its long sides.
     */
    public static void paintPost(Graphics2D g, BufferedImage backdrop, Rectangle2D strip, double shiftX,
                                 double shiftY) {
        Shape clip = g.getClip();
        g.clip(strip);
        g.drawImage(backdrop, (int) Math.round(-shiftX), (int) Math.round(-shiftY), null);
        g.setClip(clip);
        g.setColor(new Color(0, 0, 0, 110));
        g.setStroke(new BasicStroke(1.5f));
        double x0 = strip.getMinX(), y0 = strip.getMinY(), x1 = strip.getMaxX(), y1 = strip.getMaxY();
        if (strip.getHeight() >= strip.getWidth()) {
            g.draw(new Line2D.Double(x0, y0, x0, y1));
            g.draw(new Line2D.Double(x1, y0, x1, y1));
        } else {
            g.draw(new Line2D.Double(x0, y0, x1, y0));
            g.draw(new Line2D.Double(x0, y1, x1, y1));
        }
    }

    /** The mean colour {r, g, b} of the image's pixels inside {@code box}. */
    public static double[] meanColor(BufferedImage img, Rectangle2D box) {
        byte[] px = ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
        int w = img.getWidth();
        double r = 0, g = 0, b = 0;
        int n = 0;
        for (int y = (int) box.getMinY(); y < (int) Math.ceil(box.getMaxY()) && y < img.getHeight(); y++) {
            for (int x = (int) box.getMinX(); x < (int) Math.ceil(box.getMaxX()) && x < w; x++) {
                int i = 3 * (y * w + x);
                b += px[i] & 0xff;
                g += px[i + 1] & 0xff;
                r += px[i + 2] & 0xff;
                n++;
            }
        }
        return n == 0 ? new double[] {128, 128, 128} : new double[] {r / n, g / n, b / n};
    }

    /** Adds Gaussian noise of {@code sigma} to every channel of a 3-byte BGR image. */
    public static void noise(BufferedImage img, double sigma, SplittableRandom rnd) {
        byte[] px = ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < px.length; i++) {
            // Box-Muller from two uniforms of this generator (keeps the stream reproducible)
            double u = 1 - rnd.nextDouble(), v = rnd.nextDouble();
            double gaussian = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
            px[i] = (byte) Math.max(0, Math.min(255, (int) Math.round((px[i] & 0xff) + sigma * gaussian)));
        }
    }
}
