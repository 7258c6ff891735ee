package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.util.List;

/**
 * One mini-batch for a training pass: {@code count} images as NCHW planar RGB floats in [0,1] at a {@code width} x
 * {@code height} input, and each image's objects relative to that input. Width and height 0: the network's own input
 * size (the cfg's); multi-scale training names the size of its iteration, so the backend trains the network made for it.
 */
public record TrainingBatch(float[] images, List<List<Truth>> truths, int count, int width, int height) {
    public TrainingBatch {
        if (truths.size() != count) {
            throw new IllegalArgumentException(truths.size() + " truth lists for " + count + " images");
        }
        if (width < 0 || height < 0 || (width == 0) != (height == 0)) {
            throw new IllegalArgumentException("batch input " + width + "x" + height);
        }
    }

    /** At the network's own input size. */
    public TrainingBatch(float[] images, List<List<Truth>> truths, int count) {
        this(images, truths, count, 0, 0);
    }

    /** Whether the batch names its input size (else it is the network's own). */
    public boolean sized() { return width > 0; }
}
