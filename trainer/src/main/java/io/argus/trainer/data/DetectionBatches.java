package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import io.argus.trainer.train.BatchSource;
import io.argus.trainer.train.TrainingBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Augmented mini-batches drawn at random from a dataset (with replacement, as Darknet), prepared ahead on one
 * background thread. Batch k depends only on (seed, k): a resumed run continues with the batches it would have seen.
 */
public final class DetectionBatches implements BatchSource {
    private static final int AHEAD = 2;

    private final Dataset dataset;
    private final Augmentation aug;
    private final int netW;
    private final int netH;
    private final int images;
    private final long seed;
    private final ExecutorService loader;
    private final ArrayDeque<Future<TrainingBatch>> queue = new ArrayDeque<>();
    private long next;

    /** {@code first}: index of the first batch to hand out (passes already done when resuming). */
    public DetectionBatches(Dataset dataset, Augmentation aug, int netW, int netH, int images, long seed, long first) {
        this.dataset = dataset;
        this.aug = aug;
        this.netW = netW;
        this.netH = netH;
        this.images = images;
        this.seed = seed;
        this.next = first;
        this.loader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "argus-train-data");
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < AHEAD; i++) queue.add(submit());
    }

    private Future<TrainingBatch> submit() {
        long k = next++;
        return loader.submit(() -> build(k));
    }

    /** Batch number k, computed on the calling thread. */
    public TrainingBatch build(long k) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + k);
        int size = 3 * netW * netH;
        float[] data = new float[images * size];
        List<List<Truth>> truths = new ArrayList<>(images);
        for (int i = 0; i < images; i++) {
            truths.add(Augmenter.sample(dataset, aug, rnd.split(), netW, netH, data, i * size));
        }
        return new TrainingBatch(data, truths, images);
    }

    @Override
    public TrainingBatch next() {
        Future<TrainingBatch> f = queue.poll();
        queue.add(submit());
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading training images", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) throw r;
            throw new IllegalStateException("loading training images failed: " + c, c);
        }
    }

    @Override
    public void close() {
        loader.shutdownNow();
    }
}
