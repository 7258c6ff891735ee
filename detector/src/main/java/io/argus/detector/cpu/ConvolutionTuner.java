package io.argus.detector.cpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.ToDoubleFunction;

/**
 * Picks each convolution's implementation by timing, not by guessing. oneDNN offers several for one problem (brgemm,
 * JIT direct, im2col + GEMM, Winograd where the shape allows; which ones depends on the ISA) and ranks them by
 * heuristics that are tuned for Intel cores; on a CPU that runs AVX-512 as two 256-bit halves (Zen 4) the ranking
 * can be wrong. Our own Winograd convolution ({@link WinogradConvolution}) is one more candidate for FP32 3x3
 * stride-1 layers. So every candidate runs on the real shapes at the layer's first use and the fastest is kept.
 *
 * <p>Choices are kept per CPU (model name, family/model, the ISA oneDNN uses, oneDNN version, thread count) and per
 * layer shape: in a properties file per CPU under {@link CpuOptions#tuningDir()} when there is one, else for this
 * process. A choice names the implementation; when oneDNN no longer offers it, the layer is timed again.
 */
final class ConvolutionTuner {
    /**
     * One way to run a convolution: the algorithm asked for and the implementation oneDNN names, or our own Winograd
     * ({@link #winograd}: "winograd|argus-f2x2").
     */
    record Candidate(int algorithm, String name) {
        private static final String OURS = "argus-";

        String key() { return Dnnl.algorithmName(algorithm) + "|" + name; }

        /** Our Winograd convolution with {@code tile} ({@link WinogradConvolution}). */
        static Candidate winograd(WinogradTile tile) {
            return new Candidate(org.bytedeco.dnnl.global.dnnl.dnnl_convolution_winograd, OURS + tile.label());
        }

        /** The tile when this is our Winograd convolution, else null (one of oneDNN's). */
        WinogradTile winogradTile() {
            for (WinogradTile t : WinogradTile.values()) if (name.equals(OURS + t.label())) return t;
            return null;
        }
    }

    /** What was chosen and what every candidate took (ms, the best of the timed runs; empty when read back). */
    record Choice(Candidate candidate, Map<String, Double> timesMs, boolean fromCache) {}

    /**
     * Timed again: candidates at most this many times the first pass's best. A single pass had kept {@code jit:avx2}
     * at 1.20 ms for a layer where {@code jit:avx512_core} takes 0.73 ms (a 64% slow moment); re-timing every
     * candidate made the test tiers' start-ups a minute slower.
     */
    static final double CONTENDER = 2.0;

    private static final Map<String, Properties> KNOWN = new HashMap<>();   // per file (or CPU key), for this process
    private final CpuOptions options;
    private final String cpuKey;

    ConvolutionTuner(CpuOptions options) {
        this.options = options;
        this.cpuKey = cpuKey(CpuInfo.current());
    }

    /** "amd-epyc-9r14-96-core-processor-f25-m17-avx512_core_bf16-onednn3.11.0-t2". */
    static String cpuKey(CpuInfo cpu) {
        String name = cpu.modelName() == null ? "unknown" : cpu.modelName();
        String slug = name.toLowerCase(Locale.ROOT).replaceAll("\\(r\\)|\\(tm\\)", "").replaceAll("[^a-z0-9]+", "-")
                .replaceAll("^-|-$", "");
        String threads = System.getenv("OMP_NUM_THREADS");
        return slug + "-f" + cpu.family() + "-m" + cpu.model() + "-" + OneDnnInfo.isa() + "-onednn" + OneDnnInfo.version()
                + "-t" + (threads != null ? threads : Runtime.getRuntime().availableProcessors());
    }

