package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudnn.cudnnCreate;
import static org.bytedeco.cuda.global.cudnn.cudnnSetStream;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * What every backend on one device shares for the life of the process: the device, our compiled kernels, one cuDNN
 * handle and the cache of convolution plans found for each layer shape (so a second network on the device, e.g.
 * the same model in another memory mode, reuses the same algorithms and gives identical results). The handle is
 * used under {@link #lock()}: set to the caller's stream, then work is enqueued.
 */
final class DeviceContext {
    private static final Map<Integer, DeviceContext> CONTEXTS = new HashMap<>();

    private final GpuDevice device;
    private final KernelLibrary kernels;
    private final cudnnContext cudnn = new cudnnContext();
    private final Map<String, ConvolutionPlan> plans = new ConcurrentHashMap<>();
    private final Object lock = new Object();

    private DeviceContext(int index) {
        this.device = GpuDevice.query(index);
        device.makeCurrent();
        this.kernels = new KernelLibrary(device);
        Status.cudnn(cudnnCreate(cudnn), "cudnnCreate on " + device);
    }

    static synchronized DeviceContext of(int index) {
        CudaRuntime.require();
        DeviceContext c = CONTEXTS.get(index);
        if (c == null) {
            c = new DeviceContext(index);
            CONTEXTS.put(index, c);
        }
        c.device.makeCurrent();
        return c;
    }

    GpuDevice device() { return device; }

    KernelLibrary kernels() { return kernels; }

    cudnnContext cudnn() { return cudnn; }

    Map<String, ConvolutionPlan> plans() { return plans; }

    Object lock() { return lock; }

    /** Points the shared cuDNN handle at a stream; call under {@link #lock()}. */
    void useStream(GpuStream stream) {
        Status.cudnn(cudnnSetStream(cudnn, stream.handle()), "cudnnSetStream");
    }
}
