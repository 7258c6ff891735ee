package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cudaDeviceGetStreamPriorityRange;
import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithPriority;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamGetPriority;
import static org.bytedeco.cuda.global.cudart.cudaStreamNonBlocking;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

/**
 * A non-blocking CUDA stream with a pair of events for timing work on it. A stream belongs to the device current
 * when it is created: create it after {@link GpuDevice#makeCurrent()}.
 */
public final class GpuStream implements AutoCloseable {
    /**
     * Which work the device's scheduler runs first when streams compete (cudaStreamCreateWithPriority): live
     * detection at the HIGHEST priority, a fine-tune beside it at the LOWEST. NORMAL is CUDA's default priority (on
     * current GPUs that is already the lowest, so it is raising detection that gives it precedence).
     */
    public enum Priority { NORMAL, HIGHEST, LOWEST }

    private final CUstream_st handle = new CUstream_st();
    private final CUevent_st start = new CUevent_st();
    private final CUevent_st stop = new CUevent_st();

    public GpuStream() {
        this(Priority.NORMAL);
    }

    /** A stream of the current device at {@code priority}. */
    public GpuStream(Priority priority) {
        if (priority == Priority.NORMAL) {
            Status.cuda(cudaStreamCreateWithFlags(handle, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        } else {
            int[] range = priorityRange();
            int p = priority == Priority.HIGHEST ? range[1] : range[0];
            Status.cuda(cudaStreamCreateWithPriority(handle, cudaStreamNonBlocking, p),
                    "cudaStreamCreateWithPriority " + p);
        }
        Status.cuda(cudaEventCreate(start), "cudaEventCreate");
        Status.cuda(cudaEventCreate(stop), "cudaEventCreate");
    }

    /**
     * The current device's priorities as {least, greatest}. In CUDA a lower number is a higher priority: the least
     * priority is the greatest number (0 on current GPUs), the greatest priority the smallest (e.g. -5).
     */
    public static int[] priorityRange() {
        int[] least = new int[1];
        int[] greatest = new int[1];
        Status.cuda(cudaDeviceGetStreamPriorityRange(least, greatest), "cudaDeviceGetStreamPriorityRange");
        return new int[] {least[0], greatest[0]};
    }

    /** The priority this stream was created with (a number of {@link #priorityRange()}). */
    public int priority() {
        int[] p = new int[1];
        Status.cuda(cudaStreamGetPriority(handle, p), "cudaStreamGetPriority");
        return p[0];
    }

    public CUstream_st handle() { return handle; }

    public void synchronize() {
        Status.cuda(cudaStreamSynchronize(handle), "cudaStreamSynchronize (a kernel or copy on this stream failed)");
    }

    /** Milliseconds the device spent on {@code work} enqueued on this stream (events around it). */
    public float time(Runnable work) {
        Status.cuda(cudaEventRecord(start, handle), "cudaEventRecord");
        work.run();
        Status.cuda(cudaEventRecord(stop, handle), "cudaEventRecord");
        Status.cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float[] ms = new float[1];
        Status.cuda(cudaEventElapsedTime(ms, start, stop), "cudaEventElapsedTime");
        return ms[0];
    }

    @Override
    public void close() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        cudaStreamDestroy(handle);
    }
}
