package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.testkit.Budget;
import io.argus.trainer.loss.Truth;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dataset store in Darknet's layout, its error messages, and the augmentation's box bookkeeping. */
@Budget(seconds = 5)
class DataTest {
    @TempDir
    Path dir;

    @Test
    void darknetLayoutRoundTrip() throws Exception {
        Files.createDirectories(dir.resolve("images"));
        Files.createDirectories(dir.resolve("labels"));
        ImageIO.write(new BufferedImage(20, 10, BufferedImage.TYPE_3BYTE_BGR), "png",
                dir.resolve("images/a.png").toFile());
        Files.writeString(dir.resolve("labels/a.txt"), "1 0.5 0.5 0.2 0.4\n\n0 0.25 0.75 0.1 0.1\n");
        Files.writeString(dir.resolve("train.txt"), "images/a.png\n");
        Files.writeString(dir.resolve("x.data"), "# comment\nclasses = 2\ntrain = train.txt\nvalid=train.txt\n");
        DataFile d = DataFile.read(dir.resolve("x.data"));
        assertEquals(2, d.classes());
        Dataset ds = Dataset.fromList(d.requireTrain(), d.classes());
        assertEquals(1, ds.size());
        assertEquals(List.of(new Truth(0.5f, 0.5f, 0.2f, 0.4f, 1), new Truth(0.25f, 0.75f, 0.1f, 0.1f, 0)),
                ds.sample(0).truths());
        assertEquals(20, ds.image(0).width());
        assertEquals(dir.resolve("labels/a.txt"), LabelFile.forImage(dir.resolve("images/a.png")));
    }

    @Test
    void badInputNamesFileLineAndProblem() throws Exception {
        Path label = dir.resolve("l.txt");
        Files.writeString(label, "0 0.5 0.5 0.2 0.2\n3 0.5 0.5 0.2 0.2\n");
        var e = assertThrows(IllegalArgumentException.class, () -> LabelFile.read(label, 2));
        assertEquals(label + ":2: class 3 outside 0..1", e.getMessage());
        Files.writeString(label, "0 0.5 1.5 0.2 0.2\n");
        e = assertThrows(IllegalArgumentException.class, () -> LabelFile.read(label, 2));
        assertEquals(label + ":1: y = 1.5: expected a value relative to the image in 0..1", e.getMessage());
        Files.writeString(label, "0 0.5 0.5 0.2\n");
        e = assertThrows(IllegalArgumentException.class, () -> LabelFile.read(label, 2));
        assertEquals(label + ":1: expected 5 fields 'class x y w h', found 4", e.getMessage());
        Path data = dir.resolve("bad.data");
        Files.writeString(data, "train=t.txt\n");
        e = assertThrows(IllegalArgumentException.class, () -> DataFile.read(data));
        assertEquals(data + ": missing required key 'classes'", e.getMessage());
        Path list = dir.resolve("list.txt");
        Files.writeString(list, "missing.png\n");
        e = assertThrows(IllegalArgumentException.class, () -> Dataset.fromList(list, 2));
        assertTrue(e.getMessage().startsWith(list + ":1: image missing.png not found"), e.getMessage());
    }

