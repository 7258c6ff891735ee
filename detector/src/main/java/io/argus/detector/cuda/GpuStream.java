package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamNonBlocking;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

/** A non-blocking CUDA stream with a pair of events for timing work on it. */
public final class GpuStream implements AutoCloseable {
    private final CUstream_st handle = new CUstream_st();
    private final CUevent_st start = new CUevent_st();
    private final CUevent_st stop = new CUevent_st();

    public GpuStream() {
        Status.cuda(cudaStreamCreateWithFlags(handle, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        Status.cuda(cudaEventCreate(start), "cudaEventCreate");
        Status.cuda(cudaEventCreate(stop), "cudaEventCreate");
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
