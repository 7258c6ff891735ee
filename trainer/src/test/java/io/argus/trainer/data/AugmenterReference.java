package io.argus.trainer.data;

import io.argus.detector.BgrImage;
import io.argus.trainer.loss.Truth;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The augmenter as it was before its fast paths (Augmenter at 3a78643, its resampling as the direct per-pixel formula):
 * the specification the product's {@link Augmenter} is held to, bit for bit (AugmenterTest). Straightforward on
 * purpose: every output pixel and channel computed on its own, four neighbours read through {@link BgrImage#at}, the
 * HSV distortion with Darknet's branches. Do not optimise.
 */
final class AugmenterReference {
    private static final float MIN_SIZE = 0.001f;

    private AugmenterReference() {}

    /**
     * One augmented training image drawn at random from {@code dataset} (four with mosaic) into {@code out} at
     * {@code offset}; returns its boxes relative to the input.
     */
    static List<Truth> sample(Dataset dataset, Augmentation aug, SplittableRandom rnd, int netW, int netH,
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
    static List<Truth> apply(BgrImage image, List<Truth> truths, Augmentation aug, SplittableRandom rnd,
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
        double left = wx + pleft;
        double top = wy + ptop;
        double cropW = Math.max(1, ww - pleft - pright);
        double cropH = Math.max(1, wh - ptop - pbot);
        boolean flip = aug.flip() && rnd.nextBoolean();
        float dhue = aug.hue() > 0 ? (float) rnd.nextDouble(-aug.hue(), aug.hue()) : 0f;
        float dsat = randScale(rnd, aug.saturation());
        float dexp = randScale(rnd, aug.exposure());

        resample(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, out, offset);
        if (dhue != 0 || dsat != 1 || dexp != 1) distort(out, offset, netW, netH, tx, ty, tw, th, dhue, dsat, dexp);

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

    /** Darknet's rand_scale: s uniform in [1, max], returned as s or 1/s with equal chance. */
    private static float randScale(SplittableRandom rnd, float max) {
        if (max <= 1) return 1f;
        float s = (float) rnd.nextDouble(1, max);
        return rnd.nextBoolean() ? s : 1 / s;
    }

    /**
     * Bilinear resampling of the crop into the tile, the direct formula: per output pixel and channel, four
     * neighbours read through at(), grey 0.5 outside the image.
     */
    static void resample(BgrImage img, double left, double top, double cropW, double cropH, boolean flip, int netW,
                         int netH, int tx, int ty, int tw, int th, float[] out, int offset) {
        int plane = netW * netH;
        int w = img.width();
        int h = img.height();
        double sx = cropW / tw;
        double sy = cropH / th;
        for (int v = 0; v < th; v++) {
            double fy = top + (v + 0.5) * sy - 0.5;
            int y0 = (int) Math.floor(fy);
            float ay = (float) (fy - y0);
            int row = offset + (ty + v) * netW + tx;
            for (int u = 0; u < tw; u++) {
                int su = flip ? tw - 1 - u : u;
                double fx = left + (su + 0.5) * sx - 0.5;
                int x0 = (int) Math.floor(fx);
                float ax = (float) (fx - x0);
                for (int c = 0; c < 3; c++) {
                    int bgr = 2 - c;
                    float p00 = px(img, x0, y0, bgr, w, h);
                    float p10 = px(img, x0 + 1, y0, bgr, w, h);
                    float p01 = px(img, x0, y0 + 1, bgr, w, h);
                    float p11 = px(img, x0 + 1, y0 + 1, bgr, w, h);
                    float top2 = p00 + ax * (p10 - p00);
                    float bottom2 = p01 + ax * (p11 - p01);
                    out[row + u + c * plane] = top2 + ay * (bottom2 - top2);
                }
            }
        }
    }

    private static float px(BgrImage img, int x, int y, int channel, int w, int h) {
        if (x < 0 || y < 0 || x >= w || y >= h) return 0.5f;
        return img.at(x, y, channel) / 255f;
    }

    /** Darknet's random_distort_image on the tile: hue += dhue (wrapping), saturation x dsat, value x dexp. */
    static void distort(float[] out, int offset, int netW, int netH, int tx, int ty, int tw, int th,
                                float dhue, float dsat, float dexp) {
        int plane = netW * netH;
        for (int v = 0; v < th; v++) {
            for (int u = 0; u < tw; u++) {
                int i = offset + (ty + v) * netW + tx + u;
                float r = out[i];
                float g = out[i + plane];
                float b = out[i + 2 * plane];
                float max = Math.max(r, Math.max(g, b));
                float min = Math.min(r, Math.min(g, b));
                float delta = max - min;
                float hue = 0;
                float sat = max == 0 ? 0 : delta / max;
                float val = max;
                if (delta > 0) {
                    if (r == max) hue = (g - b) / delta;
                    else if (g == max) hue = 2 + (b - r) / delta;
                    else hue = 4 + (r - g) / delta;
                    hue /= 6;
                    if (hue < 0) hue += 1;
                }
                hue += dhue;
                if (hue < 0) hue += 1;
                if (hue >= 1) hue -= 1;
                sat = Math.min(1, sat * dsat);
                val = Math.min(1, val * dexp);
                float h6 = hue * 6;
                int sector = Math.min(5, (int) h6);
                float f = h6 - sector;
                float p = val * (1 - sat);
                float q = val * (1 - sat * f);
                float t = val * (1 - sat * (1 - f));
                switch (sector) {
                    case 0 -> { r = val; g = t; b = p; }
                    case 1 -> { r = q; g = val; b = p; }
                    case 2 -> { r = p; g = val; b = t; }
                    case 3 -> { r = p; g = q; b = val; }
                    case 4 -> { r = t; g = p; b = val; }
                    default -> { r = val; g = p; b = q; }
                }
                out[i] = r;
                out[i + plane] = g;
                out[i + 2 * plane] = b;
            }
        }
    }
}
