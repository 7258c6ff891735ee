package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;

import org.bytedeco.cuda.cudart.CUevent_st;

/**
 * A few CUDA events to time the stages of work enqueued on one stream without waiting in between: {@link #mark}
 * after each stage, and once the last mark has passed, {@link #millisBetween} reads the device's own clock. Costs an
 * event record per stage; nothing synchronises until a time is asked for.
 */
public final class EventMarks implements AutoCloseable {
    private final CUevent_st[] events;

    /** {@code count} marks on the current device. */
    public EventMarks(int count) {
        events = new CUevent_st[count];
        for (int i = 0; i < count; i++) {
            events[i] = new CUevent_st();
            Status.cuda(cudaEventCreate(events[i]), "cudaEventCreate");
        }
    }

    /** Records mark {@code i} on {@code stream}: it passes when everything enqueued before it has run. */
    public void mark(int i, GpuStream stream) {
        Status.cuda(cudaEventRecord(events[i], stream.handle()), "cudaEventRecord");
    }

    /** Device milliseconds from mark {@code from} to mark {@code to}; waits for {@code to} to pass. */
    public double millisBetween(int from, int to) {
        Status.cuda(cudaEventSynchronize(events[to]), "cudaEventSynchronize");
        float[] ms = new float[1];
        Status.cuda(cudaEventElapsedTime(ms, events[from], events[to]), "cudaEventElapsedTime");
        return ms[0];
    }

    @Override
    public void close() {
        for (CUevent_st e : events) cudaEventDestroy(e);
    }
}
