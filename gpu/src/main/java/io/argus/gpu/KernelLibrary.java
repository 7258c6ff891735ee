package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cuModuleGetFunction;
import static org.bytedeco.cuda.global.cudart.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.javacpp.BytePointer;

/**
 * Argus's own kernels (the kernels/*.cu sources, packaged as classpath resources under io/argus/gpu/kernels)
 * compiled by NVRTC for one device, each file on first use (cached on disk by {@link KernelCompiler}), and loaded as
 * modules in the device's primary context. Our headers other than common.cuh are inlined into each source before
 * compiling, so NVRTC only needs common.cuh. Functions are looked up by file and name.
 */
public final class KernelLibrary {
    static final String RESOURCE_DIR = "kernels/";
    static final String HEADER = "common.cuh";
    /** One of our headers, by name; a kernel in a subfolder (kernels/bench) names it relative to itself. */
    private static final Pattern INCLUDE = Pattern.compile("(?m)^#include \"(?:\\.\\./)?([a-z_]+\\.cuh)\"[^\\n]*$");

    private final GpuDevice device;
    private final Map<String, CUmod_st> modules = new HashMap<>();
    private final Map<String, CUfunc_st> functions = new HashMap<>();
    private final StringBuilder report = new StringBuilder();

    KernelLibrary(GpuDevice device) {
        this.device = device;
    }

    /** One line saying how each file loaded so far was obtained (for logs). */
    public synchronized String report() { return report.toString(); }

    public synchronized CUfunc_st function(String file, String name) {
        String key = file + ":" + name;
        CUfunc_st f = functions.get(key);
        if (f == null) {
            f = new CUfunc_st();
            Status.driver(cuModuleGetFunction(f, module(file), name), "cuModuleGetFunction " + key);
            functions.put(key, f);
        }
        return f;
    }

    /** Compiles (or takes from the disk cache) and loads every given file now, e.g. before a network serves. */
    public synchronized void load(String... files) {
        for (String file : files) module(file);
    }

    private CUmod_st module(String file) {
        CUmod_st module = modules.get(file);
        if (module != null) return module;
        device.makeCurrent();
        long t0 = System.nanoTime();
        KernelCompiler.Image image = KernelCompiler.compile(file, source(file), HEADER, resource(HEADER), device);
        module = new CUmod_st();
        Status.driver(cuModuleLoadData(module, new BytePointer(image.bytes())), "cuModuleLoadData " + file);
        modules.put(file, module);
        report.append(String.format(Locale.ROOT, "%s %s %s %.0f ms; ", file, image.target(),
                image.fromCache() ? "cached" : "compiled", (System.nanoTime() - t0) / 1e6));
        return module;
    }

    public GpuDevice device() { return device; }

    /** A source with our own headers inlined (each once), common.cuh left to NVRTC. */
    public static String source(String file) {
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

    public static String resource(String file) {
        String path = RESOURCE_DIR + file;
        try (InputStream in = KernelLibrary.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("kernel source io/argus/gpu/" + path + " is not on the classpath (the "
                        + "argus-gpu jar must package kernels/*.cu and *.cuh under io/argus/gpu/kernels)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + path, e);
        }
    }
}
