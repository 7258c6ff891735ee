package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;

/**
 * What the layers of one training network share: the worker threads, one scratch area per worker (im2col columns
 * and a partial weight gradient), and whether tensors are rounded through FP16 (emulated mixed precision).
 */
public final class TrainContext implements AutoCloseable {
    private final Workers workers;
    private final boolean fp16;
    private final NativeFloats[] columns;
    private final NativeFloats[] partialWeightGradients;

    public TrainContext(Workers workers, boolean fp16, long columnFloats, long weightFloats) {
        this.workers = workers;
        this.fp16 = fp16;
        this.columns = new NativeFloats[workers.threads()];
        this.partialWeightGradients = new NativeFloats[workers.threads()];
        for (int w = 0; w < workers.threads(); w++) {
            columns[w] = new NativeFloats(Math.max(1, columnFloats));
            partialWeightGradients[w] = new NativeFloats(Math.max(1, weightFloats));
        }
    }

    public Workers workers() { return workers; }

    /** Whether activations, gradients and working weights are rounded through FP16. */
    public boolean fp16() { return fp16; }

    /** im2col scratch of worker {@code w}. */
    NativeFloats columns(int w) { return columns[w]; }

    /** Weight-gradient scratch of worker {@code w}: its images' share, summed into the gradient afterwards. */
    NativeFloats partialWeightGradient(int w) { return partialWeightGradients[w]; }

    @Override
    public void close() {
        for (NativeFloats c : columns) c.close();
        for (NativeFloats p : partialWeightGradients) p.close();
    }
}
