package io.argus.tools.trainer;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.cuda.CudaTrainingBackend;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.precision.LossScaler;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.Trainer;
import io.argus.trainer.train.TrainingPlan;
import java.awt.image.DataBufferByte;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Real training on the GPU for a loss curve: the cfg's schedule (batch, burn-in, learning rate, loss-scale keys),
 * Darknet's initialisation, the YOLO loss, the trainer and loss scaler exactly as {@code argus train} runs them, on
 * a fixed pool of synthetic scenes ({@link SyntheticScenes}, rendered once at the network size, no augmentation)
 * kept resident on the GPU, so the curve and the speed measure training rather than data loading. Writes one CSV row
 * per iteration and returns a summary.
 */
public final class LossCurves {
    /** What a run gives: iterations, skipped steps (all, and after burn-in), mean loss of the last 100, images/s. */
    public record Summary(String mode, int iterations, long skipped, long skippedAfterBurnIn,
                          int afterBurnIn, double firstLoss, double lastLoss, double imagesPerSecond, float lossScale) {}

    private LossCurves() {}

    /** {@code pool} scenes of (seed, 0..pool-1) in batches of the cfg's mini-batch. */
    public static List<TrainingBatch> pool(NetworkSpec spec, int pool, long seed) {
        int w = spec.net().width();
        int h = spec.net().height();
        int plane = w * h;
        float[][] images = new float[pool][];
        List<List<Truth>> truths = new ArrayList<>();
        for (int i = 0; i < pool; i++) truths.add(null);
        IntStream.range(0, pool).parallel().forEach(i -> {
            SyntheticScenes.Scene s = SyntheticScenes.render(w, h, seed, i);
            byte[] bgr = ((DataBufferByte) s.image().getRaster().getDataBuffer()).getData();
            float[] planar = new float[3 * plane];
            for (int p = 0; p < plane; p++) {
                planar[p] = (bgr[3 * p + 2] & 0xff) / 255f;
                planar[plane + p] = (bgr[3 * p + 1] & 0xff) / 255f;
                planar[2 * plane + p] = (bgr[3 * p] & 0xff) / 255f;
            }
            images[i] = planar;
            truths.set(i, s.truths());
        });
        int mini = spec.net().batch() / spec.net().subdivisions();
        List<TrainingBatch> batches = new ArrayList<>();
        for (int b = 0; b + mini <= pool; b += mini) {
            float[] data = new float[mini * 3 * plane];
            for (int k = 0; k < mini; k++) System.arraycopy(images[b + k], 0, data, k * 3 * plane, 3 * plane);
            batches.add(new TrainingBatch(data, new ArrayList<>(truths.subList(b, b + mini)), mini));
        }
        if (batches.isEmpty()) throw new IllegalArgumentException("pool of " + pool + " scenes < one mini-batch " + mini);
        return batches;
    }

    /**
     * Trains in one mode (CudaTrainingOptions.mode: mixed, fp32 or tf32). {@code orderSeed} 1 cycles the pool in order;
     * any other seed reshuffles the batches every epoch, a second run of the same precision whose distance from the
     * first measures run-to-run noise (the run is then named e.g. "mixed@2").
     */
    public static Summary run(NetworkSpec spec, ModelWeights initial, CudaTrainingOptions options, int iterations,
                              List<TrainingBatch> pool, long orderSeed, PrintStream csv, PrintStream out) {
        TrainingPlan plan = TrainingPlan.of(spec, iterations);
        LossScaler scaler = LossScaler.of(spec.net().training());
        try (CudaTrainingBackend backend = new CudaTrainingBackend(spec, initial, plan.miniBatch(), options)) {
            for (TrainingBatch b : pool) backend.keepResident(b);
            BatchSource source = new BatchSource() {
                final SplittableRandom random = new SplittableRandom(orderSeed);
                final int[] order = IntStream.range(0, pool.size()).toArray();
                int k;

                @Override
                public TrainingBatch next() {
                    if (orderSeed != 1 && k % order.length == 0) shuffle();
                    return pool.get(order[k++ % order.length]);
                }

                private void shuffle() {
                    for (int i = order.length - 1; i > 0; i--) {
                        int j = random.nextInt(i + 1);
                        int t = order[i];
                        order[i] = order[j];
                        order[j] = t;
                    }
                }
            };
            Trainer trainer = new Trainer(backend, source, plan, scaler, 0);
            List<IterationStats> all = new ArrayList<>();
            String p = options.modeName() + (orderSeed == 1 ? "" : "@" + orderSeed);
            long start = System.nanoTime();
            trainer.run(s -> {
                all.add(s);
                var l = s.lossPerImage();
                csv.printf(Locale.ROOT, "%s,%d,%.6f,%.6f,%.6f,%.6f,%s,%d,%.8f%n", p, s.iteration(), l.total(), l.box(),
                        l.objectness(), l.classification(), s.lossScale(), s.applied() ? 1 : 0, s.learningRate());
                if (s.iteration() % 100 == 0 || s.iteration() == 1) {
                    out.printf(Locale.ROOT, "%s %d/%d loss %.4f (box %.4f obj %.4f cls %.4f) scale %s skipped %d "
                                    + "lr %.6f %.0f img/s%n", p, s.iteration(), s.maxBatches(), l.total(), l.box(),
                            l.objectness(), l.classification(), s.lossScale(), s.skipped(), s.learningRate(),
                            s.imagesPerSecond());
                }
            });
            double seconds = (System.nanoTime() - start) / 1e9;
            int burnIn = spec.net().training().burnIn();
            long skipped = all.stream().filter(s -> !s.applied()).count();
            long skippedAfter = all.stream().filter(s -> s.iteration() > burnIn && !s.applied()).count();
            int after = (int) all.stream().filter(s -> s.iteration() > burnIn).count();
            double first = all.get(0).lossPerImage().total();
            double last = all.subList(Math.max(0, all.size() - 100), all.size()).stream()
                    .mapToDouble(s -> s.lossPerImage().total()).average().orElse(Double.NaN);
            Summary sum = new Summary(p, all.size(), skipped, skippedAfter, after, first, last,
                    (double) all.size() * plan.batch() / seconds, scaler.scale());
            out.printf(Locale.ROOT, "argus-curve model=%s precision=%s iterations=%d images/s=%.1f first_loss=%.4f "
                            + "last100_loss=%.4f skipped=%d skipped_after_burn_in=%d after_burn_in=%d final_scale=%s%n",
                    spec.name(), p, sum.iterations(), sum.imagesPerSecond(), first, last, skipped, skippedAfter, after,
                    scaler.scale());
            return sum;
        }
    }
}
