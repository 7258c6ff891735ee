package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import io.argus.trainer.loss.Truth;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Darknet's load_data_detection on the CPU: a random crop whose edges move by up to {@code jitter} of the image size
 * (outside the image: grey 0.5), grown or shrunk together by a random amount with {@code resize} != 1 (the image
 * zoomed by 1 / resize .. resize), with {@code letter_box} grown to the input's aspect ratio (the image keeps its
 * own), resized to the network input, flipped left-right half of the time, then hue shifted and saturation and
 * exposure scaled in HSV (each scale s or 1/s, s uniform in [1, max]). Boxes follow the crop and flip, are clipped to
 * the input and dropped when nothing is left of them. With mosaic, four images fill the four parts of the input
 * around a random point. Writes planar RGB floats in [0,1].
 *
 * <p>The pixels come from {@link BilinearRows} and {@link HsvJitter}, a band of rows at a time with each loader
 * thread's own buffers (no allocation per image): bit for bit the floats of the straightforward per-pixel formulas
 * (AugmenterReference, in the tests, is the specification), about three times faster.
 */
public final class Augmenter {
    private static final float MIN_SIZE = 0.001f;

    private Augmenter() {}

    /**
     * One augmented training image drawn at random from {@code dataset} (four with mosaic) into {@code out} at
     * {@code offset}; returns its boxes relative to the input.
     */
    public static List<Truth> sample(Dataset dataset, Augmentation aug, SplittableRandom rnd, int netW, int netH,
                                     float[] out, int offset) {
        if (!aug.mosaic()) {
            int i = rnd.nextInt(dataset.size());
            return tile(dataset.image(i), dataset.sample(i).truths(), aug, rnd, netW, netH, 0, 0, netW, netH, out,
                    offset, false);
        }
        int cx = (int) (netW * rnd.nextDouble(0.3, 0.7));
        int cy = (int) (netH * rnd.nextDouble(0.3, 0.7));
        int[][] tiles = {{0, 0, cx, cy}, {cx, 0, netW - cx, cy}, {0, cy, cx, netH - cy}, {cx, cy, netW - cx, netH - cy}};
        List<Truth> all = new ArrayList<>();
        for (int[] t : tiles) {
            int i = rnd.nextInt(dataset.size());
            all.addAll(tile(dataset.image(i), dataset.sample(i).truths(), aug, rnd, netW, netH, t[0], t[1], t[2], t[3],
                    out, offset, true));
        }
        return all;
    }

    /** One image, augmented, into the whole input. */
    public static List<Truth> apply(BgrImage image, List<Truth> truths, Augmentation aug, SplittableRandom rnd,
                                    int netW, int netH, float[] out, int offset) {
        return tile(image, truths, aug, rnd, netW, netH, 0, 0, netW, netH, out, offset, false);
    }

