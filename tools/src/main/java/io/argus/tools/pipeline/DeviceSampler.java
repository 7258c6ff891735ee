package io.argus.tools.pipeline;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the benchmark cannot see from inside the pipeline: the GPU's SM and NVDEC utilisation and its memory in use,
 * sampled by {@code nvidia-smi --query-gpu ... -lms} (NVML's own averages, the figures DeepStream reports too), and
 * this process's resident memory. Without nvidia-smi (no NVIDIA driver) only host memory is sampled.
 */
final class DeviceSampler implements AutoCloseable {
    /** One sample: percentages of the sampling period, MiB. NaN where not measured. */
    record Sample(long nanos, double gpuPercent, double decoderPercent, double gpuMemoryMiB, double rssMiB) {}

    private final Process smi;
    private final Thread reader;
    private final List<double[]> gpu = new ArrayList<>();   // {gpu %, decoder %, memory MiB}

    DeviceSampler(int device) {
        Process p = null;
        try {
            p = new ProcessBuilder("nvidia-smi", "-i", Integer.toString(device),
                    "--query-gpu=utilization.gpu,utilization.decoder,memory.used", "--format=csv,noheader,nounits",
                    "-lms", "500").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (java.io.IOException e) {
            p = null;   // no NVIDIA driver here
        }
        smi = p;
        reader = smi == null ? null : Thread.ofPlatform().daemon().name("nvidia-smi").start(this::read);
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(smi.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(",");
                if (f.length < 3) continue;
                try {
                    double[] v = {Double.parseDouble(f[0].strip()), Double.parseDouble(f[1].strip()),
                            Double.parseDouble(f[2].strip())};
                    synchronized (gpu) {
                        gpu.add(v);
                    }
                } catch (NumberFormatException e) {
                    // "[N/A]" on a GPU without the counter
                }
            }
        } catch (java.io.IOException e) {
            // the process was closed
        }
    }

    /** How many GPU samples have arrived so far (a window is the samples between two marks). */
    int mark() {
        synchronized (gpu) {
            return gpu.size();
        }
    }

    /** Mean GPU %, decoder % and last memory of the samples since {@code mark}; NaN without nvidia-smi. */
    double[] since(int mark) {
        synchronized (gpu) {
            int n = gpu.size() - mark;
            if (n <= 0) return new double[] {Double.NaN, Double.NaN, Double.NaN};
            double g = 0, d = 0;
            for (int i = mark; i < gpu.size(); i++) {
                g += gpu.get(i)[0];
                d += gpu.get(i)[1];
            }
            return new double[] {g / n, d / n, gpu.get(gpu.size() - 1)[2]};
        }
    }

    /** This process's resident set in MiB (Linux /proc), NaN elsewhere. */
    static double rssMiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Double.parseDouble(line.substring(6).strip().split("\\s+")[0]) / 1024.0;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return Double.NaN;
        }
        return Double.NaN;
    }

    static String percent(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", v);
    }

    @Override
    public void close() {
        if (smi != null) smi.destroy();
    }
}
