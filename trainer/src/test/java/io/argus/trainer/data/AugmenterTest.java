package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.testkit.Budget;
import io.argus.trainer.loss.Truth;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The augmenter's fast paths give the very floats, and the same boxes, of {@link AugmenterReference} (the augmenter
 * before them: each pixel sampled through {@link BgrImage#at}, the HSV distortion with its branches), which training
 * results and the demo model's reproducibility were made with. Tolerance: none, every float is compared bit for bit
 * ({@code assertArrayEquals} on floats compares their bits: even -0 against 0 fails). Covered: crops inside and beyond
 * the image, flipped or not, whole inputs and mosaic tiles, images with padded rows and in direct buffers, every hue
 * sector and both ways the hue wraps, ties between channels, greys, black and white.
 */
@Budget(seconds = 5)
class AugmenterTest {
    @TempDir
    static Path dir;

    static BgrImage randomImage(SplittableRandom rnd, int w, int h, int padding, boolean direct) {
        int stride = 3 * w + padding;
        byte[] bytes = new byte[stride * h];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) rnd.nextInt(256);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length).put(bytes).clear() : ByteBuffer.wrap(bytes);
        return new BgrImage(w, h, stride, b);
    }

    @Test
    void fastResamplingGivesTheDirectFormulasFloatsBitForBit() {
        SplittableRandom rnd = new SplittableRandom(5);
        int compared = 0;
        for (int trial = 0; trial < 200; trial++) {
            BgrImage img = randomImage(rnd, 20 + rnd.nextInt(140), 20 + rnd.nextInt(140), trial % 3 == 0 ? 5 : 0,
                    trial % 7 == 0);
            int netW = 32 + rnd.nextInt(100);
            int netH = 32 + rnd.nextInt(100);
            // a crop that may reach past any edge (jitter), lie wholly inside, or wholly outside the image
            double left = (trial % 25 == 0 ? rnd.nextDouble(1.1, 2) : rnd.nextDouble(-0.4, 0.4)) * img.width();
            double top = (trial % 30 == 0 ? -rnd.nextDouble(1.7, 3) : rnd.nextDouble(-0.4, 0.4)) * img.height();
            double cropW = Math.max(1, img.width() * rnd.nextDouble(0.3, 1.6));
            double cropH = Math.max(1, img.height() * rnd.nextDouble(0.3, 1.6));
            boolean flip = rnd.nextBoolean();
            boolean mosaicTile = rnd.nextBoolean();
            int tx = mosaicTile ? rnd.nextInt(netW / 2) : 0;
            int ty = mosaicTile ? rnd.nextInt(netH / 2) : 0;
            int tw = mosaicTile ? 1 + rnd.nextInt(netW - tx) : netW;
            int th = mosaicTile ? 1 + rnd.nextInt(netH - ty) : netH;
            int offset = rnd.nextInt(3) * 3 * netW * netH;
            float[] expected = new float[offset + 3 * netW * netH];
            Arrays.fill(expected, -7f);   // what the tile leaves alone stays so in both
            float[] actual = expected.clone();
            AugmenterReference.resample(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, expected,
                    offset);
            Augmenter.resample(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, actual, offset);
            assertArrayEquals(expected, actual, "trial " + trial);
            compared += tw * th;
        }
        assertTrue(compared > 100_000, compared + " pixels compared");
    }

    /** A value a channel takes after bilinear resampling: often a byte's, often tied with another channel's. */
    static float channel(SplittableRandom rnd, float other) {
        return switch (rnd.nextInt(6)) {
            case 0 -> other;                          // a tie
            case 1 -> rnd.nextInt(256) / 255f;
            case 2 -> rnd.nextInt(3) / 2f;            // 0, grey, 1
            default -> (float) rnd.nextDouble();
        };
    }

    @Test
    void hsvJitterGivesTheBranchyFormulasFloatsBitForBit() {
        SplittableRandom rnd = new SplittableRandom(17);
        int n = 997;
        float[] sat = new float[n];
        float[] val = new float[n];
        float[] hue = new float[n];
        int[] maxChannel = new int[3];
        int wrappedUp = 0;
        int wrappedDown = 0;
        long changed = 0;
        for (int trial = 0; trial < 300; trial++) {
            float dhue = trial % 10 == 0 ? 0 : (float) rnd.nextDouble(-0.5, 0.5);
            float dsat = trial % 7 == 0 ? 1 : scale(rnd);
            float dexp = trial % 5 == 0 ? 1 : scale(rnd);
            float[] rgb = new float[3 * n];   // one row, planar, as the reference's 1-row image
            for (int u = 0; u < n; u++) {
                float r = channel(rnd, 0.5f);
                float g = channel(rnd, r);
                float b = channel(rnd, rnd.nextBoolean() ? r : g);
                rgb[u] = r;
                rgb[u + n] = g;
                rgb[u + 2 * n] = b;
                float max = Math.max(r, Math.max(g, b));
                float delta = max - Math.min(r, Math.min(g, b));
                maxChannel[r == max ? 0 : g == max ? 1 : 2]++;
                if (delta > 0) {
                    float h = (r == max ? (g - b) / delta : g == max ? 2 + (b - r) / delta : 4 + (r - g) / delta) / 6;
                    if (h < 0) h += 1;
                    if (h + dhue < 0) wrappedUp++;
                    if (h + dhue >= 1) wrappedDown++;
                }
            }
            float[] expected = rgb.clone();
            AugmenterReference.distort(expected, 0, n, 1, 0, 0, n, 1, dhue, dsat, dexp);
            float[] r = Arrays.copyOfRange(rgb, 0, n);
            float[] g = Arrays.copyOfRange(rgb, n, 2 * n);
            float[] b = Arrays.copyOfRange(rgb, 2 * n, 3 * n);
            HsvJitter.row(r, g, b, n, dhue, dsat, dexp, sat, val, hue);
            float[] actual = new float[3 * n];
            System.arraycopy(r, 0, actual, 0, n);
            System.arraycopy(g, 0, actual, n, n);
            System.arraycopy(b, 0, actual, 2 * n, n);
            assertArrayEquals(expected, actual, "trial " + trial + ": dhue " + dhue + ", dsat " + dsat + ", dexp "
                    + dexp);
            for (int i = 0; i < 3 * n; i++) if (expected[i] != rgb[i]) changed++;
        }
        // the comparison means something: the distortion moved most values, and every branch was taken
        assertTrue(changed > 300L * 3 * n / 2, changed + " values changed");
        for (int c = 0; c < 3; c++) assertTrue(maxChannel[c] > 10_000, "channel " + c + " the max: " + maxChannel[c]);
        assertTrue(wrappedUp > 1000 && wrappedDown > 1000, "hue wrapped " + wrappedUp + " up, " + wrappedDown
                + " down");
    }

    /** A saturation or exposure scale as Darknet draws them: s or 1/s, s in [1, 3). */
    static float scale(SplittableRandom rnd) {
        double s = rnd.nextDouble(1, 3);
        return (float) (rnd.nextBoolean() ? s : 1 / s);
    }

    /** A random augmentation: any of Darknet's settings, sometimes off. */
    static Augmentation randomAugmentation(SplittableRandom rnd, boolean mosaic) {
        return new Augmentation(rnd.nextInt(4) == 0 ? 0 : (float) rnd.nextDouble(0.5),
                rnd.nextInt(4) == 0 ? 0 : (float) rnd.nextDouble(0.5),
                rnd.nextInt(4) == 0 ? 1 : (float) rnd.nextDouble(1, 2.5),
                rnd.nextInt(4) == 0 ? 1 : (float) rnd.nextDouble(1, 2.5), rnd.nextBoolean(), mosaic);
    }

    static List<Truth> randomTruths(SplittableRandom rnd) {
        List<Truth> truths = new ArrayList<>();
        for (int k = rnd.nextInt(6); k > 0; k--) {
            float w = (float) rnd.nextDouble(0.01, 0.9);
            float h = (float) rnd.nextDouble(0.01, 0.9);
            truths.add(new Truth((float) rnd.nextDouble(w / 2, 1 - w / 2), (float) rnd.nextDouble(h / 2, 1 - h / 2), w,
                    h, rnd.nextInt(5)));
        }
        return truths;
    }

    @Test
    void augmentedImagesAndBoxesAreTheReferencesBitForBit() {
        SplittableRandom rnd = new SplittableRandom(23);
        long pixels = 0;
        int boxes = 0;
        List<BgrImage> images = new ArrayList<>();
        List<byte[]> before = new ArrayList<>();
        for (int trial = 0; trial < 150; trial++) {
            BgrImage img = randomImage(rnd, 8 + rnd.nextInt(200), 8 + rnd.nextInt(200), trial % 3 == 0 ? 7 : 0,
                    trial % 5 == 0);
            images.add(img);
            before.add(bytes(img));
            List<Truth> truths = randomTruths(rnd);
            Augmentation aug = randomAugmentation(rnd, false);
            int netW = 16 + rnd.nextInt(150);
            int netH = 16 + rnd.nextInt(150);
            int offset = rnd.nextInt(2) * 3 * netW * netH;
            float[] expected = new float[offset + 3 * netW * netH];
            float[] actual = new float[expected.length];
            long seed = rnd.nextLong();
            SplittableRandom a = new SplittableRandom(seed);
            SplittableRandom b = new SplittableRandom(seed);
            List<Truth> expectedBoxes = AugmenterReference.apply(img, truths, aug, a, netW, netH, expected, offset);
            List<Truth> actualBoxes = Augmenter.apply(img, truths, aug, b, netW, netH, actual, offset);
            String what = "trial " + trial + ", " + aug;
            assertArrayEquals(expected, actual, what);
            assertEquals(expectedBoxes, actualBoxes, what);
            assertEquals(a.nextLong(), b.nextLong(), what + ": the same random draws");
            pixels += (long) netW * netH;
            boxes += expectedBoxes.size();
        }
        assertTrue(pixels > 1_000_000 && boxes > 100, pixels + " pixels, " + boxes + " boxes compared");
        // the augmenter only reads images (decoded ones are shared, kept for the next epochs), though its buffers
        // outlive them: no image augmented earlier changed, heap or direct
        for (int i = 0; i < images.size(); i++) assertArrayEquals(before.get(i), bytes(images.get(i)), "image " + i);
    }

    static byte[] bytes(BgrImage img) {
        byte[] out = new byte[img.pixels().capacity()];
        img.pixels().get(0, out);
        return out;
    }

    @Test
    void sampledImagesAndBoxesAreTheReferencesBitForBitWithAndWithoutMosaic() {
        Path data = SyntheticScenes.write(dir.resolve("synth"), 12, 5, 96, 0.25);
        Dataset ds = Dataset.fromList(DataFile.read(data).requireTrain(), 5);
        SplittableRandom rnd = new SplittableRandom(29);
        int boxes = 0;
        for (int trial = 0; trial < 60; trial++) {
            Augmentation aug = trial % 4 == 0 ? new Augmentation(0.3f, 0.1f, 1.5f, 1.5f, true, trial % 8 == 0)
                    : randomAugmentation(rnd, rnd.nextBoolean());
            int netW = 32 + rnd.nextInt(200);
            int netH = 32 + rnd.nextInt(200);
            float[] expected = new float[3 * netW * netH];
            float[] actual = new float[expected.length];
            long seed = rnd.nextLong();
            SplittableRandom a = new SplittableRandom(seed);
            SplittableRandom b = new SplittableRandom(seed);
            List<Truth> expectedBoxes = AugmenterReference.sample(ds, aug, a, netW, netH, expected, 0);
            List<Truth> actualBoxes = Augmenter.sample(ds, aug, b, netW, netH, actual, 0);
            String what = "trial " + trial + ", " + aug + ", " + netW + "x" + netH;
            assertArrayEquals(expected, actual, what);
            assertEquals(expectedBoxes, actualBoxes, what);
            assertEquals(a.nextLong(), b.nextLong(), what + ": the same random draws");
            boxes += expectedBoxes.size();
        }
        assertTrue(boxes > 100, boxes + " boxes compared");
    }
}
