package io.argus.trainer.precision;

import io.argus.detector.darknet.NetSettings;

/**
 * Dynamic loss scaling for mixed precision, configured by [net] initial_loss_scale, max_loss_scale,
 * min_loss_scale and loss_scale_inc_iterations. It needs two facts per step from the backend: did any gradient
 * overflow (Inf/NaN), and, for applied steps, the largest absolute weight update.
 * <ul>
 *   <li>overflow: the step is skipped and the scale halved, not below the minimum;</li>
 *   <li>after {@code incIterations} clean steps in a row the scale doubles, not above the maximum;</li>
 *   <li>during burn-in, where the learning rate climbs fast, the scale follows the largest weight update: it is
 *   lowered to the largest power of two for which scale x update still fits FP16.</li>
 * </ul>
 */
public final class LossScaler {
    private final float max;
    private final float min;
    private final int incIterations;
    private float scale;
    private int clean;
    private long skipped;

    public LossScaler(float initial, float max, float min, int incIterations) {
        if (!(min > 0) || !(max >= min) || !(initial >= min && initial <= max)) {
            throw new IllegalArgumentException("loss scale: expected 0 < min_loss_scale <= initial_loss_scale <= "
                    + "max_loss_scale, found min " + min + ", initial " + initial + ", max " + max);
        }
        if (incIterations <= 0) {
            throw new IllegalArgumentException("loss_scale_inc_iterations: expected a positive integer, found "
                    + incIterations);
        }
        this.max = max;
        this.min = min;
        this.incIterations = incIterations;
        this.scale = initial;
    }

    public static LossScaler of(NetSettings.Training t) {
        return new LossScaler(t.initialLossScale(), t.maxLossScale(), t.minLossScale(), t.lossScaleIncIterations());
    }

    /** The factor the loss (and so every gradient) is multiplied by in the next backward. */
    public float scale() { return scale; }

    /** Steps skipped for overflow so far. */
    public long skipped() { return skipped; }

    /** Clean steps since the last change of scale. */
    public int cleanSteps() { return clean; }

    /** After a backward: whether its step may be applied; adjusts the scale. */
    public boolean accept(boolean overflowed) {
        if (overflowed) {
            skipped++;
            clean = 0;
            scale = Math.max(min, scale / 2);
            return false;
        }
        clean++;
        if (clean >= incIterations) {
            scale = Math.min(max, scale * 2);
            clean = 0;
        }
        return true;
    }

    /** After an applied step: during burn-in, keeps scale x largestUpdate within FP16. */
    public void followUpdate(float largestUpdate, boolean inBurnIn) {
        if (!inBurnIn || !(largestUpdate > 0) || !Float.isFinite(largestUpdate)) return;
        float cap = Fp16.MAX / largestUpdate;
        if (scale <= cap) return;
        float fitting = Math.max(min, Math.min(max, powerOfTwoAtMost(cap)));
        if (fitting < scale) {
            scale = fitting;
            clean = 0;
        }
    }

    /** Restores a saved state (resume). */
    public void restore(float savedScale, int savedClean, long savedSkipped) {
        this.scale = Math.max(min, Math.min(max, savedScale));
        this.clean = savedClean;
        this.skipped = savedSkipped;
    }

    static float powerOfTwoAtMost(float v) {
        if (v >= Float.MAX_VALUE) return Float.MAX_VALUE;
        return Math.scalb(1f, Math.getExponent(v));
    }
}
