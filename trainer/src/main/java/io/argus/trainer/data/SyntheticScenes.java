package io.argus.trainer.data;

import io.argus.detector.io.AtomicFile;
import io.argus.trainer.loss.Truth;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;

/**
 * The synthetic detection dataset: filled shapes of five classes (circle, square, triangle, star, cross), each
 * 16..48 px, rotated and stretched a little, in colours that stand out from a textured {@link Backdrop} (a gradient
 * under translucent clutter of lines, dots and blobs), partly hidden by each other or by bars drawn across them, with
 * pixel noise on top. These whole scenes keep every object inside the image and never hide much of one; a dataset
 * may mix in the {@link PartialScenes} (objects cut off by the border, behind posts and each other) for what a camera
 * sees. Scene i depends only on (seed, i) and its kind, so a dataset is reproducible from its seed.
 */
public final class SyntheticScenes {
    public static final List<String> CLASSES = List.of("circle", "square", "triangle", "star", "cross");
    static final int MIN_SIZE = 16;
    static final int MAX_SIZE = 48;
    /** The width of the darker edge some objects have: part of the object where it shows. */
    static final float OUTLINE_WIDTH = 1.2f;

    private SyntheticScenes() {}

    /** A rendered scene: the image (3-byte BGR) and its objects relative to it. */
    public record Scene(BufferedImage image, List<Truth> truths) {}

    /**
     * Whether scene {@code index} of a dataset with a share {@code partial} of partial scenes is one: every scene
     * where the running count of partial ones, index x partial, passes a whole number (so any stretch of the
     * dataset holds its share, and the choice needs no random numbers that would change the scenes).
     */
    public static boolean isPartial(int index, double partial) {
        return Math.floor((index + 1) * partial) > Math.floor(index * partial);
    }

