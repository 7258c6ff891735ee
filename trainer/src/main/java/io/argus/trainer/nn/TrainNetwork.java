package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.precision.Fp16;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A network instantiated for training on the CPU, for mini-batches of up to {@code maxBatch} images: every buffer
 * allocated here, once. {@link #forward}, {@link #loss} and {@link #backward} run one pass; parameter gradients
 * accumulate in {@link ConvParameters} until the optimizer consumes them. With FP16 emulation the input, every
 * layer's output and every gradient a layer receives are rounded through half precision.
 */
public final class TrainNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final TrainContext ctx;
    private final NativeFloats input;
    private final List<TrainLayer> layers = new ArrayList<>();
    private final Map<Integer, ConvParameters> parameters = new LinkedHashMap<>();

    public TrainNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, TrainContext ctx) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.ctx = ctx;
        for (LayerSpec l : spec.layers()) {
            for (int from : l.inputs()) {
                if (from >= 0 && spec.layers().get(from) instanceof YoloSpec) {
                    throw new IllegalArgumentException("layer " + l.index() + " (" + l.kind() + ", line " + l.line()
                            + ") reads the output of [yolo] layer " + from + ": not trainable");
                }
            }
        }
        this.input = new NativeFloats((long) maxBatch * spec.inputShape().size());
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            parameters.put(c.index(), new ConvParameters(c, weights.conv(c.index())));
        }
        for (LayerSpec l : spec.layers()) layers.add(create(l));
    }

    /** Scratch the layers of a network need per worker: {columns, weights}. */
    public static long[] scratchFloats(NetworkSpec spec) {
        long columns = 1;
        long weights = 1;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            if (!ConvolutionalTrainLayer.isDirect(c)) columns = Math.max(columns, ConvolutionalTrainLayer.columnFloats(c));
            weights = Math.max(weights, c.weightCount());
        }
        return new long[] {columns, weights};
    }

    private NativeFloats out(int index) {
        return index < 0 ? input : layers.get(index).output();
    }

    private NativeFloats grad(int index) {
        return index < 0 ? null : layers.get(index).gradient();
    }

    private TrainLayer create(LayerSpec l) {
        int prev = l.index() - 1;
        return switch (l) {
            case ConvolutionalSpec c -> new ConvolutionalTrainLayer(c, parameters.get(c.index()), out(prev), grad(prev),
                    maxBatch, ctx);
            case MaxPoolSpec m -> new MaxPoolTrainLayer(m, out(prev), grad(prev), maxBatch, ctx);
            case RouteSpec r -> {
                NativeFloats[] ins = new NativeFloats[r.layers().length];
                NativeFloats[] grads = new NativeFloats[r.layers().length];
                for (int i = 0; i < ins.length; i++) {
                    ins[i] = out(r.layers()[i]);
                    grads[i] = grad(r.layers()[i]);
                }
                yield new RouteTrainLayer(r, ins, grads, maxBatch, ctx);
            }
            case ShortcutSpec s -> new ShortcutTrainLayer(s, out(prev), grad(prev), out(s.from()), grad(s.from()),
                    maxBatch, ctx);
            case UpsampleSpec u -> new UpsampleTrainLayer(u, out(prev), grad(prev), maxBatch, ctx);
            case YoloSpec y -> new YoloTrainLayer(y, out(prev), grad(prev), maxBatch, spec.net().width(),
                    spec.net().height(), ctx);
        };
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    public TrainContext context() { return ctx; }

    /** The batch input, NCHW planar RGB in [0,1]; image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return input.buffer(); }

    /** Output of layer {@code index} for the batch. */
    public FloatBuffer output(int index) { return layers.get(index).output().buffer(); }

    /** dLoss/dOutput of layer {@code index} after {@link #backward} (null for [yolo]). */
    public FloatBuffer gradient(int index) {
        NativeFloats g = layers.get(index).gradient();
        return g == null ? null : g.buffer();
    }

    /** Parameters of every convolutional layer, by layer index, in cfg order. */
    public Map<Integer, ConvParameters> parameters() { return parameters; }

    /** Batch mean and variance of the last forward of convolutional layer {@code index} (null without batch norm). */
    public float[][] batchStatistics(int index) {
        ConvolutionalTrainLayer c = (ConvolutionalTrainLayer) layers.get(index);
        return c.spec().batchNormalize() ? new float[][] {c.batchMean(), c.batchVariance()} : null;
    }

    public void forward(int n) {
        checkBatch(n);
        if (ctx.fp16()) roundAll(input, n * spec.inputShape().size());
        for (TrainLayer layer : layers) {
            layer.forward(n);
            if (ctx.fp16()) roundAll(layer.output(), n * layer.spec().output().size());
        }
    }

    /** The loss of the last forward against each image's truths; gradients (times lossScale) kept for backward. */
    public LossParts loss(int n, List<List<Truth>> truths, float lossScale) {
        checkBatch(n);
        if (truths.size() < n) throw new IllegalArgumentException(truths.size() + " truth lists for " + n + " images");
        LossParts sum = LossParts.ZERO;
        for (TrainLayer layer : layers) {
            if (layer instanceof YoloTrainLayer y) sum = sum.plus(y.computeLoss(n, truths, lossScale));
        }
        return sum;
    }

    /** Backward through every layer; parameter gradients accumulate. */
    public void backward(int n) {
        zeroGradients(n);
        backwardLayers(n);
    }

    /** Clears every layer's output gradient (not the parameter gradients). */
    void zeroGradients(int n) {
        checkBatch(n);
        for (TrainLayer layer : layers) {
            NativeFloats g = layer.gradient();
            if (g != null) zero(g, n * layer.spec().output().size());
        }
    }

    /** Runs every layer's backward in reverse order over the gradients as they stand. */
    void backwardLayers(int n) {
        for (int i = layers.size() - 1; i >= 0; i--) {
            TrainLayer layer = layers.get(i);
            if (ctx.fp16() && layer.gradient() != null) roundAll(layer.gradient(), n * layer.spec().output().size());
            layer.backward(n);
        }
    }

    TrainLayer layer(int index) { return layers.get(index); }

    /** The current masters and rolling statistics as Darknet weights. */
    public ModelWeights weights(long seen) {
        Map<Integer, io.argus.detector.darknet.ConvWeights> m = new LinkedHashMap<>();
        parameters.forEach((k, p) -> m.put(k, p.toConvWeights()));
        return new ModelWeights(0, 2, 5, seen, m);
    }

    private void checkBatch(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
    }

    private void zero(NativeFloats t, int count) {
        ctx.workers().forRange(count, (w, from, to) -> {
            FloatBuffer b = t.buffer();
            for (int i = from; i < to; i++) b.put(i, 0f);
        });
    }

    private void roundAll(NativeFloats t, int count) {
        ctx.workers().forRange(count, (w, from, to) -> Fp16.round(t.buffer(), from, to));
    }

    @Override
    public void close() {
        for (TrainLayer l : layers) l.close();
        for (ConvParameters p : parameters.values()) p.close();
        input.close();
    }
}
