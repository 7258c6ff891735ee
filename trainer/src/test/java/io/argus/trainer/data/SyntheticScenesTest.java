package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.argus.trainer.loss.Truth;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Area;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.awt.image.DataBufferInt;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The synthetic dataset's partial scenes: reproducible from their seed, mixed into a dataset in the share asked for
 * without changing its whole scenes, and labelled by the rule (the box of the part in view; no label when less than
 * 30% of the shape is in view or less than half of that shows).
 */
@Budget(seconds = 10)
class SyntheticScenesTest {
    private static final int SIZE = 128;

    @TempDir
    Path tmp;

    @Test
    void aPartialSceneDependsOnlyOnItsSeedAndIndex() {
        SyntheticScenes.Scene a = PartialScenes.render(SIZE, SIZE, 9, 3);
        SyntheticScenes.Scene b = PartialScenes.render(SIZE, SIZE, 9, 3);
        assertEquals(a.truths(), b.truths());
        assertArrayEquals(pixels(a.image()), pixels(b.image()), "same seed and index, same pixels");
        assertFalse(Arrays.equals(pixels(a.image()), pixels(PartialScenes.render(SIZE, SIZE, 9, 4).image())));
        assertFalse(Arrays.equals(pixels(a.image()), pixels(PartialScenes.render(SIZE, SIZE, 10, 3).image())));
        assertFalse(Arrays.equals(pixels(a.image()), pixels(SyntheticScenes.render(SIZE, SIZE, 9, 3).image())),
                "not the whole scene of the same seed and index");
    }

