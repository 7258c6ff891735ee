package io.argus.trainer.data;

/**
 * Darknet's random_distort_image on n pixels given as planar RGB floats in [0, 1]: to HSV, hue += dhue (wrapping),
 * saturation x dsat and value x dexp (each at most 1), back to RGB. The floats are bit for bit those of the per-pixel
 * formula with its branches (AugmenterReference.distort, in the tests); the formula is written without branches, in
 * loops the JIT vectorises: 0.48 ms per 416x416 image (in bands of 8 rows) against 4.5 ms for the per-pixel formula on
 * noise and 2.2 ms on the synthetic scenes (branches better predicted), on the development machine's Xeon (family 6
 * model 167, AVX-512; with AVX2 only, about 25% slower).
 *
 * <p>How the branches go while the floats stay the same:
 * <ul>
 *   <li>A test becomes a weight of exactly 0 or 1 ({@link #isZero}, {@link #isNegative}), and a choice a sum of
 *       products with such weights: x * 1 + y * 0 = x exactly, for the finite values here (the sign of a zero may
 *       differ; no output depends on it).</li>
 *   <li>Back to RGB, the reference picks per hue sector (h6 = 6 hue, sector s, f = h6 - s) among v, p = v (1 - sat),
 *       q = v (1 - sat f), t = v (1 - sat (1 - f)): each channel is v (1 - sat w) with w one of 0, 1, f, 1 - f (v times
 *       1 - sat * 0 is v; sat * 1 is sat). The channel's w is its trapezoid over the hue, clamped to [0, 1]: red's
 *       is min(h6 - 1, 5 - h6). h6 - s is exact (Sterbenz: s <= h6 <= s + 1, the last sector reaching 6 when the
 *       hue rounds up), so h6 - 1 is f in sector 1, and 5 - h6, rounded once, is the rounded 1 - f of sector 4.</li>
 *   <li>A loop body too large is not unrolled, hence not vectorised, by C2 (LoopUnrollLimit): the work is split into
 *       small loops over the pixels, through scratch arrays of the caller's.</li>
 * </ul>
 */
final class HsvJitter {
    private HsvJitter() {}

    /** 1 where x is zero, 0 where positive (x >= 0). */
    private static float isZero(float x) {
        return 1 - Math.signum(x);
    }

    /** 1 where x is negative, else 0. */
    private static float isNegative(float x) {
        return Math.max(0f, -Math.signum(x));
    }

    /**
     * Distorts r, g and b in place, [0, n) of each; {@code sat}, {@code val} and {@code hue} are scratch arrays of
     * at least n floats.
     */
    static void row(float[] r, float[] g, float[] b, int n, float dhue, float dsat, float dexp,
                    float[] sat, float[] val, float[] hue) {
        // value, saturation, and the spread (max - min) in hue's place for the next loop
        for (int u = 0; u < n; u++) {
            float max = Math.max(r[u], Math.max(g[u], b[u]));
            float delta = max - Math.min(r[u], Math.min(g[u], b[u]));
            sat[u] = delta / (max + isZero(max));           // max == 0 ? 0 : delta / max
            val[u] = max;
            hue[u] = delta;
        }
        // hue in [0, 1): (g - b) / delta where red is the max, else 2 + (b - r) / delta where green is, else
        // 4 + (r - g) / delta, over 6; 0 where delta is 0 (then r is the max and g - b is 0)
        for (int u = 0; u < n; u++) {
            float rr = r[u];
            float gg = g[u];
            float bb = b[u];
            float max = val[u];
            float delta = hue[u];
            float isR = isZero(max - rr);
            float isG = (1 - isR) * isZero(max - gg);
            float isB = 1 - isR - isG;
            float num = isR * (gg - bb) + isG * (bb - rr) + isB * (rr - gg);
            float h = (isG * 2 + isB * 4 + num / (delta + isZero(delta))) / 6;
            hue[u] = h + isNegative(h);
        }
        // the jitter: hue shifted and wrapped into [0, 1), saturation and value scaled up to 1; hue kept as 6 hue
        for (int u = 0; u < n; u++) {
            float h = hue[u] + dhue;
            h += isNegative(h);
            h -= 1 - isNegative(h - 1);
            hue[u] = h * 6;
            sat[u] = Math.min(1, sat[u] * dsat);
            val[u] = Math.min(1, val[u] * dexp);
        }
        // back to RGB: channel = v (1 - sat w), w the channel's trapezoid over h6 (class comment); a loop each
        for (int u = 0; u < n; u++) {
            float h6 = hue[u];
            r[u] = val[u] * (1 - sat[u] * Math.max(0f, Math.min(1f, Math.min(h6 - 1, 5 - h6))));
        }
        for (int u = 0; u < n; u++) {
            float h6 = hue[u];
            g[u] = val[u] * (1 - sat[u] * Math.max(0f, Math.min(1f, Math.max(1 - h6, h6 - 3))));
        }
        for (int u = 0; u < n; u++) {
            float h6 = hue[u];
            b[u] = val[u] * (1 - sat[u] * Math.max(0f, Math.min(1f, Math.max(3 - h6, h6 - 5))));
        }
    }
}