    /**
     * Fills the tile (tx, ty, tw, th) of the input with a crop of the image. A full-input tile crops with jitter; a
     * mosaic tile takes a window of its own size (in input scale) at a random place, then jitters that.
     */
    private static List<Truth> tile(BgrImage img, List<Truth> truths, Augmentation aug, SplittableRandom rnd, int netW,
                                    int netH, int tx, int ty, int tw, int th, float[] out, int offset, boolean mosaic) {
        int ow = img.width();
        int oh = img.height();
        // the crop window in source pixels before jitter
        double wx = 0, wy = 0, ww = ow, wh = oh;
        if (mosaic) {
            ww = Math.min(ow, (double) tw * ow / netW);
            wh = Math.min(oh, (double) th * oh / netH);
            wx = rnd.nextDouble() * (ow - ww);
            wy = rnd.nextDouble() * (oh - wh);
        }
        int dw = (int) (ww * aug.jitter());
        int dh = (int) (wh * aug.jitter());
        int pleft = randInt(rnd, -dw, dw);
        int pright = randInt(rnd, -dw, dw);
        int ptop = randInt(rnd, -dh, dh);
        int pbot = randInt(rnd, -dh, dh);
        if (aug.resize() != 1) {
            // drawn only when resizing, so that resize=1 keeps every other draw where it was
            double r = rnd.nextDouble();
            int sw = resizeShift(ww, aug.resize(), r);
            int sh = resizeShift(wh, aug.resize(), r);
            pleft += sw;
            pright += sw;
            ptop += sh;
            pbot += sh;
        }
        if (aug.letterBox()) {
            // Darknet's letter_box=1: the crop grows to the tile's aspect ratio, so the image keeps its own
            double imageAspect = ww / wh;
            double tileAspect = (double) tw / th;
            if (imageAspect > tileAspect) {
                double delta = (ww / tileAspect - wh) / 2;
                ptop = (int) (ptop - delta);
                pbot = (int) (pbot - delta);
            } else {
                double delta = (wh * tileAspect - ww) / 2;
                pleft = (int) (pleft - delta);
                pright = (int) (pright - delta);
            }
        }
        double left = wx + pleft;
        double top = wy + ptop;
        double cropW = Math.max(1, ww - pleft - pright);
        double cropH = Math.max(1, wh - ptop - pbot);
        boolean flip = aug.flip() && rnd.nextBoolean();
        float dhue = aug.hue() > 0 ? (float) rnd.nextDouble(-aug.hue(), aug.hue()) : 0f;
        float dsat = randScale(rnd, aug.saturation());
        float dexp = randScale(rnd, aug.exposure());

        boolean distort = dhue != 0 || dsat != 1 || dexp != 1;
        render(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, out, offset, distort, dhue, dsat, dexp);

        List<Truth> kept = new ArrayList<>(truths.size());
        for (Truth t : truths) {
            double l = (t.left() * ow - left) / cropW;
            double r = (t.right() * ow - left) / cropW;
            double u = (t.top() * oh - top) / cropH;
            double b = (t.bottom() * oh - top) / cropH;
            if (flip) {
                double swap = 1 - l;
                l = 1 - r;
                r = swap;
            }
            l = clamp01(l);
            r = clamp01(r);
            u = clamp01(u);
            b = clamp01(b);
            if (r - l < MIN_SIZE || b - u < MIN_SIZE) continue;
            // tile-relative to input-relative
            double x0 = (tx + l * tw) / netW, x1 = (tx + r * tw) / netW;
            double y0 = (ty + u * th) / netH, y1 = (ty + b * th) / netH;
            kept.add(new Truth((float) ((x0 + x1) / 2), (float) ((y0 + y1) / 2), (float) (x1 - x0),
                    (float) (y1 - y0), t.classId()));
        }
        return kept;
    }

    private static double clamp01(double v) {
        return Math.max(0, Math.min(1, v));
    }

    /** Darknet's rand_int: uniform in [min, max]. */
    private static int randInt(SplittableRandom rnd, int min, int max) {
        return max <= min ? min : min + rnd.nextInt(max - min + 1);
    }

    /**
     * Darknet's random resize: every edge of the crop moves inwards by one shift, r of the way from min to max, where
     * the crop grows up to {@code resize} times (zoom out) and, for {@code resize} > 1, shrinks down to 1 / resize
     * (zoom in); integer truncations as Darknet's.
     */
    private static int resizeShift(double size, float resize, double r) {
        float down = resize > 1 ? 1 / resize : resize;
        float up = resize < 1 ? 1 / resize : resize;
        int min = (int) (size * (1 - 1 / down) / 2);
        int max = resize < 1 ? 0 : (int) (size * (1 - 1 / up) / 2);
        return (int) (r * (max - min) + min);
    }

    /** Darknet's rand_scale: s uniform in [1, max], returned as s or 1/s with equal chance. */
    private static float randScale(SplittableRandom rnd, float max) {
        if (max <= 1) return 1f;
        float s = (float) rnd.nextDouble(1, max);
        return rnd.nextBoolean() ? s : 1 / s;
    }

