package io.argus.trainer.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import io.argus.trainer.data.TrainingBatch;
import io.argus.trainer.optim.Ema;
import io.argus.trainer.optim.ParameterTensor;
import io.argus.trainer.optim.Sgd;
import io.argus.trainer.optim.SgdStep;
import java.nio.FloatBuffer;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The multi-tensor kernels against the CPU's optimizer: one launch of sgd_step over the whole parameter arena gives
 * the masters, momentum and EMA that {@link Sgd} and {@link Ema} compute from the same gradients, bit for bit, and
 * the same largest update; the FP16 working copy is the masters rounded; accumulate_check flags one Inf or NaN
 * anywhere in the arena, and a discard clears it.
 */
@Tag("gpu")
@Budget(seconds = 5)
class GpuOptimizerTest {
    @BeforeAll
    static void needsGpu() {
        GpuTests.assumeGpu();
    }

    static NetworkSpec spec() {
        return GpuTests.spec("optimizer", GpuLayerGradientTest.CONV);
    }

    @ParameterizedTest
    @EnumSource(Precision.class)
    void sgdAndEmaEqualTheCpuBitForBit(Precision precision) {
        NetworkSpec spec = spec();
        try (CudaTrainingBackend gpu = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 2), 2,
                GpuTests.options(precision))) {
            ParameterArena arena = gpu.arena();
            int w = (int) arena.weightValues();
            int total = (int) arena.total();
            float[] master = gpu.parameters().download(false)[0];
            float[] weights = java.util.Arrays.copyOfRange(master, 0, w);
            float[] rest = java.util.Arrays.copyOfRange(master, w, total);
            FloatBuffer gw = FloatBuffer.allocate(w);
            FloatBuffer gr = FloatBuffer.allocate(total - w);
            List<ParameterTensor> tensors = List.of(new ParameterTensor("weights", weights, gw, true),
                    new ParameterTensor("biases and scales", rest, gr, false));
            Ema ema = new Ema(tensors);
            float scale = 8f;
            for (int k = 0; k < 3; k++) {
                TrainingBatch batch = GpuTests.batch(spec, 2, 40 + k);
                gpu.forwardBackward(batch, scale);
                assertFalse(gpu.gradientsOverflowed());
                float[] g = gpu.parameters().gradients();
                gw.put(0, g, 0, w);
                gr.put(0, g, w, total - w);
                SgdStep step = new SgdStep(0.01f * (k + 1), 0.9f, 0.0005f, 2, k == 0 ? 0f : 0.99f);
                float cpuLargest = Sgd.step(tensors, step, scale);
                if (step.emaAlpha() > 0) ema.update(step.emaAlpha());
                float gpuLargest = gpu.step(step, scale);
                float[] after = gpu.parameters().download(false)[0];
                assertArrayEquals(weights, java.util.Arrays.copyOfRange(after, 0, w), "weights after step " + k);
                assertArrayEquals(rest, java.util.Arrays.copyOfRange(after, w, total), "biases/scales after step " + k);
                assertEquals(cpuLargest, gpuLargest, "largest update of step " + k);
                float[] v = gpu.parameters().velocities();
                assertArrayEquals(tensors.get(0).velocity(), java.util.Arrays.copyOfRange(v, 0, w));
                for (float x : gpu.parameters().gradients()) assertEquals(0f, x, "gradients cleared by the step");
                if (ema.started()) {
                    float[] shadow = gpu.parameters().download(true)[0];
                    assertArrayEquals(ema.shadow(0), java.util.Arrays.copyOfRange(shadow, 0, w), "EMA of step " + k);
                    assertArrayEquals(ema.shadow(1), java.util.Arrays.copyOfRange(shadow, w, total));
                }
                float[] working = gpu.parameters().workingCopy();
                for (int i = 0; i < w; i++) {
                    float expected = precision == Precision.MIXED
                            ? Float.float16ToFloat(Float.floatToFloat16(weights[i])) : weights[i];
                    if (working[i] != expected) throw new AssertionError("working copy " + i + ": " + working[i]);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Precision.class)
    void oneNonFiniteGradientAnywhereIsFlaggedAndDiscarded(Precision precision) {
        NetworkSpec spec = spec();
        try (CudaTrainingBackend gpu = new CudaTrainingBackend(spec, WeightsInit.darknet(spec, 2), 2,
                GpuTests.options(precision))) {
            int total = (int) gpu.arena().total();
            int w = (int) gpu.arena().weightValues();
            for (int at : new int[] {0, w / 2, w, total - 1}) {
                for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY}) {
                    gpu.forwardBackward(GpuTests.batch(spec, 2, 1), 1f);
                    assertFalse(gpu.gradientsOverflowed(), "clean pass");
                    float[] g = gpu.parameters().gradients();
                    g[at] = bad;
                    gpu.parameters().setGradients(g);
                    gpu.parameters().accumulateAndCheck();
                    assertTrue(gpu.gradientsOverflowed(), bad + " at " + at + " of " + total);
                    gpu.discardGradients();
                    assertFalse(gpu.gradientsOverflowed(), "cleared by the discard");
                    for (float x : gpu.parameters().gradients()) assertEquals(0f, x);
                }
            }
        }
    }
}
