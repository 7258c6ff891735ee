package io.argus.trainer.nn;

import static org.bytedeco.openblas.global.openblas.CblasNoTrans;
import static org.bytedeco.openblas.global.openblas.CblasRowMajor;
import static org.bytedeco.openblas.global.openblas.CblasTrans;
import static org.bytedeco.openblas.global.openblas.cblas_sgemm;

import io.argus.detector.cpu.Im2col;
import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.trainer.precision.Fp16;
import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;

/**
 * [convolutional] in training mode: per image and group im2col + SGEMM (skipped for 1x1 stride 1), then batch norm
 * with the statistics of the batch (Darknet's: variance with n-1, rolling mean and variance moved 1% towards the
 * batch's), scale and bias, activation. Backward is the exact gradient of that forward: activation, batch norm (through
 * the batch statistics), then dW += dY colᵀ and dX = col2im(Wᵀ dY), both by SGEMM. Images run in parallel, each
 * worker with its own columns and its own share of the weight gradient, summed in a fixed order afterwards.
 */
final class ConvolutionalTrainLayer implements TrainLayer {
    private final ConvolutionalSpec spec;
    private final ConvParameters params;
    private final TrainContext ctx;
    private final NativeFloats input;
    private final NativeFloats inputGradient;   // null when the input needs no gradient (the network input)
    private final NativeFloats output;
    private final NativeFloats gradient;
    private final NativeFloats normalized;      // x-hat of batch norm; null without it
    private final NativeFloats preActivation;   // kept for mish/swish only; null otherwise
    private final float[] batchMean;
    private final float[] batchVariance;
    private final boolean direct;               // 1x1, stride 1, no padding: the input is the column matrix

    ConvolutionalTrainLayer(ConvolutionalSpec spec, ConvParameters params, NativeFloats input,
                            NativeFloats inputGradient, int maxBatch, TrainContext ctx) {
        this.spec = spec;
        this.params = params;
        this.ctx = ctx;
        this.input = input;
        this.inputGradient = inputGradient;
        long outFloats = (long) maxBatch * spec.output().size();
        this.output = new NativeFloats(outFloats);
        this.gradient = new NativeFloats(outFloats);
        this.normalized = spec.batchNormalize() ? new NativeFloats(outFloats) : null;
        this.preActivation = Activations.needsPreActivation(spec.activation()) ? new NativeFloats(outFloats) : null;
        this.batchMean = new float[spec.filters()];
        this.batchVariance = new float[spec.filters()];
        this.direct = isDirect(spec);
    }

    static boolean isDirect(ConvolutionalSpec spec) {
        return spec.size() == 1 && spec.strideX() == 1 && spec.strideY() == 1 && spec.pad() == 0;
    }

    /** im2col scratch one worker needs for this layer. */
    static long columnFloats(ConvolutionalSpec spec) {
        return (long) spec.groupChannels() * spec.size() * spec.size() * spec.output().plane();
    }

