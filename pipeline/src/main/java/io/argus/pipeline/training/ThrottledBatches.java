package io.argus.pipeline.training;

import io.argus.trainer.data.BatchSource;
import io.argus.trainer.data.TrainingBatch;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Keeps training to a share of the machine: before handing out the next mini-batch it sleeps so that the time spent
 * computing since the last one (forward, backward, and the SGD step after a batch's last pass) is at most
 * {@code share} of the wall time. Live detection keeps its cores: on a 2-core CPU with one training thread at 0.5,
 * training averages a quarter of the machine. It is also where a fine-tune is stopped: a cancelled run ends at the
 * next pass.
 */
final class ThrottledBatches implements BatchSource {
    private final BatchSource source;
    private final double share;
    private final BooleanSupplier cancelled;
    private long lastHandedOut = -1;
    private long sleptNanos;
    private long busyNanos;

    ThrottledBatches(BatchSource source, double share, BooleanSupplier cancelled) {
        this.source = source;
        this.share = share;
        this.cancelled = cancelled;
    }

    @Override
    public TrainingBatch next() {
        if (lastHandedOut >= 0 && share < 1) {
            long busy = System.nanoTime() - lastHandedOut;
            busyNanos += busy;
            long pause = (long) (busy * (1 - share) / share);
            long end = System.nanoTime() + pause;
            try {
                for (long left = pause; left > 0 && !cancelled.getAsBoolean(); left = end - System.nanoTime()) {
                    Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted");
            }
            sleptNanos += pause;
        }
        if (cancelled.getAsBoolean()) throw new CancellationException("cancelled");
        TrainingBatch b = source.next();
        lastHandedOut = System.nanoTime();
        return b;
    }

    /** The source's wait for data (the sleeps to respect the share are not waiting for data). */
    @Override
    public long waitNanos() { return source.waitNanos(); }

    @Override
    public long handedOut() { return source.handedOut(); }

    /** Time spent sleeping to respect the share. */
    long sleptNanos() { return sleptNanos; }

    /** Time spent computing between mini-batches. */
    long busyNanos() { return busyNanos; }

    @Override
    public void close() { source.close(); }
}
