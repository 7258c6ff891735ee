package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_sgemm;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;

/**
 * [convolutional] on the CPU: im2col (skipped for 1x1 stride 1) + oneDNN's row-major SGEMM per image and group, batch norm folded into
 * the weights, then bias + activation in one pass over the output.
 */
final class ConvolutionalLayer implements CpuLayer {
    private static final byte NO_TRANSPOSE = 'N';
    private final ConvolutionalSpec spec;
    private final NativeFloats input;
    private final NativeFloats output;
    private final NativeFloats weights;
    private final float[] bias;
    private final NativeFloats workspace;
    private final FloatPointer a;
    private final FloatPointer b;
    private final FloatPointer c;
    private final FloatPointer col;
    private final boolean direct;   // 1x1, stride 1, no padding: the input already is the column matrix

    ConvolutionalLayer(ConvolutionalSpec spec, ConvWeights params, NativeFloats input, int maxBatch,
                       NativeFloats workspace) {
        this.spec = spec;
        this.input = input;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
        float[][] folded = params.folded();
        this.weights = new NativeFloats(folded[0].length);
        this.weights.copyFrom(folded[0]);
        this.bias = folded[1];
        this.direct = spec.size() == 1 && spec.strideX() == 1 && spec.strideY() == 1 && spec.pad() == 0;
        this.workspace = workspace;
        if (!direct && workspace.size() < workspaceFloats(spec)) {
            throw new IllegalArgumentException("workspace of " + workspace.size() + " floats, layer " + spec.index()
                    + " needs " + workspaceFloats(spec));
        }
        this.a = weights.view();
        this.b = input.view();
        this.c = output.view();
        this.col = direct ? null : workspace.view();
    }

    private long columnRows() { return (long) spec.groupChannels() * spec.size() * spec.size(); }

    /** im2col scratch this layer needs (0 when it multiplies the input directly). */
    static long workspaceFloats(ConvolutionalSpec spec) {
        boolean direct = spec.size() == 1 && spec.strideX() == 1 && spec.strideY() == 1 && spec.pad() == 0;
        return direct ? 0 : (long) spec.groupChannels() * spec.size() * spec.size() * spec.output().plane();
    }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public void forward(int n) {
        int groups = spec.groups();
        int m = spec.filters() / groups;
        int k = (int) columnRows();
        int outPlane = spec.output().plane();
        int inSize = spec.input().size();
        int outSize = spec.output().size();
        int inGroup = spec.groupChannels() * spec.input().plane();
        for (int i = 0; i < n; i++) {
            for (int g = 0; g < groups; g++) {
                long inOffset = (long) i * inSize + (long) g * inGroup;
                FloatPointer columns;
                if (direct) {
                    columns = b.position(inOffset);
                } else {
                    Im2col.forward(input.buffer(), (int) inOffset, spec.groupChannels(), spec.input().height(),
                            spec.input().width(), spec.size(), spec.strideY(), spec.strideX(), spec.pad(),
                            spec.output().height(), spec.output().width(), workspace.buffer());
                    columns = col.position(0);
                }
                Sgemm.check(dnnl_sgemm(NO_TRANSPOSE, NO_TRANSPOSE, m, outPlane, k, 1f,
                        a.position((long) g * m * k), k, columns, outPlane, 0f,
                        c.position((long) i * outSize + (long) g * m * outPlane), outPlane));
            }
            biasActivate(output.buffer(), i * outSize, spec.filters(), outPlane, bias, spec.activation());
        }
    }

    static void biasActivate(FloatBuffer out, int offset, int channels, int plane, float[] bias, Activation act) {
        for (int f = 0; f < channels; f++) {
            float bf = bias[f];
            int base = offset + f * plane;
            switch (act) {
                case LINEAR -> {
                    for (int i = 0; i < plane; i++) out.put(base + i, out.get(base + i) + bf);
                }
                case LEAKY -> {
                    for (int i = 0; i < plane; i++) {
                        float v = out.get(base + i) + bf;
                        out.put(base + i, v > 0 ? v : 0.1f * v);
                    }
                }
                default -> {
                    for (int i = 0; i < plane; i++) out.put(base + i, act.apply(out.get(base + i) + bf));
                }
            }
        }
    }

    @Override
    public void close() {
        output.close();
        weights.close();
    }
}
