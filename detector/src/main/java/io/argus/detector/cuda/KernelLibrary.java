package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.javacpp.BytePointer;

/**
 * Argus's own kernels (the kernels/*.cu sources, packaged as classpath resources) compiled by NVRTC for one device
 * and loaded as modules in its primary context. Functions are looked up by file and name.
 */
final class KernelLibrary {
    static final String RESOURCE_DIR = "kernels/";
    static final String HEADER = "common.cuh";
    /** Every kernel source file, one concern each. */
    static final List<String> FILES = List.of("preprocess.cu", "bias_activation.cu", "maxpool.cu", "upsample.cu",
            "route.cu", "shortcut.cu", "yolo.cu", "yolo_decode.cu", "nms.cu");

    private final GpuDevice device;
    private final Map<String, CUmod_st> modules = new HashMap<>();
    private final Map<String, CUfunc_st> functions = new HashMap<>();
    private final StringBuilder report = new StringBuilder();

    KernelLibrary(GpuDevice device) {
        this.device = device;
        device.makeCurrent();
        String header = resource(HEADER);
        for (String file : FILES) {
            long t0 = System.nanoTime();
            KernelCompiler.Image image = KernelCompiler.compile(file, resource(file), HEADER, header, device);
            CUmod_st module = new CUmod_st();
            Status.driver(cuModuleLoadData(module, new BytePointer(image.bytes())), "cuModuleLoadData " + file);
            modules.put(file, module);
            report.append(String.format(java.util.Locale.ROOT, "%s %s %s %.0f ms; ", file, image.target(),
                    image.fromCache() ? "cached" : "compiled", (System.nanoTime() - t0) / 1e6));
        }
    }

    /** One line saying how each file was obtained (for logs). */
    String report() { return report.toString(); }

    synchronized CUfunc_st function(String file, String name) {
        return functions.computeIfAbsent(file + ":" + name, k -> {
            CUmod_st module = modules.get(file);
            if (module == null) throw new IllegalArgumentException("no kernel file " + file);
            CUfunc_st f = new CUfunc_st();
            Status.driver(cuModuleGetFunction(f, module, name), "cuModuleGetFunction " + file + ":" + name);
            return f;
        });
    }

    GpuDevice device() { return device; }

    static String resource(String file) {
        String path = RESOURCE_DIR + file;
        try (InputStream in = KernelLibrary.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("kernel source " + path + " is not on the classpath (the detector "
                        + "jar must package kernels/*.cu under io/argus/detector/cuda/kernels)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + path, e);
        }
    }
}