    @Override
    public ConvolutionalSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return gradient; }

    ConvParameters parameters() { return params; }

    /** Mean of each channel over the last forward's batch. */
    float[] batchMean() { return batchMean; }

    /** Variance (n-1) of each channel over the last forward's batch. */
    float[] batchVariance() { return batchVariance; }

    private NativeFloats beforeActivation() {
        return preActivation != null ? preActivation : output;
    }

    @Override
    public void forward(int n) {
        NativeFloats convolved = normalized != null ? normalized : beforeActivation();
        ctx.workers().forRange(n, (w, from, to) -> {
            for (int i = from; i < to; i++) convolveImage(i, convolved, w);
        });
        ctx.workers().forRange(spec.filters(), (w, from, to) -> {
            for (int f = from; f < to; f++) normalizeActivateChannel(f, n);
        });
    }

    private void convolveImage(int image, NativeFloats convolved, int worker) {
        int groups = spec.groups();
        int m = spec.filters() / groups;
        int k = spec.groupChannels() * spec.size() * spec.size();
        int plane = spec.output().plane();
        int inGroup = spec.groupChannels() * spec.input().plane();
        FloatPointer a = params.working().view();
        FloatPointer c = convolved.view();
        for (int g = 0; g < groups; g++) {
            long inOffset = (long) image * spec.input().size() + (long) g * inGroup;
            FloatPointer columns = columnsOf(inOffset, worker);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, plane, k, 1f, a.position((long) g * m * k), k,
                    columns, plane, 0f, c.position((long) image * spec.output().size() + (long) g * m * plane), plane);
        }
    }

    /** The column matrix of one image and group: the input itself when direct, else im2col into the worker's scratch. */
    private FloatPointer columnsOf(long inOffset, int worker) {
        if (direct) return input.view().position(inOffset);
        NativeFloats col = ctx.columns(worker);
        Im2col.forward(input.buffer(), (int) inOffset, spec.groupChannels(), spec.input().height(),
                spec.input().width(), spec.size(), spec.strideY(), spec.strideX(), spec.pad(), spec.output().height(),
                spec.output().width(), col.buffer());
        return col.view();
    }

    private void normalizeActivateChannel(int f, int n) {
        int plane = spec.output().plane();
        int outSize = spec.output().size();
        FloatBuffer z = beforeActivation().buffer();
        float bias = params.biases().master()[f];
        if (normalized != null) {
            FloatBuffer x = normalized.buffer();
            double sum = 0;
            for (int i = 0; i < n; i++) {
                int base = i * outSize + f * plane;
                for (int p = 0; p < plane; p++) sum += x.get(base + p);
            }
            int count = n * plane;
            float mean = (float) (sum / count);
            double squares = 0;
            for (int i = 0; i < n; i++) {
                int base = i * outSize + f * plane;
                for (int p = 0; p < plane; p++) {
                    float d = x.get(base + p) - mean;
                    squares += d * d;
                }
            }
            float variance = (float) (squares / Math.max(1, count - 1));
            batchMean[f] = mean;
            batchVariance[f] = variance;
            float[] rm = params.rollingMean();
            float[] rv = params.rollingVariance();
            rm[f] = 0.99f * rm[f] + 0.01f * mean;
            rv[f] = 0.99f * rv[f] + 0.01f * variance;
            float inv = (float) (1.0 / Math.sqrt(variance + ConvWeights.BN_EPSILON));
            float scale = params.scales().master()[f];
            for (int i = 0; i < n; i++) {
                int base = i * outSize + f * plane;
                for (int p = base; p < base + plane; p++) {
                    float xhat = (x.get(p) - mean) * inv;
                    x.put(p, xhat);
                    z.put(p, xhat * scale + bias);
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                int base = i * outSize + f * plane;
                for (int p = base; p < base + plane; p++) z.put(p, z.get(p) + bias);
            }
        }
        Activation act = spec.activation();
        for (int i = 0; i < n; i++) {
            int base = i * outSize + f * plane;
            Activations.forward(act, z, output.buffer(), base, base + plane);
        }
    }

    @Override
    public void backward(int n) {
        ctx.workers().forRange(spec.filters(), (w, from, to) -> {
            for (int f = from; f < to; f++) backwardChannel(f, n);
        });
        int parts = Math.min(ctx.workers().threads(), n);
        ctx.workers().forRange(n, (w, from, to) -> {
            FloatBuffer partial = ctx.partialWeightGradient(w).buffer();
            for (int i = 0; i < spec.weightCount(); i++) partial.put(i, 0f);
            for (int i = from; i < to; i++) backwardImage(i, w);
        });
        FloatBuffer dw = params.weights().gradient();
        boolean fp16 = ctx.fp16();
        ctx.workers().forRange(spec.weightCount(), (w, from, to) -> {
            for (int i = from; i < to; i++) {
                float sum = 0;
                for (int p = 0; p < parts; p++) sum += ctx.partialWeightGradient(p).buffer().get(i);
                dw.put(i, dw.get(i) + (fp16 ? Fp16.round(sum) : sum));
            }
        });
    }

    /** Activation and batch norm backward for one channel, in place: dL/dy becomes dL/d(convolution output). */
    private void backwardChannel(int f, int n) {
        int plane = spec.output().plane();
        int outSize = spec.output().size();
        FloatBuffer g = gradient.buffer();
        FloatBuffer source = (preActivation != null ? preActivation : output).buffer();
        Activation act = spec.activation();
        double sumDz = 0;
        for (int i = 0; i < n; i++) {
            int base = i * outSize + f * plane;
            Activations.backward(act, source, g, base, base + plane);
            for (int p = base; p < base + plane; p++) sumDz += g.get(p);
        }
        FloatBuffer biasGradient = params.biases().gradient();
        biasGradient.put(f, biasGradient.get(f) + (float) sumDz);
        if (normalized == null) return;
        FloatBuffer xhat = normalized.buffer();
        double sumDzXhat = 0;
        for (int i = 0; i < n; i++) {
            int base = i * outSize + f * plane;
            for (int p = base; p < base + plane; p++) sumDzXhat += g.get(p) * xhat.get(p);
        }
        FloatBuffer scaleGradient = params.scales().gradient();
        scaleGradient.put(f, scaleGradient.get(f) + (float) sumDzXhat);
        // x-hat = (x - mean) / sigma with the batch's mean and (n-1) variance:
        // dL/dx = (1/sigma) (dxhat - sum(dxhat)/M - xhat sum(dxhat xhat)/(M-1)), dxhat = scale dz.
        int count = n * plane;
        float scale = params.scales().master()[f];
        float inv = (float) (1.0 / Math.sqrt(batchVariance[f] + ConvWeights.BN_EPSILON));
        float meanTerm = (float) (scale * sumDz / count);
        float varianceTerm = (float) (scale * sumDzXhat / Math.max(1, count - 1));
        for (int i = 0; i < n; i++) {
            int base = i * outSize + f * plane;
            for (int p = base; p < base + plane; p++) {
                g.put(p, inv * (scale * g.get(p) - meanTerm - xhat.get(p) * varianceTerm));
            }
        }
    }

    /** dW (into the worker's partial sum) and dX (into the input gradient) of one image. */
    private void backwardImage(int image, int worker) {
        int groups = spec.groups();
        int m = spec.filters() / groups;
        int k = spec.groupChannels() * spec.size() * spec.size();
        int plane = spec.output().plane();
        int inGroup = spec.groupChannels() * spec.input().plane();
        FloatPointer a = params.working().view();
        FloatPointer dy = gradient.view();
        FloatPointer dw = ctx.partialWeightGradient(worker).view();
        for (int g = 0; g < groups; g++) {
            long inOffset = (long) image * spec.input().size() + (long) g * inGroup;
            long dyOffset = (long) image * spec.output().size() + (long) g * m * plane;
            FloatPointer columns = columnsOf(inOffset, worker);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, k, plane, 1f, dy.position(dyOffset), plane,
                    columns, plane, 1f, dw.position((long) g * m * k), k);
            if (inputGradient == null) continue;
            if (direct) {
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, plane, m, 1f, a.position((long) g * m * k), k,
                        dy.position(dyOffset), plane, 1f, inputGradient.view().position(inOffset), plane);
            } else {
                NativeFloats col = ctx.columns(worker);
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, plane, m, 1f, a.position((long) g * m * k), k,
                        dy.position(dyOffset), plane, 0f, col.view(), plane);
                Col2im.addInto(col.buffer(), spec.groupChannels(), spec.input().height(), spec.input().width(),
                        spec.size(), spec.strideY(), spec.strideX(), spec.pad(), spec.output().height(),
                        spec.output().width(), inputGradient.buffer(), (int) inOffset);
            }
        }
    }

    @Override
    public void close() {
        output.close();
        gradient.close();
        if (normalized != null) normalized.close();
        if (preActivation != null) preActivation.close();
    }
}