    /** Whole scene {@code index} of {@code seed}: the image (3-byte BGR) and its objects relative to it. */
    public static Scene render(int width, int height, long seed, int index) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index * 0xBF58476D1CE4E5B9L + 1);
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        Backdrop.paint(g, width, height, rnd);

        List<double[]> boxes = new ArrayList<>();    // x0, y0, x1, y1 in pixels
        List<Truth> truths = new ArrayList<>();
        int wanted = 1 + rnd.nextInt(4);
        for (int attempt = 0; attempt < 40 && truths.size() < wanted; attempt++) {
            int cls = rnd.nextInt(CLASSES.size());
            double size = rnd.nextDouble(MIN_SIZE, MAX_SIZE);
            Shape shape = shape(cls, size, rnd);
            Rectangle2D b = shape.getBounds2D();
            if (b.getWidth() >= width - 2 || b.getHeight() >= height - 2) continue;
            double cx = rnd.nextDouble(-b.getMinX() + 1, width - b.getMaxX() - 1);
            double cy = rnd.nextDouble(-b.getMinY() + 1, height - b.getMaxY() - 1);
            double[] box = {cx + b.getMinX(), cy + b.getMinY(), cx + b.getMaxX(), cy + b.getMaxY()};
            if (overlapsTooMuch(box, boxes)) continue;
            Color color = contrasting(img, box, rnd);
            Shape placed = AffineTransform.getTranslateInstance(cx, cy).createTransformedShape(shape);
            paintObject(g, placed, color, rnd.nextInt(3) == 0);
            boxes.add(box);
            truths.add(new Truth((float) ((box[0] + box[2]) / 2 / width), (float) ((box[1] + box[3]) / 2 / height),
                    (float) ((box[2] - box[0]) / width), (float) ((box[3] - box[1]) / height), cls));
        }
        for (double[] box : boxes) {
            if (rnd.nextDouble() < 0.35) occlude(g, box, rnd);
        }
        g.dispose();
        Backdrop.noise(img, rnd.nextDouble(3, 10), rnd);
        return new Scene(img, truths);
    }

    /**
     * Draws one object as {@link #render} draws its objects: the shape of class {@code cls}, its bounding box's larger
     * side near {@code size}, centred at ({@code cx}, {@code cy}), filled with {@code color} and, when
     * {@code outlined}, edged in a darker shade. {@code rnd} picks the shape's stretch and rotation, so a generator in
     * the same state draws the same shape again (a moving object of a video). Returns the shape as drawn.
     */
    public static Shape drawObject(Graphics2D g, int cls, double size, double cx, double cy, Color color,
                                   boolean outlined, SplittableRandom rnd) {
        Shape placed = AffineTransform.getTranslateInstance(cx, cy).createTransformedShape(shape(cls, size, rnd));
        paintObject(g, placed, color, outlined);
        return placed;
    }

    /** Fills a placed shape with {@code color} and, when {@code outlined}, edges it in a darker shade. */
    static void paintObject(Graphics2D g, Shape placed, Color color, boolean outlined) {
        g.setColor(color);
        g.fill(placed);
        if (outlined) {
            g.setColor(color.darker().darker());
            g.setStroke(new BasicStroke(OUTLINE_WIDTH));
            g.draw(placed);
        }
    }

    /** A shape of class {@code cls} with its bounding box's larger side near {@code size}, centred at the origin. */
    static Shape shape(int cls, double size, SplittableRandom rnd) {
        double r = size / 2;
        double stretch = rnd.nextDouble(0.8, 1.25);
        double angle = rnd.nextDouble(0, 2 * Math.PI);
        Shape s = switch (cls) {
            case 0 -> new Ellipse2D.Double(-r * stretch, -r / stretch, 2 * r * stretch, 2 * r / stretch);
            case 1 -> new Rectangle2D.Double(-r * 0.75 * stretch, -r * 0.75 / stretch, 1.5 * r * stretch,
                    1.5 * r / stretch);
            case 2 -> polygon(3, r, r, -Math.PI / 2);
            case 3 -> star(r);
            default -> cross(r);
        };
        if (cls == 0) return s;
        AffineTransform t = AffineTransform.getRotateInstance(angle);
        if (cls != 1) t.scale(stretch, 1 / stretch);
        return t.createTransformedShape(s);
    }

    private static Path2D polygon(int corners, double outer, double inner, double phase) {
        Path2D p = new Path2D.Double();
        for (int i = 0; i < corners; i++) {
            double a = phase + 2 * Math.PI * i / corners;
            double rad = i % 2 == 0 ? outer : inner;
            if (i == 0) p.moveTo(rad * Math.cos(a), rad * Math.sin(a));
            else p.lineTo(rad * Math.cos(a), rad * Math.sin(a));
        }
        p.closePath();
        return p;
    }

    private static Path2D star(double r) {
        return polygon(10, r, 0.45 * r, -Math.PI / 2);
    }

    private static Shape cross(double r) {
        double arm = 0.32 * r;
        Path2D p = new Path2D.Double();
        p.append(new Rectangle2D.Double(-r, -arm, 2 * r, 2 * arm), false);
        p.append(new Rectangle2D.Double(-arm, -r, 2 * arm, 2 * r), false);
        return new java.awt.geom.Area(p);
    }

    /** Boxes may overlap a little (partial occlusion), but not so much that one hides the other. */
    private static boolean overlapsTooMuch(double[] box, List<double[]> boxes) {
        for (double[] o : boxes) {
            double iw = Math.min(box[2], o[2]) - Math.max(box[0], o[0]);
            double ih = Math.min(box[3], o[3]) - Math.max(box[1], o[1]);
            if (iw <= 0 || ih <= 0) continue;
            double inter = iw * ih;
            double a = (box[2] - box[0]) * (box[3] - box[1]);
            double b = (o[2] - o[0]) * (o[3] - o[1]);
            if (inter / Math.min(a, b) > 0.3) return true;
        }
        return false;
    }

    /** A saturated colour whose brightness or hue differs clearly from the background under the box. */
    static Color contrasting(BufferedImage img, double[] box, SplittableRandom rnd) {
        double[] mean = meanColor(img, box);
        Color best = null;
        double bestDistance = -1;
        for (int attempt = 0; attempt < 12; attempt++) {
            Color c = Color.getHSBColor((float) rnd.nextDouble(), (float) rnd.nextDouble(0.5, 1),
                    (float) rnd.nextDouble(0.35, 1));
            double dr = c.getRed() - mean[0], dg = c.getGreen() - mean[1], db = c.getBlue() - mean[2];
            double d = Math.sqrt(dr * dr + dg * dg + db * db);
            if (d > bestDistance) {
                best = c;
                bestDistance = d;
            }
            if (d > 150) break;
        }
        return best;
    }

    /**
     * The mean colour {r, g, b} under the box, from every other pixel of every other row. Not
     * {@link Backdrop#meanColor}, which reads every pixel: the colours it picks would differ a little, and with them
     * every whole scene of every seed (the demo model's recipe in docs/training.md depends on them).
     */
    private static double[] meanColor(BufferedImage img, double[] box) {
        byte[] px = ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
        int w = img.getWidth();
        double r = 0, g = 0, b = 0;
        int n = 0;
        for (int y = (int) box[1]; y < (int) box[3]; y += 2) {
            for (int x = (int) box[0]; x < (int) box[2]; x += 2) {
                int i = 3 * (y * w + x);
                b += px[i] & 0xff;
                g += px[i + 1] & 0xff;
                r += px[i + 2] & 0xff;
                n++;
            }
        }
        return n == 0 ? new double[] {128, 128, 128} : new double[] {r / n, g / n, b / n};
    }

    /** A bar across one side of the box, hiding a part of the object. */
    private static void occlude(Graphics2D g, double[] box, SplittableRandom rnd) {
        double w = box[2] - box[0];
        double h = box[3] - box[1];
        double size = Math.max(w, h);
        double thickness = size * rnd.nextDouble(0.12, 0.22);
        double length = size * rnd.nextDouble(0.7, 1.3);
        double edge = rnd.nextDouble(0, 0.2);
        double along = rnd.nextDouble(0.2, 0.8);
        double cx;
        double cy;
        switch (rnd.nextInt(4)) {
            case 0 -> { cx = box[0] + w * edge; cy = box[1] + h * along; }
            case 1 -> { cx = box[2] - w * edge; cy = box[1] + h * along; }
            case 2 -> { cx = box[0] + w * along; cy = box[1] + h * edge; }
            default -> { cx = box[0] + w * along; cy = box[3] - h * edge; }
        }
        Shape bar = new Rectangle2D.Double(-length / 2, -thickness / 2, length, thickness);
        AffineTransform at = AffineTransform.getTranslateInstance(cx, cy);
        at.rotate(rnd.nextDouble(0, Math.PI));
        g.setColor(Backdrop.randomColor(rnd, 255));
        g.fill(at.createTransformedShape(bar));
    }

    /** Writes {@code count} whole scenes: {@link #write(Path, int, long, int, double, double)} without partial ones. */
    public static Path write(Path dir, int count, long seed, int size, double valFraction) {
        return write(dir, count, seed, size, valFraction, 0);
    }

    /**
     * Writes {@code count} scenes in Darknet's layout under {@code dir}: images/{train,val}/NNNNNN.png,
     * labels/{train,val}/NNNNNN.txt, train.txt and val.txt (paths relative to dir), synth.names and synth.data.
     * The last {@code valFraction} of the scenes (at least one) form the validation split. A share {@code partial}
     * (0..1) of them, spread evenly over both splits, are {@link PartialScenes}, the rest whole scenes; with 0 the
     * dataset is the one this method wrote before partial scenes existed, image for image. Returns the .data file.
     */
    public static Path write(Path dir, int count, long seed, int size, double valFraction, double partial) {
        if (count < 2) throw new IllegalArgumentException("count: expected at least 2 scenes, found " + count);
        if (size < 2 * MAX_SIZE) {
            throw new IllegalArgumentException("size: expected at least " + 2 * MAX_SIZE + " px, found " + size);
        }
        if (!(partial >= 0 && partial <= 1)) {
            throw new IllegalArgumentException("partial: expected a share in [0, 1], found " + partial);
        }
        int val = Math.max(1, (int) Math.round(count * valFraction));
        int train = count - val;
        if (train < 1) throw new IllegalArgumentException("no training images left after a validation split of " + val);
        try {
            for (String split : List.of("train", "val")) {
                Files.createDirectories(dir.resolve("images").resolve(split));
                Files.createDirectories(dir.resolve("labels").resolve(split));
            }
            String[] paths = new String[count];
            IntStream.range(0, count).parallel().forEach(i -> {
                String split = i < train ? "train" : "val";
                String name = String.format("%06d", i);
                Scene s = isPartial(i, partial) ? PartialScenes.render(size, size, seed, i) : render(size, size, seed, i);
                Path image = dir.resolve("images").resolve(split).resolve(name + ".png");
                Path label = dir.resolve("labels").resolve(split).resolve(name + ".txt");
                try {
                    ImageIO.write(s.image(), "png", image.toFile());
                    StringBuilder b = new StringBuilder();
                    for (Truth t : s.truths()) b.append(LabelFile.format(t)).append('\n');
                    Files.writeString(label, b.toString(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write scene " + image + ": " + e.getMessage(), e);
                }
                paths[i] = "images/" + split + "/" + name + ".png";
            });
            // the lists and the .data atomically, the .data last: it commits the dataset (a kill before it leaves a
            // directory without synth.data, which a cache such as the bench's fine-tune writes again)
            AtomicFile.writeString(dir.resolve("train.txt"), lines(List.of(paths).subList(0, train)));
            AtomicFile.writeString(dir.resolve("val.txt"), lines(List.of(paths).subList(train, count)));
            AtomicFile.writeString(dir.resolve("synth.names"), lines(CLASSES));
            Path data = dir.resolve("synth.data");
            AtomicFile.writeString(data, "classes=" + CLASSES.size() + "\ntrain=train.txt\nvalid=val.txt\nnames=synth.names\n");
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the synthetic dataset to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** One line each, each ended by a newline, as Files.write(List) writes them. */
    private static String lines(List<String> lines) {
        StringBuilder b = new StringBuilder();
        for (String l : lines) b.append(l).append(System.lineSeparator());
        return b.toString();
    }
}
