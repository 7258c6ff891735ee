package io.argus.gpu;

import static org.bytedeco.cuda.global.cudnn.cudnnCreate;
import static org.bytedeco.cuda.global.cudnn.cudnnSetStream;

import java.util.HashMap;
import java.util.Map;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * Everything one device shares for the life of the process, whoever uses it (inference, training, the video
 * decoder): the device, our compiled kernels and one cuDNN handle. The handle is used under {@link #lock()}: set to
 * the caller's stream, then work is enqueued. The device's convolution planner, with the plans found for each layer
 * shape, lives as long as the context too: {@code cudnn.ConvolutionPlanner.of(context)} (cudnn is built on this
 * package, not the other way round).
 */
public final class DeviceContext {
    private static final Map<Integer, DeviceContext> CONTEXTS = new HashMap<>();

    private final GpuDevice device;
    private final KernelLibrary kernels;
    private final cudnnContext cudnn = new cudnnContext();
    private final Object lock = new Object();

    private DeviceContext(int index) {
        this.device = GpuDevice.query(index);
        device.makeCurrent();
        this.kernels = new KernelLibrary(device);
        Status.cudnn(cudnnCreate(cudnn), "cudnnCreate on " + device);
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

    public Object lock() { return lock; }

    /** Points the shared cuDNN handle at a stream; call under {@link #lock()}. */
    public void useStream(GpuStream stream) {
        Status.cudnn(cudnnSetStream(cudnn, stream.handle()), "cudnnSetStream");
    }
}
