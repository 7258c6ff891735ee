package io.argus.trainer.nn;

import io.argus.detector.cpu.ConvolutionParameters;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cpu.CpuTrainingNetwork;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.loss.YoloLoss;
import io.argus.trainer.precision.Fp16;
import java.nio.FloatBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A network instantiated for training on the CPU, for mini-batches of up to {@code maxBatch} images: the layers are
 * the inference engine's, made for training ({@link CpuTrainingNetwork}: each layer kind one class, forward and
 * backward on oneDNN), the parameters and the YOLO loss are the trainer's. {@link #forward}, {@link #loss} and
 * {@link #backward} run one pass; parameter gradients accumulate in {@link ConvParameters} until the optimizer
 * consumes them. With FP16 emulation the input, every layer's output and every gradient a layer receives are rounded
 * through half precision, as are the weights the convolutions read and each pass's weight gradient.
 */
public final class TrainNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final TrainContext ctx;
    private final CpuTrainingNetwork net;
    private final Map<Integer, ConvParameters> parameters = new LinkedHashMap<>();
    private final Map<Integer, YoloLoss> losses = new LinkedHashMap<>();
    /** Whether this network made its parameters (and closes them), or shares another's ({@link #atInput}). */
    private final boolean ownsParameters;
    private int lastBatch;

    public TrainNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, TrainContext ctx) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.ctx = ctx;
        Map<Integer, ConvolutionParameters> views = new LinkedHashMap<>();
        try {
            for (ConvolutionalSpec c : spec.convolutionalLayers()) {
                ConvParameters p = new ConvParameters(c, weights.conv(c.index()));
                parameters.put(c.index(), p);
                views.put(c.index(), p.forNetwork());
            }
            for (YoloSpec y : spec.yoloLayers()) losses.put(y.index(), new YoloLoss(y, spec.net().width(), spec.net().height()));
            this.net = new CpuTrainingNetwork(spec, views, maxBatch, ctx.fp16(), CpuPrecision.FP32);
        } catch (RuntimeException e) {
            for (ConvParameters p : parameters.values()) p.close();
            throw e;
        }
        this.ownsParameters = true;
    }

    /** The same parameters in a network for another input size: layers and losses of its own, nothing copied. */
    private TrainNetwork(TrainNetwork base, NetworkSpec sized) {
        List<ConvolutionalSpec> convs = sized.convolutionalLayers();
        if (convs.size() != base.parameters.size() || sized.layers().size() != base.spec.layers().size()) {
            throw new IllegalArgumentException(sized.name() + " at " + sized.net().width() + "x" + sized.net().height()
                    + " is not the network of " + base.spec.name());
        }
        this.spec = sized;
        this.maxBatch = base.maxBatch;
        this.ctx = base.ctx;
        Map<Integer, ConvolutionParameters> views = new LinkedHashMap<>();
        for (ConvolutionalSpec c : convs) {
            ConvParameters p = base.parameters.get(c.index());
            if (p == null || p.spec().weightCount() != c.weightCount() || p.spec().filters() != c.filters()) {
                throw new IllegalArgumentException("layer " + c.index() + " of " + sized.name()
                        + " does not fit the parameters it would share");
            }
            parameters.put(c.index(), p);
            views.put(c.index(), p.forNetwork());
        }
        // the loss normalises boxes by the input size: each size has its own
        for (YoloSpec y : sized.yoloLayers()) losses.put(y.index(), new YoloLoss(y, sized.net().width(), sized.net().height()));
        this.net = new CpuTrainingNetwork(sized, views, maxBatch, ctx.fp16(), CpuPrecision.FP32);
        this.ownsParameters = false;
    }

    /**
     * A network for {@code sized} (this cfg at another input size, {@link NetworkSpec#withInput}) that trains this
     * network's parameters: the same weights, gradients and rolling statistics, so passes at any size accumulate into
     * one step. Close it before this one.
     */
    public TrainNetwork atInput(NetworkSpec sized) {
        return new TrainNetwork(this, sized);
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    public TrainContext context() { return ctx; }

    /** The batch input, NCHW planar RGB in [0,1]; image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return net.input(); }

    /** Output of layer {@code index} for the last forward's images, in Darknet's NCHW order (a copy). */
    public FloatBuffer output(int index) { return FloatBuffer.wrap(net.outputNchw(index, lastBatch)); }

    /** dLoss/dOutput of layer {@code index} after {@link #backward}, NCHW (a copy; null for [yolo]). */
    public FloatBuffer gradient(int index) {
        float[] g = net.gradientNchw(index, lastBatch);
        return g == null ? null : FloatBuffer.wrap(g);
    }

    /** Sets dLoss/dOutput of layer {@code index} (NCHW, the last forward's images): for tests that seed backward. */
    void setGradient(int index, float[] values) { net.setGradientNchw(index, lastBatch, values); }

    /** dLoss/dInput of [yolo] layer {@code index} after {@link #loss}, NCHW, times the loss scale. */
    FloatBuffer lossGradient(int index) { return net.lossGradient(index); }

    /** For tests: which taps won the windows of max-pool layer {@code index} in the last forward (a digest). */
    int maxPoolWinners(int index) { return net.maxPoolWinners(index, lastBatch); }

    /** Parameters of every convolutional layer, by layer index, in cfg order. */
    public Map<Integer, ConvParameters> parameters() { return parameters; }

    /** Batch mean and variance (n-1) of the last forward of convolutional layer {@code index} (null without BN). */
    public float[][] batchStatistics(int index) { return net.batchStatistics(index); }

    public void forward(int n) {
        checkBatch(n);
        if (ctx.fp16()) roundAll(net.input(), n * spec.inputShape().size());
        net.bringInput(n);
        for (LayerSpec l : spec.layers()) {
            net.forward(l.index(), n);
            if (ctx.fp16()) roundAll(net.outputValues(l.index()), n * l.output().size());
        }
        lastBatch = n;
    }

    /** The loss of the last forward against each image's truths; gradients (times lossScale) kept for backward. */
    public LossParts loss(int n, List<List<Truth>> truths, float lossScale) {
        checkBatch(n);
        if (truths.size() < n) throw new IllegalArgumentException(truths.size() + " truth lists for " + n + " images");
        LossParts sum = LossParts.ZERO;
        for (var e : losses.entrySet()) {
            int index = e.getKey();
            YoloLoss loss = e.getValue();
            int size = spec.layers().get(index).output().size();
            FloatBuffer head = net.head(index);
            FloatBuffer headInput = net.headInput(index);
            FloatBuffer gradient = net.lossGradient(index);
            LossParts[] parts = new LossParts[n];
            ctx.workers().forRange(n, (w, from, to) -> {
                for (int b = from; b < to; b++) {
                    parts[b] = loss.image(head, headInput, b * size, truths.get(b), gradient, lossScale);
                }
            });
            for (LossParts p : parts) sum = sum.plus(p);
        }
        return sum;
    }

    /** Backward through every layer; parameter gradients accumulate. */
    public void backward(int n) {
        zeroGradients(n);
        backwardLayers(n);
    }

    /** Clears the layers' output gradients that backward only adds to (not the parameter gradients). */
    void zeroGradients(int n) {
        checkBatch(n);
        net.clearGradients(n);
    }

    /** Runs every layer's backward in reverse order over the gradients as they stand. */
    void backwardLayers(int n) {
        checkBatch(n);
        for (int i = spec.layers().size() - 1; i >= 0; i--) {
            FloatBuffer g = net.gradientValues(i);
            if (ctx.fp16() && g != null) roundAll(g, n * spec.layers().get(i).output().size());
            net.backward(i, n);
        }
    }

    /** The current masters and rolling statistics as Darknet weights. */
    public ModelWeights weights(long seen) {
        Map<Integer, io.argus.detector.darknet.ConvWeights> m = new LinkedHashMap<>();
        parameters.forEach((k, p) -> m.put(k, p.toConvWeights()));
        return new ModelWeights(0, 2, 5, seen, m);
    }

    private void checkBatch(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
    }

    private void roundAll(FloatBuffer t, int count) {
        ctx.workers().forRange(count, (w, from, to) -> Fp16.round(t, from, to));
    }

    @Override
    public void close() {
        net.close();
        if (ownsParameters) for (ConvParameters p : parameters.values()) p.close();
    }
}
