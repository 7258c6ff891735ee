package io.argus.gpu;

import static org.bytedeco.cuda.global.nvrtc.nvrtcCompileProgram;
import static org.bytedeco.cuda.global.nvrtc.nvrtcCreateProgram;
import static org.bytedeco.cuda.global.nvrtc.nvrtcDestroyProgram;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetCUBIN;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetCUBINSize;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetNumSupportedArchs;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetPTX;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetPTXSize;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetProgramLog;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetProgramLogSize;
import static org.bytedeco.cuda.global.nvrtc.nvrtcGetSupportedArchs;
import static org.bytedeco.cuda.global.nvrtc.nvrtcVersion;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.bytedeco.cuda.nvrtc._nvrtcProgram;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * Compiles one kernel source with NVRTC for a device's architecture: a CUBIN when NVRTC knows the architecture,
 * else PTX for the newest one it knows (the driver finishes it). Results are cached on disk by a hash of the
 * sources, options and NVRTC version ({@code argus.kernel.cache}, else the app's {@code <cacheDir>/kernels}, else
 * {@link CacheHome}: {@code ~/.cache/argus/kernels} by default).
 */
public final class KernelCompiler {
    /** A compiled module image: CUBIN or PTX (NUL-terminated). */
    public record Image(byte[] bytes, String target, boolean fromCache) {}

    private KernelCompiler() {}

    public static Image compile(String fileName, String source, String headerName, String header, GpuDevice device) {
        String target = target(device.computeCapability());
        boolean cubin = target.startsWith("sm_");
        String[] options = {"--gpu-architecture=" + target, "-std=c++17", "-lineinfo"};
        int[] major = new int[1];
        int[] minor = new int[1];
        nvrtcVersion(major, minor);
        String key = hash(fileName, source, headerName, header, String.join(" ", options),
                major[0] + "." + minor[0]);
        Path cached = cacheDir().resolve(fileName.replace(".cu", "") + "-" + key + (cubin ? ".cubin" : ".ptx"));
        try {
            if (Files.isRegularFile(cached)) return new Image(Files.readAllBytes(cached), target, true);
        } catch (IOException e) {
            // unreadable cache entry: compile again
        }
        byte[] image = nvrtc(fileName, source, headerName, header, options, cubin);
        try {
            Files.createDirectories(cached.getParent());
            Path tmp = Files.createTempFile(cached.getParent(), "kernel", ".tmp");
            Files.write(tmp, image);
            Files.move(tmp, cached, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UnsupportedOperationException e) {
            // no writable cache: fine, compile next time
        }
        return new Image(image, target, false);
    }

    /** sm_XY when NVRTC supports the device's architecture, else compute_ of the newest one below it. */
    public static String target(int cc) {
        int[] count = new int[1];
        Status.nvrtc(nvrtcGetNumSupportedArchs(count), "nvrtcGetNumSupportedArchs");
        int[] archs = new int[count[0]];
        Status.nvrtc(nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs");
        int best = -1;
        for (int a : archs) {
            if (a == cc) return "sm_" + cc;
            if (a < cc && a > best) best = a;
        }
        if (best < 0) throw new CudaException("NVRTC supports no architecture at or below sm_" + cc);
        return "compute_" + best;
    }

    private static byte[] nvrtc(String fileName, String source, String headerName, String header, String[] options,
                                boolean cubin) {
        _nvrtcProgram program = new _nvrtcProgram();
        PointerPointer<BytePointer> headers = new PointerPointer<>(1);
        headers.put(0, new BytePointer(header, StandardCharsets.UTF_8));
        PointerPointer<BytePointer> names = new PointerPointer<>(1);
        names.put(0, new BytePointer(headerName, StandardCharsets.UTF_8));
        Status.nvrtc(nvrtcCreateProgram(program, new BytePointer(source, StandardCharsets.UTF_8),
                new BytePointer(fileName, StandardCharsets.UTF_8), 1, headers, names), "nvrtcCreateProgram " + fileName);
        try {
            PointerPointer<BytePointer> opts = new PointerPointer<>(options.length);
            for (int i = 0; i < options.length; i++) opts.put(i, new BytePointer(options[i], StandardCharsets.UTF_8));
            int status = nvrtcCompileProgram(program, options.length, opts);
            if (status != 0) {
                throw new CudaException("NVRTC could not compile kernels/" + fileName + " (" + String.join(" ", options)
                        + "):\n" + log(program));
            }
            SizeTPointer size = new SizeTPointer(1);
            if (cubin) {
                Status.nvrtc(nvrtcGetCUBINSize(program, size), "nvrtcGetCUBINSize");
                byte[] out = new byte[(int) size.get()];
                Status.nvrtc(nvrtcGetCUBIN(program, out), "nvrtcGetCUBIN");
                return out;
            }
            Status.nvrtc(nvrtcGetPTXSize(program, size), "nvrtcGetPTXSize");
            byte[] out = new byte[(int) size.get()];   // includes the terminating NUL
            Status.nvrtc(nvrtcGetPTX(program, out), "nvrtcGetPTX");
            return out;
        } finally {
            nvrtcDestroyProgram(program);
        }
    }

    private static String log(_nvrtcProgram program) {
        SizeTPointer size = new SizeTPointer(1);
        if (nvrtcGetProgramLogSize(program, size) != 0 || size.get() <= 1) return "(no log)";
        byte[] text = new byte[(int) size.get()];
        nvrtcGetProgramLog(program, text);
        return new String(text, 0, text.length - 1, StandardCharsets.UTF_8);
    }

    /** Set by the app from its cacheDir; null: {@link CacheHome}'s kernels. */
    private static volatile Path defaultCacheDir;

    /**
     * Where compiled kernels go when neither {@code argus.kernel.cache} nor {@code ARGUS_KERNEL_CACHE} says: the app
     * keeps them under its cacheDir, as every cache. Kernels are named by a hash of what made them, so two apps of
     * one process (tests) may share a directory.
     */
    public static void useDefaultCacheDir(Path dir) { defaultCacheDir = dir; }

    private static Path cacheDir() {
        String dir = System.getProperty("argus.kernel.cache", System.getenv("ARGUS_KERNEL_CACHE"));
        if (dir != null && !dir.isBlank()) return Path.of(dir);
        Path configured = defaultCacheDir;
        return configured != null ? configured : CacheHome.current().resolve("kernels");
    }

    private static String hash(String... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String p : parts) {
                md.update(p.getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
            }
            return HexFormat.of().formatHex(md.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
