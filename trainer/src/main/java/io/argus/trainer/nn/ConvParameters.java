package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.trainer.optim.OptimizerState;
import io.argus.trainer.optim.ParameterTensor;
import io.argus.trainer.precision.Fp16;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Parameters of one [convolutional] layer in training: FP32 master weights, biases and batch-norm scales (with their
 * gradients and momentum), the rolling batch-norm statistics, and the working copy of the weights that the
 * convolution reads (FP32, or rounded through FP16 to emulate mixed precision).
 */
public final class ConvParameters implements AutoCloseable {
    private final ConvolutionalSpec spec;
    private final ParameterTensor weights;
    private final ParameterTensor biases;
    private final ParameterTensor scales;          // null without batch_normalize
    private final float[] rollingMean;             // null without batch_normalize
    private final float[] rollingVariance;
    private final NativeFloats weightGradient;
    private final NativeFloats working;

    public ConvParameters(ConvolutionalSpec spec, ConvWeights initial) {
        if (initial.weights().length != spec.weightCount() || initial.biases().length != spec.filters()
                || initial.batchNormalized() != spec.batchNormalize()) {
            throw new IllegalArgumentException("layer " + spec.index() + ": parameters do not match the cfg");
        }
        this.spec = spec;
        this.weightGradient = new NativeFloats(spec.weightCount());
        int layer = spec.index();
        this.weights = new ParameterTensor(OptimizerState.tensorName(layer, "weights"), initial.weights().clone(),
                weightGradient.buffer(), true);
        int n = spec.filters();
        this.biases = new ParameterTensor(OptimizerState.tensorName(layer, "biases"), initial.biases().clone(),
                FloatBuffer.allocate(n), false);
        if (spec.batchNormalize()) {
            this.scales = new ParameterTensor(OptimizerState.tensorName(layer, "scales"), initial.scales().clone(),
                    FloatBuffer.allocate(n), false);
            this.rollingMean = initial.mean().clone();
            this.rollingVariance = initial.variance().clone();
        } else {
            this.scales = null;
            this.rollingMean = null;
            this.rollingVariance = null;
        }
        this.working = new NativeFloats(spec.weightCount());
        refreshWorkingCopy(false);
    }

    public ConvolutionalSpec spec() { return spec; }

    public ParameterTensor weights() { return weights; }

    public ParameterTensor biases() { return biases; }

    /** Batch-norm scales (gamma); null without batch_normalize. */
    public ParameterTensor scales() { return scales; }

    public float[] rollingMean() { return rollingMean; }

    public float[] rollingVariance() { return rollingVariance; }

    /** The weights the convolution multiplies with: refreshed from the masters after every update. */
    public NativeFloats working() { return working; }

    /** All trainable tensors of the layer. */
    public List<ParameterTensor> tensors() {
        List<ParameterTensor> all = new ArrayList<>(3);
        all.add(weights);
        all.add(biases);
        if (scales != null) all.add(scales);
        return all;
    }

    /** What the network's convolution reads and writes of these parameters (the same buffers, not copies). */
    public io.argus.detector.cpu.ConvolutionParameters forNetwork() {
        return new io.argus.detector.cpu.ConvolutionParameters(working, biases.master(),
                scales == null ? null : scales.master(), weightGradient, biases.gradient(),
                scales == null ? null : scales.gradient(), rollingMean, rollingVariance);
    }

    /** Copies the FP32 masters into the working copy, rounding through FP16 when emulating mixed precision. */
    public void refreshWorkingCopy(boolean fp16) {
        float[] w = weights.master();
        FloatBuffer out = working.buffer();
        if (fp16) {
            for (int i = 0; i < w.length; i++) out.put(i, Fp16.round(w[i]));
        } else {
            out.put(0, w, 0, w.length);
        }
    }

    /** The current masters and rolling statistics in Darknet's layout (copies). */
    public ConvWeights toConvWeights() {
        return new ConvWeights(biases.master().clone(), scales == null ? null : scales.master().clone(),
                rollingMean == null ? null : rollingMean.clone(),
                rollingVariance == null ? null : rollingVariance.clone(), weights.master().clone());
    }

    @Override
    public void close() {
        weightGradient.close();
        working.close();
    }
}
