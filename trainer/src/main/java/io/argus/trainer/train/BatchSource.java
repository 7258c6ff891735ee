package io.argus.trainer.train;

/** Where training passes get their mini-batches from; batch k is the same on every run with the same seed. */
public interface BatchSource extends AutoCloseable {
    /** The next mini-batch of at most {@code maxImages} images. */
    TrainingBatch next();

    @Override
    default void close() {}
}