    /** A share of partial scenes spread over the dataset; the whole ones are those of a dataset without any. */
    @Test
    void aDatasetMixesInItsShareOfPartialScenesAndKeepsItsWholeOnes() throws Exception {
        for (double share : new double[] {0, 0.25, 0.5, 1}) {
            long n = java.util.stream.IntStream.range(0, 100).filter(i -> SyntheticScenes.isPartial(i, share)).count();
            assertEquals(Math.round(100 * share), n, "share " + share);
            long inVal = java.util.stream.IntStream.range(90, 100).filter(i -> SyntheticScenes.isPartial(i, share))
                    .count();
            assertEquals(Math.round(10 * share), inVal, "the validation split has its share too: " + share);
        }
        Path whole = SyntheticScenes.write(tmp.resolve("whole"), 12, 7, SIZE, 0.25);
        Path mixed = SyntheticScenes.write(tmp.resolve("mixed"), 12, 7, SIZE, 0.25, 0.5);
        for (int i = 0; i < 12; i++) {
            String label = "labels/" + (i < 9 ? "train" : "val") + String.format("/%06d.txt", i);
            String a = Files.readString(whole.resolveSibling(label)), b = Files.readString(mixed.resolveSibling(label));
            List<Truth> expected = (SyntheticScenes.isPartial(i, 0.5) ? PartialScenes.render(SIZE, SIZE, 7, i)
                    : SyntheticScenes.render(SIZE, SIZE, 7, i)).truths();
            assertEquals(expected.stream().map(t -> LabelFile.format(t) + "\n").collect(Collectors.joining()), b,
                    "scene " + i);
            if (!SyntheticScenes.isPartial(i, 0.5)) {
                assertEquals(a, b, "whole scene " + i + " as without partial ones");
                String image = label.replace("labels/", "images/").replace(".txt", ".png");
                assertEquals(-1, Files.mismatch(whole.resolveSibling(image), mixed.resolveSibling(image)), image);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> SyntheticScenes.write(tmp.resolve("x"), 4, 1, SIZE, 0.25, 1.5));
    }

    /** Labels of partial scenes are the shapes' boxes cut to the image; some are cut, none reaches outside. */
    @Test
    void labelsAreTheShapesBoxesCutToTheImage() {
        int cut = 0, labels = 0;
        Rectangle2D frame = new Rectangle2D.Double(0, 0, SIZE, SIZE);
        for (int index = 0; index < 200; index++) {
            PartialScenes.Layout l = PartialScenes.layout(SIZE, SIZE, 3, index);
            List<PartialScenes.Visibility> seen = PartialScenes.visibility(l);
            List<Truth> truths = PartialScenes.render(SIZE, SIZE, 3, index).truths();
            List<Truth> expected = new ArrayList<>();
            for (int k = 0; k < l.items().size(); k++) {
                if (!seen.get(k).labelled()) continue;
                Rectangle2D whole = l.items().get(k).shape().getBounds2D();
                Rectangle2D box = whole.createIntersection(frame);
                expected.add(new Truth((float) (box.getCenterX() / SIZE), (float) (box.getCenterY() / SIZE),
                        (float) (box.getWidth() / SIZE), (float) (box.getHeight() / SIZE), l.items().get(k).classId()));
                if (!frame.contains(whole)) cut++;
            }
            assertEquals(expected, truths, "scene " + index);
            for (Truth t : truths) {
                assertTrue(t.left() >= -1e-6 && t.right() <= 1 + 1e-6 && t.top() >= -1e-6 && t.bottom() <= 1 + 1e-6,
                        t.toString());
                labels++;
            }
        }
        assertTrue(labels >= 250, "labels in 200 scenes: " + labels);
        assertTrue(cut >= labels / 5, "cut off by the border: " + cut + " of " + labels);
    }

    /**
     * What the rule decides from, measured independently: the objects and posts painted in flat colours, each its
     * own, in the scene's order, 4x finer and without antialiasing; an object's share in view and unhidden counted
     * in pixels. The geometry agrees, and objects are labelled exactly when the rule says so; scenes hold all the
     * cases (labelled though partly hidden, dropped as mostly hidden, dropped as mostly out of the image).
     */
    @Test
    void objectsAreLabelledWhenEnoughOfThemShows() {
        int keptHidden = 0, droppedHidden = 0, droppedOut = 0, keptCut = 0;
        for (int index = 0; index < 120; index++) {
            PartialScenes.Layout l = PartialScenes.layout(SIZE, SIZE, 11, index);
            List<PartialScenes.Visibility> seen = PartialScenes.visibility(l);
            double[][] counted = countPixels(l);
            for (int k = 0; k < l.items().size(); k++) {
                PartialScenes.Visibility v = seen.get(k);
                String what = "scene " + index + ", object " + k + ": " + v + " vs " + Arrays.toString(counted[k]);
                assertEquals(counted[k][0], v.inView(), 0.03, what);
                // a sliver in view has too few pixels to count its hidden share on; the rule drops it anyway
                if (v.inView() >= 0.2) assertEquals(counted[k][1], v.unhidden(), 0.04, what);
                assertEquals(v.inView() >= 0.3 && v.unhidden() >= 0.5, v.labelled(), what);
                if (v.labelled() && v.unhidden() < 0.9) keptHidden++;
                if (v.inView() >= 0.3 && v.unhidden() < 0.5) droppedHidden++;
                if (v.inView() < 0.3) droppedOut++;
                if (v.labelled() && v.inView() < 0.9) keptCut++;
            }
        }
        assertTrue(keptHidden >= 10 && droppedHidden >= 3 && droppedOut >= 10 && keptCut >= 20,
                "kept though partly hidden " + keptHidden + ", dropped as mostly hidden " + droppedHidden
                        + ", dropped as mostly out " + droppedOut + ", kept though cut " + keptCut);
    }

    @Test
    void areaCountsHolesOut() {
        Area ring = new Area(new Rectangle2D.Double(0, 0, 10, 10));
        ring.subtract(new Area(new Rectangle2D.Double(2, 2, 4, 5)));
        assertEquals(80, PartialScenes.area(ring), 1e-9);
        assertEquals(Math.PI * 25, PartialScenes.area(new java.awt.geom.Ellipse2D.Double(0, 0, 10, 10)),
                Math.PI * 25 * 0.005, "a circle's curves flattened");
    }

    /** Per object of the layout: {share in view, share of that not hidden}, counted in pixels. */
    private static double[][] countPixels(PartialScenes.Layout l) {
        int s = 4, w = l.width() * s, h = l.height() * s;
        BufferedImage ids = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = ids.createGraphics();
        g.scale(s, s);
        List<PartialScenes.Item> items = l.items();
        for (int k = 0; k < items.size(); k++) if (items.get(k).behindPosts()) paint(g, items.get(k), k + 1);
        g.setColor(Color.WHITE);
        for (PartialScenes.Post p : l.posts()) g.fill(p.strip());
        for (int k = 0; k < items.size(); k++) if (!items.get(k).behindPosts()) paint(g, items.get(k), k + 1);
        g.dispose();
        int[] visible = new int[items.size() + 1];
        for (int p : ((DataBufferInt) ids.getRaster().getDataBuffer()).getData()) {
            int v = p & 0xFFFFFF;
            if (v > 0 && v <= items.size()) visible[v]++;
        }
        double[][] out = new double[items.size()][];
        for (int k = 0; k < items.size(); k++) {
            // alone, on a canvas just around it, to count all of it and its part in the image
            Rectangle2D b = items.get(k).shape().getBounds2D();
            int x0 = (int) Math.floor(b.getMinX() * s) - 8, y0 = (int) Math.floor(b.getMinY() * s) - 8;
            int aw = (int) Math.ceil(b.getMaxX() * s) - x0 + 8, ah = (int) Math.ceil(b.getMaxY() * s) - y0 + 8;
            BufferedImage alone = new BufferedImage(aw, ah, BufferedImage.TYPE_INT_RGB);
            Graphics2D a = alone.createGraphics();
            a.translate(-x0, -y0);
            a.scale(s, s);
            paint(a, items.get(k), 1);
            a.dispose();
            int whole = 0, inView = 0;
            int[] px = ((DataBufferInt) alone.getRaster().getDataBuffer()).getData();
            for (int y = 0; y < ah; y++) {
                for (int x = 0; x < aw; x++) {
                    if ((px[y * aw + x] & 0xFFFFFF) == 0) continue;
                    whole++;
                    int fx = x + x0, fy = y + y0;
                    if (fx >= 0 && fx < w && fy >= 0 && fy < h) inView++;
                }
            }
            out[k] = new double[] {inView / (double) whole, inView == 0 ? 0 : visible[k + 1] / (double) inView};
        }
        return out;
    }

    private static void paint(Graphics2D g, PartialScenes.Item item, int code) {
        g.setColor(new Color(code));
        g.fill(item.shape());
        if (item.outlined()) {
            g.setStroke(new BasicStroke(SyntheticScenes.OUTLINE_WIDTH));
            g.draw(item.shape());
        }
    }

    private static byte[] pixels(BufferedImage img) {
        return ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
    }
}
