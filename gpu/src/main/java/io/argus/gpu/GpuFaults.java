package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cuLaunchKernel;
import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;
import static org.bytedeco.cuda.global.cudart.cudaDeviceSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;

import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Fault drills: makes a GPU fail for real, as a faulty kernel or a failing device does, so that what the rest of
 * Argus does about it (a GPU worker taken out, a data-parallel run ended on every rank) is tested on real devices
 * rather than on stand-ins. A kernel executes {@code __trap()} on the device's primary context; the error is sticky:
 * from then on every CUDA call in that context fails (the next launch, copy or synchronize of whatever uses the
 * device), and on the H200 hosts with driver 580 every other device's calls in the process too (docs/cuda.md,
 * "Several GPUs"), so a drill runs in a process of its own. Used by the several-GPU tests; nothing in the product
 * calls it.
 */
public final class GpuFaults {
    private static final String SOURCE = "extern \"C\" __global__ void argus_fault_trap() { __trap(); }\n";

    private GpuFaults() {}

    /**
     * Traps a kernel on {@code device} (made current on the calling thread) and waits for it; returns the error CUDA
     * reported, e.g. "719 unspecified launch failure".
     */
    public static String trap(int device) {
        GpuDevice d = GpuDevice.query(device);
        d.makeCurrent();
        KernelCompiler.Image image = KernelCompiler.compile("argus_fault_trap.cu", SOURCE, KernelLibrary.HEADER,
                KernelLibrary.resource(KernelLibrary.HEADER), d);
        CUmod_st module = new CUmod_st();
        Status.driver(cuModuleLoadData(module, new BytePointer(image.bytes())), "cuModuleLoadData fault trap");
        CUfunc_st trap = new CUfunc_st();
        Status.driver(cuModuleGetFunction(trap, module, "argus_fault_trap"), "cuModuleGetFunction fault trap");
        Status.driver(cuLaunchKernel(trap, 1, 1, 1, 1, 1, 1, 0, (CUstream_st) null, (PointerPointer<?>) null,
                (PointerPointer<?>) null), "launch fault trap");
        int rc = cudaDeviceSynchronize();
        if (rc == 0) throw new IllegalStateException("the trap kernel on device " + device + " did not fail");
        return rc + " " + cudaGetErrorString(rc).getString();
    }
}
