package io.argus.trainer.train;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.trainer.data.InputSizes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Darknet's multi-scale training ({@code random} in [yolo], AlexeyAB's train_detector): every
 * {@value #ITERATIONS_PER_SIZE} iterations the network input changes to {@code round(r x cfg / 32 + 1) x 32} per
 * side, r drawn as Darknet's rand_scale (uniform in [1, k], inverted half of the time) with k = 1.4 for
 * {@code random=1} and k = random otherwise; a shrinking draw that would still grow a side falls back to the cfg's
 * size; the first block and the blocks that start within the last 100 iterations take the largest size
 * {@code round(k x cfg / 32 + 1) x 32} (Darknet: the first to check the memory, the last to settle the rolling
 * batch-norm statistics at the largest scale); no side below 32. Width and height use the same draw, so a non-square
 * cfg keeps its aspect ratio up to the rounding.
 *
 * <p>Darknet draws from the C library's generator as the loop goes, so its sizes depend on where a run started. Here
 * the size of an iteration is a pure function of (seed, iteration / {@value #ITERATIONS_PER_SIZE}) and the run's
 * max_batches: a resumed run and every rank of a data-parallel run train the same iteration at the same size, and all
 * the sizes a run can meet are known before it starts ({@link #sizes}), so every network is made up front.
 */
public final class MultiScale implements InputSizes {
    /** Iterations between size changes (Darknet: {@code count++ % 10 == 0}). */
    public static final int ITERATIONS_PER_SIZE = 10;
    /** Darknet's resize_step: sizes are multiples of it (the stride of the deepest YOLO head). */
    public static final int STEP = 32;
    /** Darknet's factor for {@code random=1}. */
    public static final float DEFAULT_FACTOR = 1.4f;
    /** Iterations at the end that train at the largest size. */
    static final int LAST_AT_LARGEST = 100;
    /** Keeps the size stream apart from the batches' streams, which are seeded from the same run seed. */
    private static final long SALT = 0x6D756C7469736361L;

    /** What {@code argus train --multi-scale} asks: never, always (the cfg's factor, else 1.4), as the cfg says. */
    public enum Mode {
        OFF, ON, CFG;

        public static Mode parse(String value, String option) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "off" -> OFF;
                case "on" -> ON;
                case "cfg" -> CFG;
                default -> throw new IllegalArgumentException(option + ": expected off, on or cfg, found " + value);
            };
        }
    }

    private final int width;
    private final int height;
    private final float factor;
    private final long seed;
    private final int maxBatches;
    private final Size largest;

    /**
     * @param width      the cfg's input width
     * @param height     the cfg's input height
     * @param factor     Darknet's rand_coef (> 1)
     * @param seed       the run's seed
     * @param maxBatches the run's last iteration (the last 100 train at the largest size)
     */
    public MultiScale(int width, int height, float factor, long seed, int maxBatches) {
        if (!(factor > 1) || !Float.isFinite(factor)) {
            throw new IllegalArgumentException("multi-scale factor: expected > 1, found " + factor);
        }
        if (width <= 0 || height <= 0) throw new IllegalArgumentException("input " + width + "x" + height);
        this.width = width;
        this.height = height;
        this.factor = factor;
        this.seed = seed;
        this.maxBatches = maxBatches;
        this.largest = new Size(Math.max(STEP, side(factor, width)), Math.max(STEP, side(factor, height)));
    }

    /**
     * The schedule a run of {@code spec} uses under {@code mode}, or null for one size throughout. Darknet reads
     * {@code random} of the network's last layer; here the last [yolo] head's (the last layer of every cfg the trainer
     * takes).
     */
    public static MultiScale of(NetworkSpec spec, Mode mode, long seed, int maxBatches) {
        if (mode == Mode.OFF) return null;
        float random = random(spec);
        if (random == 0 && mode == Mode.CFG) return null;
        if (random < 0 || (random > 0 && random < 1) || !Float.isFinite(random)) {
            throw new IllegalArgumentException(spec.name() + ": [yolo] random=" + random + ": expected 0 (one size), 1 "
                    + "(sizes from 1/1.4 to 1.4 times the cfg's) or a factor > 1 instead of 1.4");
        }
        float factor = random == 0 || random == 1 ? DEFAULT_FACTOR : random;
        return new MultiScale(spec.net().width(), spec.net().height(), factor, seed, maxBatches);
    }

    /** The last [yolo] head's {@code random}, 0 without a head. */
    static float random(NetworkSpec spec) {
        float random = 0;
        for (LayerSpec l : spec.layers()) if (l instanceof YoloSpec y) random = y.training().random();
        return random;
    }

    public float factor() { return factor; }

    /** Darknet's {@code roundl(r * init / resize_step + 1) * resize_step}, in float as Darknet computes it. */
    static int side(float r, int init) {
        return Math.round(r * init / STEP + 1f) * STEP;
    }

    @Override
    public Size at(long iteration) {
        if (iteration < 0) throw new IllegalArgumentException("iteration " + iteration);
        long block = iteration / ITERATIONS_PER_SIZE;
        long start = block * ITERATIONS_PER_SIZE;
        if (block == 0 || start > (long) maxBatches - LAST_AT_LARGEST) return largest;
        return drawn(scale(block));
    }

    /** The size a draw of {@code r} gives, Darknet's clamps applied (all but the first and last blocks'). */
    Size drawn(float r) {
        int w = side(r, width);
        int h = side(r, height);
        if (r < 1 && (w > width || h > height)) {
            w = width;
            h = height;
        }
        return new Size(Math.max(STEP, w), Math.max(STEP, h));
    }

    /** Darknet's rand_scale(factor) for block {@code block}: s uniform in [1, factor], then s or 1/s. */
    float scale(long block) {
        SplittableRandom r = new SplittableRandom((seed * 0x9E3779B97F4A7C15L + block) ^ SALT);
        float s = (float) (1 + r.nextDouble() * (factor - 1));
        return r.nextBoolean() ? s : 1f / s;
    }

    @Override
    public Size largest() { return largest; }

    /** Every size iterations 0 .. maxBatches - 1 train at, smallest first, the largest last. */
    public List<Size> sizes() {
        Set<Size> seen = new LinkedHashSet<>();
        for (long i = 0; i < Math.max(1, maxBatches); i += ITERATIONS_PER_SIZE) seen.add(at(i));
        List<Size> out = new ArrayList<>(seen);
        out.sort(Comparator.comparingLong((Size s) -> (long) s.width() * s.height()).thenComparingInt(Size::width));
        return out;
    }

    /**
     * For the start of a run: the factor, the sizes (a network made for each at the start) and the largest, which the
     * loader's arrays are made for.
     */
    public String describe() {
        List<Size> sizes = sizes();
        return String.format(Locale.ROOT, "multi-scale every %d iterations (x1/%.2f..x%.2f of %dx%d): %d size%s %s, "
                        + "a network made for each, the largest %s", ITERATIONS_PER_SIZE, factor, factor, width, height,
                sizes.size(), sizes.size() == 1 ? "" : "s", sizes.stream().map(Size::toString).toList(), largest);
    }
}
