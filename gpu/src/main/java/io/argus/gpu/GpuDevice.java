package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cudaDevAttrConcurrentManagedAccess;
import static org.bytedeco.cuda.global.cudart.cudaDeviceGetAttribute;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import org.bytedeco.cuda.cudart.cudaDeviceProp;

/** One CUDA device as the backend needs it: compute capability, multiprocessors, integrated (shared memory) or not. */
public record GpuDevice(int index, String name, int major, int minor, int multiprocessors, boolean integrated,
                        long totalMemory, boolean concurrentManagedAccess) {

    public static GpuDevice query(int index) {
        CudaRuntime.require();
        int count = CudaRuntime.deviceCount();
        if (index < 0 || index >= count) {
            throw new CudaUnavailableException("CUDA device " + index + " does not exist (" + count + " found)");
        }
        cudaDeviceProp p = new cudaDeviceProp();
        Status.cuda(cudaGetDeviceProperties(p, index), "cudaGetDeviceProperties(" + index + ")");
        int[] v = new int[1];
        Status.cuda(cudaDeviceGetAttribute(v, cudaDevAttrConcurrentManagedAccess, index),
                "cudaDeviceGetAttribute(concurrentManagedAccess)");
        return new GpuDevice(index, p.name().getString().strip(), p.major(), p.minor(), p.multiProcessorCount(),
                p.integrated() != 0, p.totalGlobalMem(), v[0] != 0);
    }

    /** Makes this device current on the calling thread (and with it its primary context). */
    public void makeCurrent() {
        Status.cuda(cudaSetDevice(index), "cudaSetDevice(" + index + ")");
    }

    /** Compute capability as NVRTC spells it, e.g. 90. */
    public int computeCapability() {
        return major * 10 + minor;
    }

    @Override
    public String toString() {
        return "GPU " + index + " (" + name + ", sm_" + computeCapability() + ", " + multiprocessors + " SMs, "
                + totalMemory / (1 << 20) + " MiB" + (integrated ? ", integrated" : "") + ")";
    }
}
