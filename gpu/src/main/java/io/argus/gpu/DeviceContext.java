package io.argus.gpu;

import static org.bytedeco.cuda.global.cudnn.cudnnCreate;
import static org.bytedeco.cuda.global.cudnn.cudnnSetStream;

import io.argus.gpu.cudnn.ConvolutionPlanner;
import java.util.HashMap;
import java.util.Map;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * Everything one device shares for the life of the process, whoever uses it (inference, training, the video
 * decoder): the device, our compiled kernels, one cuDNN handle and the convolution planner with the plans found for
 * each layer shape (so a second network on the device reuses the same algorithms and gives identical results). The handle is used under {@link #lock()}: set to the caller's stream, then work is enqueued.
 */
public final class DeviceContext {
    private static final Map<Integer, DeviceContext> CONTEXTS = new HashMap<>();

    private final GpuDevice device;
    private final KernelLibrary kernels;
    private final cudnnContext cudnn = new cudnnContext();
    private final ConvolutionPlanner planner;
    private final Object lock = new Object();

    private DeviceContext(int index) {
        this.device = GpuDevice.query(index);
        device.makeCurrent();
        this.kernels = new KernelLibrary(device);
        this.planner = new ConvolutionPlanner(device);
        Status.cudnn(cudnnCreate(cudnn), "cudnnCreate on " + device);
    }

    /**
     * Host waits on device {@code index} (stream and event synchronisation, NVDEC's own waits) sleep instead of
     * spinning: for a process with many threads waiting on the GPU at once (a camera thread per NVDEC decoder).
     * Call before the device is first used: the primary context takes its flags when it is created (later, the
     * driver may keep the old ones; the result is logged). Spinning is CUDA's default while a process has fewer
     * contexts than cores, and the right choice for one inference thread; 150 decoder threads spinning are not.
     */
    public static synchronized void preferBlockingWaits(int index) {
        CudaRuntime.require();
        int r = org.bytedeco.cuda.global.cudart.cuDevicePrimaryCtxSetFlags(index,
                org.bytedeco.cuda.global.cudart.CU_CTX_SCHED_BLOCKING_SYNC);
        CudaLog.info("device " + index + ": host waits block (cuDevicePrimaryCtxSetFlags BLOCKING_SYNC returned " + r
                + (CONTEXTS.containsKey(index) ? ", context already in use" : "") + ")");
    }

    /** The context of device {@code index}, created on first use; makes the device current on this thread. */
    public static synchronized DeviceContext of(int index) {
        CudaRuntime.require();
        DeviceContext c = CONTEXTS.get(index);
        if (c == null) {
            c = new DeviceContext(index);
            CONTEXTS.put(index, c);
        }
        c.device.makeCurrent();
        return c;
    }

    public GpuDevice device() { return device; }

    public KernelLibrary kernels() { return kernels; }

    public cudnnContext cudnn() { return cudnn; }

    /** The device's cuDNN convolution planner and its plans. */
    public ConvolutionPlanner planner() { return planner; }

    public Object lock() { return lock; }

    /** Points the shared cuDNN handle at a stream; call under {@link #lock()}. */
    public void useStream(GpuStream stream) {
        Status.cudnn(cudnnSetStream(cudnn, stream.handle()), "cudnnSetStream");
    }
}
