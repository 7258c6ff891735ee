package io.argus.trainer.nn;

/**
 * What one training network shares with the code around it: the worker threads of its Java loops (the YOLO loss over
 * images, rounding, the overflow check; the layers run on oneDNN's own threads), and whether tensors are rounded
 * through FP16 (emulated mixed precision).
 */
public final class TrainContext implements AutoCloseable {
    private final Workers workers;
    private final boolean fp16;

    public TrainContext(Workers workers, boolean fp16) {
        this.workers = workers;
        this.fp16 = fp16;
    }

    public Workers workers() { return workers; }

    /** Whether activations, gradients and working weights are rounded through FP16. */
    public boolean fp16() { return fp16; }

    @Override
    public void close() {}
}
