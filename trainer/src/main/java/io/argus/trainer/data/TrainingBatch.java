package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.util.List;

/**
 * One mini-batch for a training pass: {@code count} images as NCHW planar RGB floats in [0,1] at the network's input
 * size, and each image's objects relative to that input.
 */
public record TrainingBatch(float[] images, List<List<Truth>> truths, int count) {
    public TrainingBatch {
        if (truths.size() != count) {
            throw new IllegalArgumentException(truths.size() + " truth lists for " + count + " images");
        }
    }
}