    /**
     * The candidate to use for the layer shape {@code shapeKey}: the one chosen before on this CPU if oneDNN still
     * offers it, else the fastest by {@code timeMs} (NaN: that candidate failed), remembered from now on.
     */
    Choice choose(String shapeKey, List<Candidate> candidates, ToDoubleFunction<Candidate> timeMs) {
        if (candidates.isEmpty()) throw new IllegalArgumentException("no convolution implementation for " + shapeKey);
        if (!options.tune() || candidates.size() == 1) return new Choice(candidates.get(0), Map.of(), false);
        synchronized (KNOWN) {
            String known = known().getProperty(shapeKey);
            if (known != null) {
                for (Candidate c : candidates) if (c.key().equals(known)) return new Choice(c, Map.of(), true);
            }
        }
        // a second pass in reverse order over the contenders (within CONTENDER of the first pass's best), each keeping
        // its best of both: a slow moment of a shared machine (seconds long at times) falls on one pass of a
        // candidate, not on all its runs; the far slower ones (reference code, our Winograd on small layers) once
        Map<String, Double> times = new java.util.LinkedHashMap<>();
        for (Candidate c : candidates) times.put(c.key(), timeMs.applyAsDouble(c));
        double firstBest = times.values().stream().filter(t -> !Double.isNaN(t)).mapToDouble(Double::doubleValue).min()
                .orElse(Double.NaN);
        for (Candidate c : candidates.reversed()) {
            double first = times.get(c.key());
            if (Double.isNaN(first) || !(first <= CONTENDER * firstBest)) continue;
            double again = timeMs.applyAsDouble(c);
            if (!Double.isNaN(again) && again < first) times.put(c.key(), again);
        }
        Candidate best = null;
        double bestMs = Double.POSITIVE_INFINITY;
        for (Candidate c : candidates) {
            double ms = times.get(c.key());
            if (!Double.isNaN(ms) && ms < bestMs) {
                bestMs = ms;
                best = c;
            }
        }
        if (best == null) best = candidates.get(0);
        synchronized (KNOWN) {
            known().setProperty(shapeKey, best.key());
            save();
        }
        return new Choice(best, times, false);
    }

    /** A decision about a whole network kept in the same cache ({@link WinogradInNetwork}); null when none. */
    String networkChoice(String key) {
        if (!options.tune()) return null;
        synchronized (KNOWN) {
            return known().getProperty(key);
        }
    }

    void rememberNetworkChoice(String key, String value) {
        synchronized (KNOWN) {
            known().setProperty(key, value);
            save();
        }
    }

    private Properties known() {
        // keyed by the file, not the CPU alone: two tuning folders in one process (tests) do not mix their choices
        Path f = file();
        return KNOWN.computeIfAbsent(f != null ? f.toAbsolutePath().toString() : cpuKey, k -> {
            Properties p = new Properties();
            if (f != null && Files.isRegularFile(f)) {
                try (InputStream in = Files.newInputStream(f)) {
                    p.load(in);
                } catch (IOException | IllegalArgumentException e) {
                    // an unreadable cache only costs a re-tune; say so once
                    System.err.println("argus: CPU tuning cache " + f + " unreadable (" + e.getMessage() + "): timing again");
                }
            }
            return p;
        });
    }

    /**
     * The file of this CPU's choices. Its name carries the timing method's version: choices a single pass made
     * (before the two-pass timing) could have been picked during a slow moment, so they are timed again once.
     */
    private Path file() {
        return options.tuningDir() == null ? null : options.tuningDir().resolve(cpuKey + "-timing2.properties");
    }

    /** Written to a temporary file and moved into place: a reader never sees half a file. */
    private void save() {
        Path f = file();
        if (f == null) return;
        try {
            Files.createDirectories(f.getParent());
            Path tmp = Files.createTempFile(f.getParent(), f.getFileName().toString(), ".tmp");
            try (OutputStream out = Files.newOutputStream(tmp)) {
                known().store(out, "convolution implementations chosen by timing on " + CpuInfo.current().describe()
                        + " (" + OneDnnInfo.describe() + "); delete to time again");
            }
            Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // the choice still holds for this process; the next one times again
            System.err.println("argus: cannot write the CPU tuning cache " + f + ": " + e.getMessage());
        }
    }
}
