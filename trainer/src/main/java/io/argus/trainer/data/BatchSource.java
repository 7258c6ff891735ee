package io.argus.trainer.data;

/** Where training passes get their mini-batches from; batch k is the same on every run with the same seed. */
public interface BatchSource extends AutoCloseable {
    /**
     * The next mini-batch of at most {@code maxImages} images. A source may reuse the batch's arrays once it is asked
     * for the batch after it: a caller that keeps a batch longer copies it.
     */
    TrainingBatch next();

    /**
     * Nanoseconds that calls to {@link #next} have spent so far waiting for a batch to be made: the time a GPU would
     * sit idle for want of data. 0 for a source whose batches are ready when asked for.
     */
    default long waitNanos() { return 0; }

    /** Batches handed out by {@link #next} so far (0 when the source does not count). */
    default long handedOut() { return 0; }

    @Override
    default void close() {}
}
