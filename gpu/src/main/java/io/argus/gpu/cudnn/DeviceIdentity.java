package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudart.cudaDriverGetVersion;
import static org.bytedeco.cuda.global.cudnn.cudnnGetVersion;

import io.argus.gpu.GpuDevice;
import io.argus.gpu.Status;

/**
 * What a cached plan is only valid for: the GPU model and compute capability, the driver and the cuDNN library.
 * An engine index and its knobs mean the same kernel only under all four; another of any is a cache miss.
 */
public record DeviceIdentity(String gpu, int computeCapability, int driverVersion, long cudnnVersion) {

    public static DeviceIdentity of(GpuDevice device) {
        int[] driver = new int[1];
        Status.cuda(cudaDriverGetVersion(driver), "cudaDriverGetVersion");
        return new DeviceIdentity(device.name(), device.computeCapability(), driver[0], cudnnGetVersion());
    }

    /** "NVIDIA H100 80GB HBM3 sm_90 driver 13000 cudnn 91900". */
    public String text() {
        return gpu.strip() + " sm_" + computeCapability + " driver " + driverVersion + " cudnn " + cudnnVersion;
    }
}
