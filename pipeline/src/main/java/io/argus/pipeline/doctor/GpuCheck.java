package io.argus.pipeline.doctor;

import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.cudnn;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.javacpp.Loader;

/**
 * The NVIDIA stack the CUDA backend needs, part by part: the driver (libcuda.so.1), the devices, the CUDA runtime,
 * cuDNN, NVRTC, and NVDEC (libnvcuvid.so.1, hardware video decoding). Without a driver this is one INFO line: a
 * CPU-only machine is a normal place to run Argus ({@code backend: auto} uses the CPU).
 */
final class GpuCheck implements Check {
    private static final String LIBRARY_PATH_HINT = "or put the directory that holds it on LD_LIBRARY_PATH";

    @Override
    public String name() { return "GPU"; }

    /** Loading cuDNN the first time reads a few hundred MiB of libraries. */
    @Override
    public Duration timeout() { return Duration.ofSeconds(30); }

    @Override
    public List<Finding> run() {
        String driverProblem = loadError("libcuda.so.1");
        if (driverProblem != null) {
            return List.of(Finding.info(name(), "not found (CPU only): no NVIDIA driver, libcuda.so.1 cannot be loaded"));
        }
        List<Finding> out = new ArrayList<>();
        String kernel = kernelModule();
        try {
            Loader.load(cudart.class);
        } catch (Throwable e) {
            out.add(Finding.ok("NVIDIA driver", "libcuda.so.1 loads" + (kernel != null ? ", kernel module " + kernel : "")));
            out.add(Finding.warn("CUDA runtime", "cannot load libcudart.so.13: " + Doctor.describe(rootCause(e)),
                    "install the CUDA 13 runtime (NVIDIA's cuda-cudart-13-x package) " + LIBRARY_PATH_HINT
                            + "; until then backend auto runs on the CPU"));
            return out;
        }
        int[] v = new int[1];
        cudart.cudaDriverGetVersion(v);
        int driver = v[0];
        cudart.cudaRuntimeGetVersion(v);
        int runtime = v[0];
        out.add(Finding.ok("NVIDIA driver", "supports CUDA " + version(driver) + (kernel != null ? ", kernel module " + kernel : "")));
        if (driver < runtime) {
            out.add(Finding.warn("CUDA runtime", version(runtime) + ", newer than the driver supports",
                    "update the NVIDIA driver (CUDA 13 needs driver 580 or newer)"));
        } else {
            out.add(Finding.ok("CUDA runtime", version(runtime)));
        }
        String problem = CudaRuntime.problem();
        int devices = CudaRuntime.deviceCount();
        if (devices == 0) {
            out.add(Finding.warn("GPU devices", "none usable: " + (problem != null ? problem : "no CUDA device found"),
                    "check nvidia-smi; in a container, start it with the GPU (docker run --gpus all)"));
        } else {
            for (int i = 0; i < devices; i++) out.add(Finding.ok("GPU device", GpuDevice.query(i).toString()));
        }
        try {
            Loader.load(cudnn.class);
            long c = cudnn.cudnnGetVersion();
            out.add(Finding.ok("cuDNN", c / 10000 + "." + (c % 10000) / 100 + "." + c % 100));
        } catch (Throwable e) {
            out.add(Finding.warn("cuDNN", "cannot be loaded: " + Doctor.describe(rootCause(e)),
                    "install cuDNN 9 for CUDA 13 (NVIDIA's libcudnn9-cuda-13 package) " + LIBRARY_PATH_HINT));
        }
        try {
            Loader.load(nvrtc.class);
            int[] major = new int[1], minor = new int[1];
            nvrtc.nvrtcVersion(major, minor);
            out.add(Finding.ok("NVRTC", major[0] + "." + minor[0]));
        } catch (Throwable e) {
            out.add(Finding.warn("NVRTC", "cannot be loaded: " + Doctor.describe(rootCause(e)),
                    "install NVRTC for CUDA 13 (NVIDIA's cuda-nvrtc-13-x package) " + LIBRARY_PATH_HINT));
        }
        String nvdec = loadError("libnvcuvid.so.1");
        out.add(nvdec == null ? Finding.ok("NVDEC", "libnvcuvid.so.1 loads (hardware video decoding)")
                : Finding.info("NVDEC", "libnvcuvid.so.1 not found: video is decoded on the CPU (it comes with the "
                        + "NVIDIA driver's libnvidia-decode package)"));
        return out;
    }

    /** Null when {@code soname} can be opened (dlopen through JavaCPP, searching the usual paths), else why not. */
    static String loadError(String soname) {
        try {
            Loader.loadGlobal(soname);
            return null;
        } catch (Throwable e) {
            return Doctor.describe(e);
        }
    }

    /** The kernel module's version, e.g. "580.82.07" (null when not readable). */
    private static String kernelModule() {
        try {
            String s = Files.readString(Path.of("/proc/driver/nvidia/version"));
            var m = java.util.regex.Pattern.compile("Kernel Module\\s+(?:for \\S+\\s+)?([0-9.]+)").matcher(s);
            return m.find() ? m.group(1) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String version(int v) {
        return v / 1000 + "." + (v % 1000) / 10;
    }

    static Throwable rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root;
    }
}
