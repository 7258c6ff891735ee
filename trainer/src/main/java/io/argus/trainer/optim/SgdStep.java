package io.argus.trainer.optim;

/**
 * One update: Darknet's SGD with momentum and weight decay over a batch of {@code batch} images (gradients are sums
 * over the images, so the step divides by it); {@code emaAlpha} > 0 also moves the weights' moving average.
 */
public record SgdStep(float learningRate, float momentum, float decay, int batch, float emaAlpha) {}
