package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.gpu.CudaRuntime;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.loss.Truth;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Shared by the GPU tests: skipping without CUDA, small networks, random batches, relative errors. */
final class GpuTests {
    private GpuTests() {}

    static void assumeGpu() {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
    }

    static NetworkSpec spec(String name, String cfg) {
        return NetworkSpec.parse(Path.of(name + ".cfg"), cfg, 0, 0);
    }

    /**
     * Options for comparisons: cuDNN's heuristic (fast set-up), strict FP32 when FP32, no disk plan cache; input
     * gradients written as the product's defaults write them.
     */
    static CudaTrainingOptions options(Precision p) {
        return options(p, CudaTrainingOptions.defaults(p).overwriteGradients());
    }

    /** The same, with a convolution that is its input's only consumer writing the input gradient when {@code overwrite}. */
    static CudaTrainingOptions options(Precision p, boolean overwrite) {
        return new CudaTrainingOptions(0, p, true, false, 64L << 20, overwrite, null);
    }

    /** Random images in [0,1] with 1..3 boxes each (sizes 0.1..0.5 of the input, classes 0..classes-1). */
    static TrainingBatch batch(NetworkSpec spec, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        float[] data = new float[n * spec.inputShape().size()];
        for (int i = 0; i < data.length; i++) data[i] = (float) rnd.nextDouble();
        List<List<Truth>> truths = new ArrayList<>();
        int classes = spec.classes();
        for (int i = 0; i < n; i++) {
            List<Truth> t = new ArrayList<>();
            int count = 1 + rnd.nextInt(3);
            for (int k = 0; k < count; k++) {
                t.add(new Truth((float) rnd.nextDouble(0.15, 0.85), (float) rnd.nextDouble(0.15, 0.85),
                        (float) rnd.nextDouble(0.1, 0.5), (float) rnd.nextDouble(0.1, 0.5), rnd.nextInt(classes)));
            }
            truths.add(t);
        }
        return new TrainingBatch(data, truths, n);
    }

    /** Image {@code b} of a CPU batch buffer of images {@code size} floats long. */
    static float[] image(FloatBuffer all, int b, int size) {
        float[] out = new float[size];
        all.get(b * size, out, 0, size);
        return out;
    }

    static float[] copy(FloatBuffer b, int count) {
        float[] out = new float[count];
        b.get(0, out, 0, count);
        return out;
    }

    /** ||a - b|| / ||b|| (||a - b|| when b is all zeros). */
    static double relL2(float[] a, float[] b) {
        if (a.length != b.length) throw new IllegalArgumentException(a.length + " vs " + b.length + " values");
        double d = 0, n = 0;
        for (int i = 0; i < a.length; i++) {
            double e = (double) a[i] - b[i];
            d += e * e;
            n += (double) b[i] * b[i];
        }
        if (Double.isNaN(d)) return Double.NaN;
        return n == 0 ? Math.sqrt(d) : Math.sqrt(d / n);
    }

    static double relative(double a, double b) {
        double scale = Math.max(Math.abs(b), 1e-12);
        return Math.abs(a - b) / scale;
    }
}
