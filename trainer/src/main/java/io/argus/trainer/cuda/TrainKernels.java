package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;

import io.argus.detector.cuda.GpuDevice;
import io.argus.detector.cuda.KernelCompiler;
import io.argus.detector.cuda.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.javacpp.BytePointer;

/**
 * The training kernels (kernels/train_*.cu, packaged under io/argus/trainer/cuda/kernels) compiled by NVRTC for one
 * device through the detector's {@link KernelCompiler} (cached on disk by source hash). Our own headers
 * (train_*.cuh) are inlined into each source before compiling, so NVRTC only needs the detector's common.cuh.
 * Functions are looked up by file and name, templated ones by the storage type's suffix.
 */
final class TrainKernels {
    static final String RESOURCE_DIR = "/io/argus/trainer/cuda/kernels/";
    static final String HEADER = "common.cuh";
    static final List<String> FILES = List.of("train_input.cu", "train_batchnorm.cu", "train_bias_activation.cu",
            "train_maxpool.cu", "train_upsample.cu", "train_route.cu", "train_shortcut.cu", "train_yolo_loss.cu",
            "train_standin_loss.cu", "train_optimizer.cu");
    private static final Pattern INCLUDE = Pattern.compile("(?m)^#include \"([a-z_]+\\.cuh)\"\\s*$");
    private static final Map<Integer, TrainKernels> LOADED = new HashMap<>();

    private final Map<String, CUmod_st> modules = new HashMap<>();
    private final Map<String, CUfunc_st> functions = new HashMap<>();
    private final GpuDevice device;

    private TrainKernels(GpuDevice device) {
        this.device = device;
        device.makeCurrent();
        String header = resource(HEADER);
        for (String file : FILES) {
            KernelCompiler.Image image = KernelCompiler.compile(file, source(file), HEADER, header, device);
            CUmod_st module = new CUmod_st();
            Status.driver(cuModuleLoadData(module, new BytePointer(image.bytes())), "cuModuleLoadData " + file);
            modules.put(file, module);
        }
    }

    /** The kernels of a device, compiled on first use (modules live as long as the process). */
    static synchronized TrainKernels of(GpuDevice device) {
        return LOADED.computeIfAbsent(device.index(), i -> new TrainKernels(device));
    }

    GpuDevice device() { return device; }

    synchronized CUfunc_st function(String file, String name) {
        return functions.computeIfAbsent(file + ":" + name, k -> {
            CUmod_st module = modules.get(file);
            if (module == null) throw new IllegalArgumentException("no training kernel file " + file);
            CUfunc_st f = new CUfunc_st();
            Status.driver(cuModuleGetFunction(f, module, name), "cuModuleGetFunction " + file + ":" + name);
            return f;
        });
    }

    /** A source with our train_*.cuh headers inlined (each once), common.cuh left to NVRTC. */
    static String source(String file) {
        return inline(resource(file), new HashSet<>());
    }

    private static String inline(String text, Set<String> done) {
        Matcher m = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String replacement;
            if (name.equals(HEADER)) {
                replacement = m.group();
            } else if (done.add(name)) {
                replacement = "// ---- " + name + "\n" + inline(resource(name), done).replace("#pragma once", "");
            } else {
                replacement = "";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    static String resource(String file) {
        String path = RESOURCE_DIR + file;
        try (InputStream in = TrainKernels.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("kernel source " + path + " is not on the classpath (the trainer jar "
                        + "must package kernels/train_*.cu and common.cuh under io/argus/trainer/cuda/kernels)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + path, e);
        }
    }
}
