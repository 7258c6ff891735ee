package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_nchw;
import static org.bytedeco.dnnl.global.dnnl.dnnl_stream_wait;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A network instantiated on the CPU for training, for batches of up to {@code maxBatch} images: the inference
 * engine's layer classes ({@link CpuLayer}) made for training, each kind one class with its forward and backward on
 * oneDNN primitives, every buffer allocated here once (primitives per batch size on first use). The trainer drives it
 * layer by layer ({@link #forward(int, int)}, {@link #backward(int, int)}), so that it can round between layers
 * (emulated mixed precision) and run the YOLO loss between the two passes on the heads ({@link #head},
 * {@link #headInput}, {@link #lossGradient}).
 *
 * <p>Activations and gradients are FP32 channels last between layers, as inference's; the input is FP32 NCHW as
 * Darknet's (one reorder brings it in) and the heads are NCHW. The parameters are the trainer's
 * ({@link ConvolutionParameters}); the parameter gradients accumulate there over passes until the optimizer consumes
 * them. BF16 training is not implemented: this class refuses any precision but FP32.
 */
public final class CpuTrainingNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final NativeFloats input;                 // NCHW FP32, what callers fill
    private final LayerOutput inputActivations;       // the same, channels last
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Scratchpad scratch = new Scratchpad();
    private final LayerContext context;
    private final List<LayerOutput> outputs = new ArrayList<>();
    private final List<LayerOutput> gradients = new ArrayList<>();
    private final boolean[] clearedBeforeBackward;   // gradients only added to (or never written) in backward
    private final NativeFloats gradientScratch;
    private final List<CpuLayer> layers = new ArrayList<>();
    private final Dnnl.Primitive[] inputReorders;

    /**
     * {@code parameters}: per convolutional layer index; {@code halfGradients}: round each pass's weight gradient
     * through FP16 before adding it (emulated mixed precision); {@code precision} must be FP32 (BF16 is refused with
     * the reason: on a CPU without BF16 instructions, which ones it lacks; elsewhere, that it is not implemented).
     */
    public CpuTrainingNetwork(NetworkSpec spec, Map<Integer, ConvolutionParameters> parameters, int maxBatch,
                              boolean halfGradients, CpuPrecision precision) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        requirePrecision(precision);
        for (LayerSpec l : spec.layers()) {
            for (int from : l.inputs()) {
                if (from >= 0 && spec.layers().get(from) instanceof YoloSpec) {
                    throw new IllegalArgumentException("layer " + l.index() + " (" + l.kind() + ", line " + l.line()
                            + ") reads the output of [yolo] layer " + from + ": not trainable");
                }
            }
        }
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.input = new NativeFloats((long) maxBatch * spec.inputShape().size());
        this.inputActivations = new LayerOutput(spec.inputShape(), maxBatch, CpuPrecision.FP32);
        this.context = new LayerContext(resources.stream(), scratch, CpuPrecision.FP32, null, WinogradPolicy.OFF, null);
        this.inputReorders = new Dnnl.Primitive[maxBatch + 1];
        long largestInput = 1;
        for (LayerSpec l : spec.layers()) {
            boolean head = l instanceof YoloSpec;
            outputs.add(head ? null : new LayerOutput(l.output(), maxBatch, CpuPrecision.FP32));
            gradients.add(head ? null : new LayerOutput(l.output(), maxBatch, CpuPrecision.FP32));
            for (int from : l.inputs()) {
                long size = from < 0 ? spec.inputShape().size() : spec.layers().get(from).output().size();
                largestInput = Math.max(largestInput, size);
            }
        }
        this.gradientScratch = new NativeFloats((long) maxBatch * largestInput);
        this.clearedBeforeBackward = new boolean[spec.layers().size()];
        GradientSink[][] sinks = planGradients();
        for (LayerSpec l : spec.layers()) layers.add(create(l, parameters, sinks[l.index()], halfGradients));
    }

    /**
     * Refuses a training precision other than FP32 with the reason: BF16 on a CPU without AVX512_BF16 or AMX names
     * the CPU and what it lacks; elsewhere BF16 (and INT8) training is not implemented.
     */
    public static void requirePrecision(CpuPrecision precision) {
        if (precision == CpuPrecision.FP32) return;
        precision.requireSupport(CpuInfo.current());
        throw new IllegalArgumentException("CPU training runs in fp32 only; " + precision + " training is not "
                + "implemented (fp16: mixed precision, emulated on the CPU; on the GPU: --backend cuda)");
    }

    /**
     * Per layer and input: where its backward puts dLoss/dInput ({@link GradientSink}). Backward runs layers in reverse
     * cfg order and each layer's inputs in order; the first to reach a gradient writes it when it covers all of it,
     * everyone else adds. A gradient first reached by a partial writer (a route's channel group) or never reached (a
     * layer nobody reads) is cleared before backward.
     */
    private GradientSink[][] planGradients() {
        int count = spec.layers().size();
        GradientSink[][] sinks = new GradientSink[count][];
        boolean[] reached = new boolean[count];
        for (int i = count - 1; i >= 0; i--) {
            LayerSpec l = spec.layers().get(i);
            int[] from = l.inputs();
            sinks[i] = new GradientSink[from.length];
            for (int k = 0; k < from.length; k++) {
                int p = from[k];
                if (p < 0) continue;
                boolean whole = !(l instanceof RouteSpec r) || r.channelCount(k) == r.inputShapes()[k].channels();
                boolean first = !reached[p];
                reached[p] = true;
                if (first && !whole) clearedBeforeBackward[p] = true;
                sinks[i][k] = new GradientSink(gradients.get(p), !first || !whole);
            }
        }
        for (int i = 0; i < count; i++) if (!reached[i] && gradients.get(i) != null) clearedBeforeBackward[i] = true;
        return sinks;
    }

    private LayerOutput out(int index) { return index < 0 ? inputActivations : outputs.get(index); }

    private CpuLayer create(LayerSpec l, Map<Integer, ConvolutionParameters> parameters, GradientSink[] sinks,
                            boolean halfGradients) {
        int i = l.index();
        LayerOutput mine = outputs.get(i);
        LayerOutput grad = gradients.get(i);
        return switch (l) {
            case ConvolutionalSpec c -> {
                ConvolutionParameters p = parameters.get(i);
                if (p == null) throw new IllegalArgumentException("no parameters for convolutional layer " + i);
                yield new ConvolutionalLayer.Training(c, p, out(i - 1), mine, grad, sinks[0], gradientScratch,
                        halfGradients, maxBatch, context);
            }
            case MaxPoolSpec m -> new MaxPoolLayer(m, out(i - 1), mine, grad, sinks[0], gradientScratch, maxBatch, context);
            case RouteSpec r -> {
                LayerOutput[] ins = new LayerOutput[r.layers().length];
                for (int k = 0; k < ins.length; k++) ins[k] = out(r.layers()[k]);
                yield new RouteLayer(r, ins, mine, grad, sinks, maxBatch, context);
            }
            case ShortcutSpec s -> new ShortcutLayer(s, out(i - 1), out(s.from()), mine, grad, sinks[0], sinks[1],
                    maxBatch, context);
            case UpsampleSpec u -> new UpsampleLayer(u, out(i - 1), mine, grad, sinks[0], gradientScratch, maxBatch,
                    context);
            case YoloSpec y -> new YoloLayer(y, out(i - 1), true, sinks[0], maxBatch, context);
            case HostOpsSpec h -> throw new IllegalArgumentException(spec.file() + ": layer " + i + " runs "
                    + h.ops().describe() + " on the host, which has no backward pass: imported graphs are for inference");
        };
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    /** The batch input, NCHW planar RGB in [0,1]; image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return input.buffer(); }

    /** Brings the first {@code n} images of {@link #input()} into the network (before the first layer's forward). */
    public void bringInput(int n) {
        check(n);
        Dnnl.Primitive p = inputReorders[n];
        if (p == null) {
            var s = spec.inputShape();
            p = inputReorders[n] = resources.reorder(
                    resources.desc(new long[] {n, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw),
                    input.pointer(), inputActivations.desc(resources, n), inputActivations.pointer(), scratch);
        }
        p.execute(context.stream());
        waitForStream();
    }

    /** Layer {@code index}'s forward for the first {@code n} images; its output is complete on return. */
    public void forward(int index, int n) {
        check(n);
        layers.get(index).forward(n);
        waitForStream();
    }

    /** Clears the gradients backward only adds to, for the first {@code n} images: call before the first backward. */
    public void clearGradients(int n) {
        check(n);
        for (int i = 0; i < gradients.size(); i++) {
            if (clearedBeforeBackward[i]) Pointer.memset(gradients.get(i).pointer(), 0, n * gradients.get(i).imageBytes());
        }
    }

    /**
     * Layer {@code index}'s backward for the first {@code n} images (layers in reverse order, after
     * {@link #clearGradients}; a [yolo] layer's after its {@link #lossGradient} is filled).
     */
    public void backward(int index, int n) {
        check(n);
        layers.get(index).backward(n);
        waitForStream();
    }

    /**
     * Layer {@code index}'s output over the whole batch as floats in its own layout: channels last, or NCHW for a
     * [yolo] head (for element-wise work such as rounding; read values in Darknet's order with {@link #outputNchw}).
     */
    public FloatBuffer outputValues(int index) {
        if (layers.get(index) instanceof YoloLayer y) return y.head();
        return floats(outputs.get(index));
    }

    /** Layer {@code index}'s gradient dLoss/dOutput as floats, channels last; null for [yolo]. */
    public FloatBuffer gradientValues(int index) {
        LayerOutput g = gradients.get(index);
        return g == null ? null : floats(g);
    }

    private FloatBuffer floats(LayerOutput o) {
        long count = (long) maxBatch * o.shape().size();
        FloatPointer p = new FloatPointer(o.pointer());
        p.capacity(count).limit(count);
        return p.asBuffer();
    }

    /** A copy of layer {@code index}'s output for the first {@code n} images in Darknet's NCHW order. */
    public float[] outputNchw(int index, int n) {
        check(n);
        if (layers.get(index) instanceof YoloLayer y) {
            float[] out = new float[n * spec.layers().get(index).output().size()];
            y.head().get(0, out);
            return out;
        }
        return toNchw(outputs.get(index), n);
    }

    /** A copy of layer {@code index}'s gradient for the first {@code n} images in NCHW order (null for [yolo]). */
    public float[] gradientNchw(int index, int n) {
        check(n);
        LayerOutput g = gradients.get(index);
        return g == null ? null : toNchw(g, n);
    }

    /** Sets layer {@code index}'s gradient for the first {@code n} images from NCHW values (e.g. a test's seed). */
    public void setGradientNchw(int index, int n, float[] values) {
        check(n);
        LayerOutput g = gradients.get(index);
        int count = n * g.shape().size();
        if (values.length < count) throw new IllegalArgumentException(values.length + " values for " + count);
        try (Dnnl.Resources r = new Dnnl.Resources(); Scratchpad temporary = new Scratchpad();
             NativeFloats nchw = new NativeFloats(count)) {
            nchw.buffer().put(0, values, 0, count);
            r.reorder(nchwDesc(r, g, n), nchw.pointer(), g.desc(r, n), g.pointer(), temporary).execute(context.stream());
            waitForStream();
        }
    }

    private float[] toNchw(LayerOutput o, int n) {
        int count = n * o.shape().size();
        float[] out = new float[count];
        try (Dnnl.Resources r = new Dnnl.Resources(); Scratchpad temporary = new Scratchpad();
             NativeFloats nchw = new NativeFloats(count)) {
            r.reorder(o.desc(r, n), o.pointer(), nchwDesc(r, o, n), nchw.pointer(), temporary).execute(context.stream());
            waitForStream();
            nchw.buffer().get(0, out);
        }
        return out;
    }

    private static org.bytedeco.dnnl.dnnl_memory_desc nchwDesc(Dnnl.Resources r, LayerOutput o, int n) {
        var s = o.shape();
        return r.desc(new long[] {n, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw);
    }

    /** [yolo] layer {@code index}'s head after the last forward (activated), NCHW: image i at i x its size. */
    public FloatBuffer head(int index) { return yolo(index).head(); }

    /** [yolo] layer {@code index}'s input after the last forward, NCHW. */
    public FloatBuffer headInput(int index) { return yolo(index).headInput(); }

    /** Where the loss writes dLoss/dInput of [yolo] layer {@code index} (NCHW) before its backward. */
    public FloatBuffer lossGradient(int index) { return yolo(index).lossGradient(); }

    private YoloLayer yolo(int index) {
        if (!(layers.get(index) instanceof YoloLayer y)) {
            throw new IllegalArgumentException("layer " + index + " is a " + spec.layers().get(index).kind() + ", not [yolo]");
        }
        return y;
    }

    /** Batch mean and variance (over N-1) of the last forward of convolutional layer {@code index}; null without BN. */
    public float[][] batchStatistics(int index) {
        ConvolutionalLayer.Training c = (ConvolutionalLayer.Training) layers.get(index);
        return c.batchMean() == null ? null : new float[][] {c.batchMean(), c.batchVariance()};
    }

    /** For tests: a digest of which taps won the windows of max-pool layer {@code index} in the last forward of n. */
    public int maxPoolWinners(int index, int n) {
        if (!(layers.get(index) instanceof MaxPoolLayer m)) throw new IllegalArgumentException("layer " + index + " is no [maxpool]");
        return m.winnersDigest(n);
    }

    private void waitForStream() {
        Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
    }

    private void check(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
    }

    @Override
    public void close() {
        for (CpuLayer l : layers) l.close();
        for (LayerOutput o : outputs) if (o != null) o.close();
        for (LayerOutput g : gradients) if (g != null) g.close();
        gradientScratch.close();
        inputActivations.close();
        input.close();
        scratch.close();
        resources.close();
    }
}
