package io.argus.trainer.train;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.SgdStep;

/**
 * What a device does for training; {@link Trainer} drives it and keeps the schedule, the loss scaler and the data on
 * the host. The CPU implementation is {@link CpuTrainingBackend}; a CUDA one implements the same contract with FP16
 * activations and gradients, FP32 master weights, one fused overflow check and one multi-tensor SGD launch.
 */
public interface TrainingBackend extends AutoCloseable {
    /** Short name for logs, e.g. "cpu fp32". */
    String name();

    /** Where it computes: "cpu" or "cuda" (what run records and progress events report). */
    String kind();

    /**
     * How it stores activations and gradients: "fp32" or "mixed-emulated" on the CPU; "mixed" (FP16 with FP32
     * masters and loss scaling), "fp32" or "tf32" on CUDA.
     */
    String precision();

    NetworkSpec spec();

    /** Images per pass (Darknet's batch / subdivisions). */
    int maxBatch();

    /**
     * Forward, YOLO loss and backward of one mini-batch with the loss multiplied by {@code lossScale}; parameter
     * gradients accumulate over passes until {@link #step} or {@link #discardGradients}. Returns the unscaled loss.
     */
    LossParts forwardBackward(TrainingBatch batch, float lossScale);

    /**
     * The ranks of the data-parallel run this backend is one of: 1 when it trains alone. With several, each rank
     * trains on its own share of every iteration's mini-batches and the iteration's last pass leaves in every rank
     * the sum of all ranks' gradients ({@link #forwardBackward(TrainingBatch, float, boolean)}), so that every rank
     * takes the same step from the same weights and the ranks never drift apart.
     */
    default int ranks() { return 1; }

    /**
     * A pass that knows whether it is its iteration's last ({@link Trainer} calls this one). On a rank of a
     * data-parallel run the last pass also sums the accumulated gradients over every rank, in place (a GPU does it
     * in buckets while the rest of the backward pass runs); the overflow check that follows then sees the sum, so
     * every rank skips or takes the step alike. Alone, the same as {@link #forwardBackward(TrainingBatch, float)}.
     */
    default LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration) {
        return forwardBackward(batch, lossScale);
    }

    /**
     * The same pass, offered the next pass's batch: a backend that computes asynchronously (a GPU) calls
     * {@code next} while this pass computes and stages that batch (copies and uploads it behind the pass), so the
     * next pass finds its images on the device; the trainer then starts its next pass with the batch {@code next}
     * returned. {@code next} may be called at most once, and returns null when there is no next pass to prepare.
     * Default: the pass alone, {@code next} not called.
     */
    default LossParts forwardBackward(TrainingBatch batch, float lossScale, boolean lastOfIteration,
                                      java.util.function.Supplier<TrainingBatch> next) {
        return forwardBackward(batch, lossScale, lastOfIteration);
    }

    /**
     * Makes ready, before the first pass, a network for each of {@code sizes} (the cfg at other input sizes,
     * {@link NetworkSpec#withInput}) sharing this backend's parameters, so that a pass whose batch names one of these
     * sizes ({@link TrainingBatch#width}) trains at it (multi-scale training). Default: refused, the backend trains at
     * the cfg's size only.
     *
     * @throws IllegalArgumentException when this backend cannot train at several sizes
     */
    default void prepareInputSizes(java.util.List<NetworkSpec> sizes) {
        throw new IllegalArgumentException("multi-scale training (random in the cfg's [yolo] layers): the " + kind()
                + " backend trains at the cfg's size only: turn it off with --multi-scale off (or random=0 in the cfg)");
    }

    /** What it holds in memory, for the run's start line (e.g. "device memory 2,836 MiB"); null when not known. */
    default String memory() { return null; }

    /** Whether any accumulated gradient is Inf or NaN. */
    boolean gradientsOverflowed();

    /**
     * Applies one SGD step to the FP32 master weights from the accumulated gradients divided by {@code lossScale},
     * refreshes the working copies, clears the gradients; returns the largest absolute weight update.
     */
    float step(SgdStep step, float lossScale);

    /** Drops the accumulated gradients (a skipped step). */
    void discardGradients();

    /** The weights in Darknet's layout (copies): the EMA when it runs, else the masters; rolling BN statistics. */
    ModelWeights weights(long seen);

    /**
     * What a checkpoint needs beside {@link #weights} to resume exactly (copies): every tensor's momentum and, while
     * the EMA runs, the masters it averages; in {@link OptimizerState#shapes(NetworkSpec)}'s order and Darknet's
     * layout.
     */
    OptimizerState optimizerState();

    /**
     * Resumes from a checkpoint: the backend was opened with the checkpoint's {@link #weights}, and {@code state} is
     * what {@link #optimizerState} gave with them. Sets the momentum; when the EMA ran, the weights it was opened with
     * become the EMA's shadow and the state's masters the masters.
     *
     * @throws IllegalArgumentException when the state's tensors are not this network's
     */
    void restoreOptimizerState(OptimizerState state);

    @Override
    void close();
}