    /**
     * Floats per channel that the colour jitter takes at once: a band of several rows of the tile (9 at 416 wide; its
     * nine arrays, 144 KB, stay in the L2 cache). The jitter's loops cost per call as well as per pixel (vector loops
     * start and end with scalar iterations): HsvJitter alone took 0.73 ms per 416x416 image on rows of 416, 0.48 ms
     * on bands of 8 rows; the loader, 1.33 against 1.13-1.17 ms of CPU per image (development machine, 1 thread).
     */
    private static final int BAND_FLOATS = 4096;

    /** A loader thread's buffers: the resampler's, one row and one band of the tile per channel, reused. */
    private static final class TileRows {
        final BilinearRows resampler = new BilinearRows();
        float[] r = new float[0];
        float[] g = r;
        float[] b = r;
        float[] bandR = r;
        float[] bandG = r;
        float[] bandB = r;
        float[] sat = r;
        float[] val = r;
        float[] hue = r;

        /** Fits rows of {@code tw}; returns the rows per band. */
        int fit(int tw) {
            int rows = Math.max(1, BAND_FLOATS / tw);
            int n = rows * tw;
            if (r.length < tw) {
                r = new float[tw];
                g = new float[tw];
                b = new float[tw];
            }
            if (bandR.length < n) {
                bandR = new float[n];
                bandG = new float[n];
                bandB = new float[n];
                sat = new float[n];
                val = new float[n];
                hue = new float[n];
            }
            return rows;
        }
    }

    private static final ThreadLocal<TileRows> ROWS = ThreadLocal.withInitial(TileRows::new);

    /**
     * The tile (tx, ty, tw, th) of the input: the crop (left, top, cropW x cropH source pixels) resampled bilinearly
     * ({@link BilinearRows}; outside the image: grey), then, when {@code distort}, hue, saturation and exposure
     * jittered ({@link HsvJitter}), a band of rows at a time while it is in the cache, into {@code out}'s planes.
     * The rows go through copies (System.arraycopy, cheap) because C2 vectorises a loop whose arrays are all indexed
     * alike, and not one that reads row[u] and writes band[at + u].
     */
    private static void render(BgrImage img, double left, double top, double cropW, double cropH, boolean flip,
                               int netW, int netH, int tx, int ty, int tw, int th, float[] out, int offset,
                               boolean distort, float dhue, float dsat, float dexp) {
        TileRows t = ROWS.get();
        int bandRows = t.fit(tw);
        t.resampler.begin(img, left, top, cropW, cropH, flip, tw, th);
        int plane = netW * netH;
        for (int v0 = 0; v0 < th; v0 += bandRows) {
            int rows = Math.min(bandRows, th - v0);
            for (int k = 0; k < rows; k++) {
                t.resampler.row(v0 + k, t.r, t.g, t.b);
                System.arraycopy(t.r, 0, t.bandR, k * tw, tw);
                System.arraycopy(t.g, 0, t.bandG, k * tw, tw);
                System.arraycopy(t.b, 0, t.bandB, k * tw, tw);
            }
            if (distort) HsvJitter.row(t.bandR, t.bandG, t.bandB, rows * tw, dhue, dsat, dexp, t.sat, t.val, t.hue);
            for (int k = 0; k < rows; k++) {
                int at = offset + (ty + v0 + k) * netW + tx;
                System.arraycopy(t.bandR, k * tw, out, at, tw);
                System.arraycopy(t.bandG, k * tw, out, at + plane, tw);
                System.arraycopy(t.bandB, k * tw, out, at + 2 * plane, tw);
            }
        }
    }

    /** The resampling alone (no colour jitter) into the tile: what AugmenterTest compares with the direct formula. */
    static void resample(BgrImage img, double left, double top, double cropW, double cropH, boolean flip,
                         int netW, int netH, int tx, int ty, int tw, int th, float[] out, int offset) {
        render(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, out, offset, false, 0, 1, 1);
    }
}
