package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaEventCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventDisableTiming;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamWaitEvent;

import io.argus.gpu.DeviceMemory;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.trainer.data.TrainingBatch;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

/**
 * How a batch's images get from the loader's float arrays onto the GPU without the GPU waiting for them: two slots,
 * each a pinned host buffer and a device buffer. While pass k computes from one slot, the next pass's batch is
 * {@link #stage staged} into the other: copied into its pinned buffer by a few threads at once (one thread copies
 * yolov4-tiny's 133 MB batch of 64 at ~10 GB/s, longer than the pass it hides behind), then uploaded on a copy stream
 * of its own, ending in an event the training stream waits for before it reads the slot. A batch that was not staged
 * goes the plain way: copied and uploaded on the training stream as it is asked for.
 *
 * <p>Slot safety: a slot is written again only two passes after it was read, and every pass ends with the training
 * stream synchronized (the loss is read back), so its reads are done by then.
 */
final class InputStaging implements AutoCloseable {
    /** Threads that copy staged images into pinned memory, shared by every backend (and rank) of the process. */
    private static final ExecutorService COPIERS = Executors.newFixedThreadPool(
            Math.max(2, Math.min(16, Runtime.getRuntime().availableProcessors() / 2)), job -> {
                Thread t = new Thread(job, "argus-input-staging");
                t.setDaemon(true);
                return t;
            });
    /** Pieces a batch's copy is cut into. */
    private static final int PIECES = 8;

    private final GpuBuffer[] host = new GpuBuffer[2];
    private final GpuBuffer[] device = new GpuBuffer[2];
    private final CUevent_st[] uploaded = {new CUevent_st(), new CUevent_st()};
    private final GpuStream copies;
    private final long floatsPerSlot;
    /** The batch staged for the next pass and its slot, or null. */
    private float[] staged;
    private int stagedCount;
    private int stagedSlot;
    /** The slot the last pass read. */
    private int lastRead = 1;

    InputStaging(long floatsPerSlot, DeviceMemory memory) {
        this.floatsPerSlot = floatsPerSlot;
        this.copies = new GpuStream();
        for (int s = 0; s < 2; s++) {
            host[s] = GpuBuffer.pinned(4 * floatsPerSlot, "input staging (host)");
            device[s] = memory.allocate(4 * floatsPerSlot, "input staging");
            Status.cuda(cudaEventCreateWithFlags(uploaded[s], cudaEventDisableTiming), "cudaEventCreateWithFlags");
        }
    }

    /**
     * Starts moving {@code next}'s images to the GPU in the slot the current pass does not read: copy into pinned
     * memory now (on several threads), upload on the copy stream.
     */
    void stage(TrainingBatch next, int floatsPerImage) {
        int slot = 1 - lastRead;
        int count = next.count() * floatsPerImage;
        check(next, count);
        parallelCopy(next.images(), count, host[slot].host().asFloatBuffer());
        Status.cuda(cudaMemcpyAsync(DevicePointer.at(device[slot].address()), DevicePointer.at(host[slot].address()),
                4L * count, cudaMemcpyHostToDevice, copies.handle()), "cudaMemcpyAsync staged images");
        Status.cuda(cudaEventRecord(uploaded[slot], copies.handle()), "cudaEventRecord staged images");
        staged = next.images();
        stagedCount = count;
        stagedSlot = slot;
    }

    /**
     * The device address of {@code batch}'s images, ready for work enqueued next on {@code stream}: the staged slot
     * (the stream then waits for its upload), or another slot filled now on the stream itself.
     */
    long deviceImages(TrainingBatch batch, int floatsPerImage, CUstream_st stream) {
        int count = batch.count() * floatsPerImage;
        check(batch, count);
        int slot;
        if (staged == batch.images() && stagedCount == count) {
            slot = stagedSlot;
            Status.cuda(cudaStreamWaitEvent(stream, uploaded[slot], 0), "cudaStreamWaitEvent staged images");
        } else {
            slot = 1 - lastRead;
            host[slot].host().asFloatBuffer().put(0, batch.images(), 0, count);
            Status.cuda(cudaMemcpyAsync(DevicePointer.at(device[slot].address()), DevicePointer.at(host[slot].address()),
                    4L * count, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync images");
        }
        staged = null;
        lastRead = slot;
        return device[slot].address();
    }

    private void check(TrainingBatch b, long count) {
        if (b.images().length < count) {
            throw new IllegalArgumentException("batch holds " + b.images().length + " floats, " + b.count()
                    + " images need " + count);
        }
        if (count > floatsPerSlot) {
            throw new IllegalArgumentException("batch of " + count + " floats, the staging holds " + floatsPerSlot);
        }
    }

    private static void parallelCopy(float[] from, int count, FloatBuffer into) {
        int piece = (count + PIECES - 1) / PIECES;
        List<Future<?>> parts = new ArrayList<>(PIECES);
        for (int start = 0; start < count; start += piece) {
            int at = start;
            int length = Math.min(piece, count - start);
            parts.add(COPIERS.submit(() -> into.duplicate().put(at, from, at, length)));
        }
        try {
            for (Future<?> f : parts) f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while staging a batch", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("staging a batch failed: " + e.getCause(), e.getCause());
        }
    }

    @Override
    public void close() {
        try {
            copies.synchronize();
        } finally {
            for (int s = 0; s < 2; s++) {
                cudaEventDestroy(uploaded[s]);
                host[s].close();
            }
            copies.close();
        }
    }

    /** Floats of images one slot holds. */
    long capacity() { return floatsPerSlot; }
}
