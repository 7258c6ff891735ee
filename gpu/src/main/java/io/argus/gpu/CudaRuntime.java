package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cuInit;
import static org.bytedeco.cuda.global.cudart.cudaDriverGetVersion;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaRuntimeGetVersion;

import org.bytedeco.javacpp.Loader;

/**
 * Whether the CUDA backend can run in this process: loads the JNI bindings and, through them, the host's CUDA
 * runtime, cuDNN 9 and NVRTC, then asks the driver for devices. Probed once; {@link #require()} throws a
 * {@link CudaUnavailableException} whose message names the missing library or driver.
 */
public final class CudaRuntime {
    private static String problem;
    private static boolean probed;
    private static int deviceCount;
    private static String versions = "";
    private static boolean fallbackTold;

    private CudaRuntime() {}

    /** Null when CUDA is usable, else why not (one sentence naming the library or the driver). */
    public static synchronized String problem() {
        if (!probed) {
            problem = probe();
            probed = true;
        }
        return problem;
    }

    /**
     * Whether the caller is the first in this process to tell the user that CUDA is not usable: the detector's and the
     * trainer's backend auto, and the app's start, would each say it, and one line per fact is enough.
     */
    public static synchronized boolean claimFallbackNotice() {
        if (fallbackTold) return false;
        fallbackTold = true;
        return true;
    }

    public static boolean available() {
        return problem() == null;
    }

    public static void require() {
        String p = problem();
        if (p != null) throw new CudaUnavailableException(p);
    }

    /** Number of CUDA devices (0 when unavailable). */
    public static int deviceCount() {
        return available() ? deviceCount : 0;
    }

    /** "driver 13.0, runtime 13.0, cuDNN 91900" once probed. */
    public static String versions() {
        problem();
        return versions;
    }

    private static String probe() {
        String hint = " (on a host with an NVIDIA GPU: install the CUDA 13 runtime, cuDNN 9 and NVRTC, or put their "
                + "lib directories on LD_LIBRARY_PATH)";
        try {
            Loader.load(org.bytedeco.cuda.global.cudart.class);
        } catch (Throwable t) {
            String why = reason(t);
            // the loader's message names the JNI library in JavaCPP's cache, which says nothing a user can act on
            if (why.contains("libcuda.so")) return "no NVIDIA driver: the driver library libcuda.so.1 cannot be loaded";
            return "cannot load the CUDA runtime library libcudart.so.13: " + why + hint;
        }
        int[] v = new int[1];
        if (cudaDriverGetVersion(v) != 0 || v[0] == 0) {
            return "no NVIDIA driver found (libcuda.so.1 is missing or cannot be loaded)";
        }
        int driver = v[0];
        cudaRuntimeGetVersion(v);
        int runtime = v[0];
        if (driver < runtime) {
            return "the NVIDIA driver supports CUDA " + version(driver) + " but the runtime is CUDA " + version(runtime)
                    + ": update the driver (CUDA 13 needs driver 580 or newer)";
        }
        int status = cudaGetDeviceCount(v);
        if (status != 0) {
            return "no usable CUDA device: cudaGetDeviceCount says " + cudaGetErrorString(status).getString();
        }
        if (v[0] == 0) return "no CUDA device found";
        deviceCount = v[0];
        int cu = cuInit(0);
        if (cu != 0) return "the CUDA driver API does not initialise (cuInit returned " + cu + ")";
        try {
            Loader.load(org.bytedeco.cuda.global.cudnn.class);
        } catch (Throwable t) {
            return "cannot load cuDNN 9 (libcudnn.so.9 and its libcudnn_*.so.9 parts): " + reason(t) + hint;
        }
        try {
            Loader.load(org.bytedeco.cuda.global.nvrtc.class);
        } catch (Throwable t) {
            return "cannot load NVRTC (libnvrtc.so.13): " + reason(t) + hint;
        }
        versions = "driver " + version(driver) + ", runtime " + version(runtime) + ", cuDNN "
                + org.bytedeco.cuda.global.cudnn.cudnnGetVersion();
        return null;
    }

    private static String version(int v) {
        return v / 1000 + "." + (v % 1000) / 10;
    }

    private static String reason(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage();
        return m == null ? root.toString() : m;
    }
}