    /** A grey image with one red rectangle; after augmentation the red pixels must sit inside the moved box. */
    @Test
    void boxesFollowCropResizeAndFlip() {
        int w = 80;
        int h = 60;
        byte[] px = new byte[w * h * 3];
        int x0 = 50, y0 = 10, x1 = 70, y1 = 40;        // red at [50, 70) x [10, 40)
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                boolean red = x >= x0 && x < x1 && y >= y0 && y < y1;
                int i = 3 * (y * w + x);
                px[i] = (byte) (red ? 0 : 100);
                px[i + 1] = (byte) (red ? 0 : 100);
                px[i + 2] = (byte) (red ? 255 : 100);
            }
        }
        BgrImage img = BgrImage.of(w, h, px);
        Truth t = new Truth((x0 + x1) / 2f / w, (y0 + y1) / 2f / h, (float) (x1 - x0) / w, (float) (y1 - y0) / h, 0);
        Augmentation aug = new Augmentation(0.3f, 0, 1, 1, true, false);
        int net = 64;
        float[] out = new float[3 * net * net];
        int flipped = 0;
        for (int seed = 0; seed < 40; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            List<Truth> moved = Augmenter.apply(img, List.of(t), aug, rnd, net, net, out, 0);
            int minX = net, minY = net, maxX = -1, maxY = -1;
            for (int y = 0; y < net; y++) {
                for (int x = 0; x < net; x++) {
                    float r = out[y * net + x];
                    float g = out[net * net + y * net + x];
                    if (r > 0.7f && g < 0.2f) {
                        minX = Math.min(minX, x);
                        maxX = Math.max(maxX, x);
                        minY = Math.min(minY, y);
                        maxY = Math.max(maxY, y);
                    }
                }
            }
            if (maxX < 0) {
                assertTrue(moved.isEmpty() || moved.get(0).w() * net < 2 || moved.get(0).h() * net < 2,
                        "seed " + seed + ": box kept but no red pixel visible");
                continue;
            }
            assertEquals(1, moved.size(), "seed " + seed);
            Truth m = moved.get(0);
            assertEquals(m.left() * net, minX, 1.6, "left, seed " + seed);
            assertEquals(m.right() * net, maxX + 1, 1.6, "right, seed " + seed);
            assertEquals(m.top() * net, minY, 1.6, "top, seed " + seed);
            assertEquals(m.bottom() * net, maxY + 1, 1.6, "bottom, seed " + seed);
            if (m.x() < 0.5f) flipped++;
        }
        assertTrue(flipped > 5, "the red box (right half) lands on the left when flipped: " + flipped);
    }

    @Test
    void resizeZoomsTheImageByUpToItsFactorEitherWay() {
        BgrImage img = BgrImage.of(90, 90, new byte[90 * 90 * 3]);
        Truth t = new Truth(0.5f, 0.5f, 0.2f, 0.2f, 0);
        float[] out = new float[3 * 64 * 64];
        // resize=1.5: crops from 2/3 to 1.5 times the image, so the box is 1/1.5 .. 1.5 times as wide
        float[] widths = boxWidths(img, t, 1.5f, out);
        assertTrue(widths[0] >= 0.2f / 1.5f - 1e-3f && widths[1] <= 0.2f * 1.5f + 1e-3f,
                "within 1/1.5 .. 1.5 of 0.2: " + widths[0] + " .. " + widths[1]);
        assertTrue(widths[0] < 0.15f && widths[1] > 0.25f, "zoomed out and in: " + widths[0] + " .. " + widths[1]);
        // resize below 1 only zooms out (Darknet's "downsize only")
        widths = boxWidths(img, t, 0.5f, out);
        assertTrue(widths[0] >= 0.1f - 1e-3f && widths[0] < 0.13f && widths[1] <= 0.2f + 1e-6f,
                "0.5 of 0.2 .. 0.2: " + widths[0] + " .. " + widths[1]);
        widths = boxWidths(img, t, 1f, out);
        assertEquals(0.2f, widths[0], 1e-6f);
        assertEquals(0.2f, widths[1], 1e-6f);
    }

    @Test
    void letterBoxKeepsTheImagesAspectRatio() {
        float[] out = new float[3 * 64 * 64];
        for (boolean wide : new boolean[] {true, false}) {
            int w = wide ? 160 : 80;
            int h = wide ? 80 : 160;
            BgrImage img = BgrImage.of(w, h, new byte[w * h * 3]);
            Truth square = new Truth(0.5f, 0.5f, 20f / w, 20f / h, 0);   // 20 x 20 pixels
            Augmentation stretch = new Augmentation(0, 0, 1, 1, false, false, 1f, false);
            Augmentation letterBox = new Augmentation(0, 0, 1, 1, false, false, 1f, true);
            Truth stretched = Augmenter.apply(img, List.of(square), stretch, new SplittableRandom(1), 64, 64, out, 0)
                    .get(0);
            Truth kept = Augmenter.apply(img, List.of(square), letterBox, new SplittableRandom(1), 64, 64, out, 0)
                    .get(0);
            assertEquals(2f, wide ? stretched.h() / stretched.w() : stretched.w() / stretched.h(), 1e-5f);
            assertEquals(0.125f, kept.w(), 1e-5f, "the long side spans the input");
            assertEquals(0.125f, kept.h(), 1e-5f, "a square stays square");
            assertEquals(0.5f, kept.y(), 1e-5f, "centred");
            assertEquals(0.5f, out[wide ? 2 * 64 + 32 : 32 * 64 + 2], 1e-6f, "grey where the image is not");
            assertEquals(0f, out[32 * 64 + 32], 1e-6f, "the black image in the middle");
        }
    }

    /** The narrowest and widest the box comes out over 200 draws without jitter or flip. */
    private static float[] boxWidths(BgrImage img, Truth t, float resize, float[] out) {
        Augmentation aug = new Augmentation(0, 0, 1, 1, false, false, resize, false);
        SplittableRandom rnd = new SplittableRandom(3);
        float min = Float.MAX_VALUE, max = 0;
        for (int i = 0; i < 200; i++) {
            Truth moved = Augmenter.apply(img, List.of(t), aug, rnd, 64, 64, out, 0).get(0);
            min = Math.min(min, moved.w());
            max = Math.max(max, moved.w());
        }
        return new float[] {min, max};
    }

    @Test
    void decodedImagesAreKeptWithinTheBudgetOnly() {
        Path data = SyntheticScenes.write(dir.resolve("b"), 8, 5, 96, 0.25);
        Dataset ds = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
        long one = 96 * 96 * 3;
        assertEquals(Dataset.DEFAULT_DECODED_BUDGET, ds.decodedBudget());
        for (int i = 0; i < ds.size(); i++) ds.image(i);
        assertEquals(ds.size() * one, ds.decodedBytes(), "the default keeps a small dataset whole");
        assertTrue(ds.image(2) == ds.image(2), "a kept image is not decoded again");

        Dataset none = ds.withDecodedBudget(0);
        for (int i = 0; i < none.size(); i++) none.image(i);
        assertEquals(0, none.decodedBytes());
        assertTrue(none.image(2) != none.image(2), "decoded at every use");
        assertEquals(ds.image(2).pixels(), none.image(2).pixels());

        Dataset two = ds.withDecodedBudget(2 * one + one / 2);
        for (int i = 0; i < two.size(); i++) two.image(i);
        assertEquals(2 * one, two.decodedBytes(), "the first images that fit stay, no more");
        assertTrue(two.image(0) == two.image(0) && two.image(1) == two.image(1) && two.image(2) != two.image(2));
    }

    @Test
    void mosaicTilesFourImagesAndKeepsEachBoxInsideItsTile() {
        Path data = SyntheticScenes.write(dir.resolve("m"), 8, 5, 128, 0.25);
        Dataset ds = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
        Augmentation aug = new Augmentation(0.2f, 0.1f, 1.5f, 1.5f, true, true);
        int net = 96;
        int boxes = 0;
        for (int seed = 0; seed < 10; seed++) {
            float[] out = new float[3 * net * net];
            java.util.Arrays.fill(out, Float.NaN);
            List<Truth> truths = Augmenter.sample(ds, aug, new SplittableRandom(seed), net, net, out, 0);
            for (float v : out) assertTrue(v >= 0 && v <= 1, "every pixel written, in [0,1]");
            for (Truth t : truths) {
                assertTrue(t.left() >= 0 && t.right() <= 1.0001f && t.top() >= 0 && t.bottom() <= 1.0001f, t.toString());
                boxes++;
            }
        }
        assertTrue(boxes >= 20, "boxes from four images per sample: " + boxes);
    }

    @Test
    void syntheticScenesAreReproducibleAndLabelled() {
        SyntheticScenes.Scene a = SyntheticScenes.render(128, 128, 9, 3);
        SyntheticScenes.Scene b = SyntheticScenes.render(128, 128, 9, 3);
        SyntheticScenes.Scene c = SyntheticScenes.render(128, 128, 9, 4);
        assertEquals(a.truths(), b.truths());
        assertTrue(java.util.Arrays.equals(pixels(a.image()), pixels(b.image())), "same seed and index, same pixels");
        assertTrue(!java.util.Arrays.equals(pixels(a.image()), pixels(c.image())));
        int objects = 0;
        int[] perClass = new int[SyntheticScenes.CLASSES.size()];
        for (int i = 0; i < 200; i++) {
            for (Truth t : SyntheticScenes.render(128, 128, 1, i).truths()) {
                objects++;
                perClass[t.classId()]++;
                assertTrue(t.left() >= 0 && t.right() <= 1 && t.top() >= 0 && t.bottom() <= 1, t.toString());
                double side = Math.max(t.w(), t.h()) * 128;
                assertTrue(side >= 10 && side <= 64, "object size " + side);
            }
        }
        assertTrue(objects >= 300, "objects in 200 scenes: " + objects);
        for (int n : perClass) assertTrue(n >= 40, "every class appears: " + java.util.Arrays.toString(perClass));
    }

    private static byte[] pixels(BufferedImage img) {
        return ((java.awt.image.DataBufferByte) img.getRaster().getDataBuffer()).getData();
    }
}
