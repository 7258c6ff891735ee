package io.argus.trainer.train;

import io.argus.trainer.data.BatchSource;
import io.argus.trainer.loss.LossParts;

/**
 * What one iteration (one update, or one skipped step) reports: its number from 1, the loss per image, the loss scale
 * it ran with, whether its step was applied, the skipped steps so far, the learning rate, throughput and ETA; and the
 * time the training thread waited for data ({@link BatchSource#waitNanos}): this iteration's seconds, and its share of
 * the iteration time smoothed as the throughput is (the share a GPU idles for want of data).
 */
public record IterationStats(int iteration, int maxBatches, LossParts lossPerImage, float lossScale, boolean applied,
                             long skipped, float learningRate, double imagesPerSecond, double etaSeconds,
                             double dataWaitSeconds, double dataWaitShare) {}
