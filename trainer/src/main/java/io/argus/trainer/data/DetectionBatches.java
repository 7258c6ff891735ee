package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What the training batches are: batch k holds {@code images} augmented images drawn at random from a dataset (with
 * replacement, as Darknet), image i with the i-th random stream split from the stream of (seed, k). Batch k depends on
 * (seed, k) alone, so a resumed run continues with the batches it would have seen, and the images of a batch can be
 * made in any order, on any threads, with the same result ({@link PrefetchingBatches}).
 *
 * <p>As a {@link BatchSource} it makes each batch on the calling thread when asked: the reference the prefetching
 * loader is checked against, and all of its time is time the caller waits for data.
 *
 * <p>One rank of a data-parallel run reads its share ({@link #share}): of every iteration's {@code ranks x passes}
 * batches, the {@code passes} consecutive ones from {@code rank x passes}. Its batch n (counted from 0, as this source
 * hands them out) is batch {@link #globalBatch}(n) of the whole run, so the run trains on the same images whatever
 * the number of ranks.
 *
 * <p>The input size may change with the iteration ({@link InputSizes}, multi-scale training): batch n belongs to the
 * source's iteration n / passes, is made at that iteration's size and says so ({@link TrainingBatch#width}).
 */
public final class DetectionBatches implements BatchSource {
    private final Dataset dataset;
    private final Augmentation aug;
    private final InputSizes sizes;
    private final int images;
    private final long seed;
    private final int rank;
    private final int ranks;
    private final int passes;
    private long next;
    private long waitNanos;
    private long handedOut;

    /** {@code first}: index of the first batch to hand out (passes already done when resuming). */
    public DetectionBatches(Dataset dataset, Augmentation aug, int netW, int netH, int images, long seed, long first) {
        this(dataset, aug, InputSizes.fixed(netW, netH), images, seed, first, 0, 1, 1);
    }

    private DetectionBatches(Dataset dataset, Augmentation aug, InputSizes sizes, int images, long seed, long first,
                             int rank, int ranks, int passes) {
        if (images <= 0) throw new IllegalArgumentException("images per batch: expected > 0, found " + images);
        if (ranks <= 0 || rank < 0 || rank >= ranks || passes <= 0) {
            throw new IllegalArgumentException("rank " + rank + " of " + ranks + " with " + passes + " passes");
        }
        this.dataset = dataset;
        this.aug = aug;
        this.sizes = sizes;
        this.images = images;
        this.seed = seed;
        this.next = first;
        this.rank = rank;
        this.ranks = ranks;
        this.passes = passes;
    }

    /**
     * Rank {@code rank}'s share of a data-parallel run over {@code ranks} ranks making {@code passes} passes each per
     * iteration; {@code first} counts in the share's own batches (iterations done x passes when resuming).
     */
    public static DetectionBatches share(Dataset dataset, Augmentation aug, int netW, int netH, int images, long seed,
                                         long first, int rank, int ranks, int passes) {
        return share(dataset, aug, InputSizes.fixed(netW, netH), images, seed, first, rank, ranks, passes);
    }

    /** The same share with the input size of each iteration from {@code sizes} (multi-scale training). */
    public static DetectionBatches share(Dataset dataset, Augmentation aug, InputSizes sizes, int images, long seed,
                                         long first, int rank, int ranks, int passes) {
        return new DetectionBatches(dataset, aug, sizes, images, seed, first, rank, ranks, passes);
    }

    /** The whole run's number of this source's batch n (n itself unless this is one rank's share). */
    public long globalBatch(long n) {
        if (ranks == 1) return n;
        return n / passes * ((long) passes * ranks) + (long) rank * passes + n % passes;
    }

    public Dataset dataset() { return dataset; }

    /** Images per batch. */
    public int images() { return images; }

    /** Floats of one image at the largest input any batch gets (planar RGB): what a batch's array holds room for. */
    public int imageFloats() { return sizes.largest().imageFloats(); }

    /** The input size of batch k: its iteration's (every rank makes {@code passes} batches per iteration). */
    public InputSizes.Size size(long k) { return sizes.at(k / passes); }

    /** The largest input width. */
    public int width() { return sizes.largest().width(); }

    /** The largest input height. */
    public int height() { return sizes.largest().height(); }

    /** The batch the next call to {@link #next} hands out. */
    public long nextBatch() { return next; }

    /** Batch k's random streams, one per image, split in order from the stream of (seed, the run's number of k). */
    public SplittableRandom[] imageRandoms(long k) {
        SplittableRandom batch = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + globalBatch(k));
        SplittableRandom[] out = new SplittableRandom[images];
        for (int i = 0; i < images; i++) out[i] = batch.split();
        return out;
    }

    /**
     * Image {@code slot} of batch k, drawn with its stream ({@link #imageRandoms}) into its place in {@code into};
     * returns its boxes. A failure (an image that does not decode) names the image, then the batch and slot.
     */
    public List<Truth> draw(long k, int slot, SplittableRandom random, float[] into) {
        try {
            InputSizes.Size size = size(k);
            return Augmenter.sample(dataset, aug, random, size.width(), size.height(), into, slot * size.imageFloats());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(messageOf(e) + " (training batch " + globalBatch(k) + ", image " + slot + " of "
                    + images + ")", e);
        }
    }

    /** Batch number k, made on the calling thread. */
    public TrainingBatch build(long k) {
        InputSizes.Size size = size(k);
        float[] data = new float[images * size.imageFloats()];
        SplittableRandom[] randoms = imageRandoms(k);
        List<List<Truth>> truths = new ArrayList<>(images);
        for (int i = 0; i < images; i++) truths.add(draw(k, i, randoms[i], data));
        return new TrainingBatch(data, truths, images, size.width(), size.height());
    }

    @Override
    public TrainingBatch next() {
        long start = System.nanoTime();
        TrainingBatch b = build(next++);
        waitNanos += System.nanoTime() - start;
        handedOut++;
        return b;
    }

    @Override
    public long waitNanos() { return waitNanos; }

    @Override
    public long handedOut() { return handedOut; }

    /** The message that names the problem: an UncheckedIOException's is its cause's. */
    static String messageOf(Throwable e) {
        Throwable t = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
