package io.argus.trainer.train;

import io.argus.trainer.loss.LossParts;

/**
 * What one iteration (one update, or one skipped step) reports: its number from 1, the loss per image, the loss scale
 * it ran with, whether its step was applied, the skipped steps so far, the learning rate, throughput and ETA.
 */
public record IterationStats(int iteration, int maxBatches, LossParts lossPerImage, float lossScale, boolean applied,
                             long skipped, float learningRate, double imagesPerSecond, double etaSeconds) {}
