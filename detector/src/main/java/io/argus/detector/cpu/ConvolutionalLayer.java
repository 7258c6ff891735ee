package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bytedeco.dnnl.dnnl_memory;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.javacpp.Pointer;

/**
 * [convolutional] on the CPU: one oneDNN convolution per batch size over channels-last buffers, with batch norm
 * folded into the weights and bias + activation fused as a post-op, so each output element is written once. Which of
 * oneDNN's implementations runs is measured at first use ({@link ConvolutionTuner}); its weights are reordered once
 * into the layout (and type: BF16) that implementation reads. For FP32 3x3 stride-1 layers our own Winograd
 * convolution ({@link WinogradConvolution}, F(2x2) and F(4x4)) is timed with them, or forced, or left out
 * ({@link WinogradPolicy}).
 *
 * <p>INT8: the weights become signed bytes with a scale per output channel (largest |weight| / 127); oneDNN multiplies
 * bytes into 32-bit sums, scales them back by input scale x weight scale, adds the FP32 bias, applies the activation
 * in FP32, and divides by the output's scale into bytes (or writes FP32 when the output is FP32).
 */
final class ConvolutionalLayer implements CpuLayer {
    private final ConvolutionalSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final NativeFloats weights;   // Darknet order: [filters][c/groups][ky][kx], BN folded, FP32
    private final NativeFloats bias;      // FP32 in every precision
    private final float[] biasValues;     // the same, for our Winograd's output transform
    private final boolean int8;
    private final float[] weightScales;   // INT8: per output channel
    private final org.bytedeco.javacpp.BytePointer int8Weights;   // INT8: Darknet order, signed bytes
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Executable[] variants;              // per batch size, built on first use
    private final ConvolutionTuner.Choice[] choices;

    ConvolutionalLayer(ConvolutionalSpec spec, ConvWeights params, LayerOutput input, LayerOutput output,
                       int maxBatch, LayerContext context) {
        this.spec = spec;
        this.input = input;
        this.output = output;
        this.context = context;
        float[][] folded = params.folded();
        this.weights = new NativeFloats(folded[0].length);
        this.weights.copyFrom(folded[0]);
        this.bias = new NativeFloats(folded[1].length);
        this.bias.copyFrom(folded[1]);
        this.biasValues = folded[1].clone();
        this.int8 = context.precision() == CpuPrecision.INT8;
        if (int8) {
            int filters = spec.filters();
            int per = folded[0].length / filters;
            weightScales = new float[filters];
            byte[] q = new byte[folded[0].length];
            for (int f = 0; f < filters; f++) {
                float m = 0;
                for (int k = 0; k < per; k++) m = Math.max(m, Math.abs(folded[0][f * per + k]));
                float scale = m > 0 ? m / 127 : 1f;
                weightScales[f] = scale;
                for (int k = 0; k < per; k++) q[f * per + k] = (byte) Math.round(folded[0][f * per + k] / scale);
            }
            int8Weights = new org.bytedeco.javacpp.BytePointer(q.length);
            int8Weights.put(q);
        } else {
            weightScales = null;
            int8Weights = null;
        }
        this.variants = new Dnnl.Executable[maxBatch + 1];
        this.choices = new ConvolutionTuner.Choice[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        Dnnl.Executable v = variants[n];
        if (v == null) v = variants[n] = build(n);
        v.execute(context.stream());
    }

    /** The implementation chosen for batch size {@code n}; null before the first forward of that size. */
    ConvolutionTuner.Choice choice(int n) { return choices[n]; }

    ConvolutionalSpec spec() { return spec; }

    /** For tests: our Winograd's images per pass and passes at batch size {@code n}, null when it is not what runs. */
    String winogradPasses(int n) {
        return variants[n] instanceof WinogradConvolution w ? w.passes() : null;
    }

    /** For tests: the matmul implementation of our Winograd at batch size {@code n}, null when it is not what runs. */
    String winogradProducts(int n) {
        return variants[n] instanceof WinogradConvolution w ? w.productsImplementation() : null;
    }

    private Dnnl.Executable build(int n) {
        List<WinogradTile> ours = winogradTiles(context.winograd());
        try (Dnnl.Resources listed = new Dnnl.Resources(); WinogradFilters filters = new WinogradFilters()) {
            if (context.winograd().forced() && !ours.isEmpty()) {
                ConvolutionTuner.Candidate forced = ConvolutionTuner.Candidate.winograd(ours.get(0));
                choices[n] = new ConvolutionTuner.Choice(forced, java.util.Map.of(), false);
                return instantiate(forced, null, n, resources, context.scratch(), filters);
            }
            synchronized (LISTING) {
                java.util.Map<ConvolutionTuner.Candidate, dnnl_primitive_desc> candidates = candidates(n, listed);
                List<ConvolutionTuner.Candidate> all = new ArrayList<>(candidates.keySet());
                for (WinogradTile t : ours) all.add(ConvolutionTuner.Candidate.winograd(t));
                ConvolutionTuner.Choice choice = context.tuner().choose(shapeKey(n, ours), all,
                        c -> time(c, candidates.get(c), n, filters));
                choices[n] = choice;
                return instantiate(choice.candidate(), candidates.get(choice.candidate()), n, resources,
                        context.scratch(), filters);
            }
        }
    }

    /**
     * Held from walking oneDNN's list of implementations to creating what was chosen from it: one walk at a time in
     * the process. oneDNN's primitive cache knows an implementation by its position among those that accept the shape
     * (with the operation, attributes and thread count), and a walk that finds some positions cached starts its own
     * count again from the list's head: two walks of one shape at once (two networks built side by side) can give one
     * position two implementations, and the cache then hands one walk the other's. Timing one walk at a time also keeps
     * one network's candidates from being timed against the other's.
     */
    private static final Object LISTING = new Object();

    /** The Winograd tiles {@code policy} offers for this layer: none unless {@link WinogradConvolution#handles} it. */
    private List<WinogradTile> winogradTiles(WinogradPolicy policy) {
        return WinogradConvolution.handles(spec, context.precision()) ? policy.tiles() : List.of();
    }

    /**
     * E.g. "fp32 b1 ic64 oc64 g1 104x104 k3 s1x1 p1/1/1 leaky": what the choice depends on; with " +argus-f2x2,f4x4"
     * when our Winograd tiles are among the candidates, since the fastest of a larger set may differ (so a choice
     * made without them, before they existed or with winograd: off, is not taken for one made with them).
     */
    private String shapeKey(int n, List<WinogradTile> ours) {
        var in = spec.input();
        String types = int8 ? context.precision() + (output.quantized() ? "" : "-f32out") : context.precision().toString();
        String key = String.format(Locale.ROOT, "%s b%d ic%d oc%d g%d %dx%d k%d s%dx%d p%d/%d/%d %s", types, n,
                in.channels(), spec.filters(), spec.groups(), in.height(), in.width(), spec.size(), spec.strideY(),
                spec.strideX(), spec.pad(), padBottom(), padRight(), spec.activation().name().toLowerCase(Locale.ROOT));
        if (ours.isEmpty()) return key;
        StringBuilder b = new StringBuilder(key).append(" +argus-");
        for (int i = 0; i < ours.size(); i++) b.append(i == 0 ? "" : ",").append(ours.get(i).label());
        return b.toString();
    }

    /**
     * U = G g G^T of this layer per tile, computed when a candidate first needs it and dropped after the build (its
     * oneDNN copy stays with the convolution that runs): a network holds the transformed filters of its chosen tiles
     * only.
     */
    private final class WinogradFilters implements AutoCloseable {
        private final java.util.Map<WinogradTile, float[]> byTile = new java.util.EnumMap<>(WinogradTile.class);

        float[] of(WinogradTile tile) {
            return byTile.computeIfAbsent(tile, t -> {
                float[] w = new float[(int) weights.size()];
                weights.buffer().get(0, w);
                return WinogradTransforms.filters(t, w, spec.filters(), spec.input().channels());
            });
        }

        @Override
        public void close() { byTile.clear(); }
    }

    private long padBottom() { return padBottom(spec); }

    private long padRight() { return padRight(spec); }

    // Darknet pads symmetrically; the right/bottom pad only matters up to what the last window reaches
    static long padBottom(ConvolutionalSpec spec) {
        return Math.max(0, (spec.output().height() - 1L) * spec.strideY() + spec.size() - spec.input().height() - spec.pad());
    }

    static long padRight(ConvolutionalSpec spec) {
        return Math.max(0, (spec.output().width() - 1L) * spec.strideX() + spec.size() - spec.input().width() - spec.pad());
    }

    /** The weights' dims in oneDNN's order: {O, I, k, k}, or {g, O/g, I/g, k, k} with groups. */
    static long[] weightDims(ConvolutionalSpec spec) {
        int g = spec.groups();
        long k = spec.size();
        return g == 1 ? new long[] {spec.filters(), spec.groupChannels(), k, k}
                : new long[] {g, spec.filters() / g, spec.groupChannels(), k, k};
    }

    /**
     * Every implementation oneDNN offers for this layer, direct and (where it has one) Winograd, each as its own copy
     * of the primitive descriptor (in {@code r}), since oneDNN's list is walked by changing one descriptor in place.
     * Reference C++ implementations only when nothing else exists.
     */
    private java.util.Map<ConvolutionTuner.Candidate, dnnl_primitive_desc> candidates(int n, Dnnl.Resources r) {
        java.util.Map<ConvolutionTuner.Candidate, dnnl_primitive_desc> all = new java.util.LinkedHashMap<>();
        for (int algorithm : new int[] {dnnl_convolution_direct, dnnl_convolution_winograd}) {
            dnnl_primitive_desc pd = describe(algorithm, n, r);
            if (pd == null) continue;
            do {
                dnnl_primitive_desc copy = new dnnl_primitive_desc();
                Dnnl.check(dnnl_primitive_desc_clone(copy, pd), "primitive_desc_clone");
                r.own(copy);
                all.put(new ConvolutionTuner.Candidate(algorithm, Dnnl.implementation(copy)), copy);
            } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        }
        if (all.isEmpty()) throw new IllegalStateException("oneDNN has no convolution for layer " + spec.index()
                + " (line " + spec.line() + ")");
        java.util.Map<ConvolutionTuner.Candidate, dnnl_primitive_desc> fast = new java.util.LinkedHashMap<>(all);
        fast.keySet().removeIf(c -> c.name().startsWith("ref"));
        return fast.isEmpty() ? all : fast;
    }

    /** The primitive descriptor of {@code algorithm} at oneDNN's first implementation, or null when it has none. */
    private dnnl_primitive_desc describe(int algorithm, int n, Dnnl.Resources r) {
        int g = spec.groups();
        long k = spec.size();
        long[] wdims = g == 1 ? new long[] {spec.filters(), spec.groupChannels(), k, k}
                : new long[] {g, spec.filters() / g, spec.groupChannels(), k, k};
        dnnl_memory_desc anyWeights = r.desc(wdims, context.precision().dnnlType, dnnl_format_tag_any);
        dnnl_memory_desc b = r.desc(new long[] {spec.filters()}, dnnl_f32, dnnl_x);
        long pad = spec.pad();
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        int status = dnnl_convolution_forward_primitive_desc_create(pd, Dnnl.engine(), dnnl_forward_inference,
                algorithm, input.desc(r, n), anyWeights, b, output.desc(r, n), new long[] {spec.strideY(), spec.strideX()},
                new long[] {0, 0}, new long[] {pad, pad}, new long[] {padBottom(), padRight()}, attr(r));
        if (status != dnnl_success) {
            if (algorithm == dnnl_convolution_direct) Dnnl.check(status, "convolution layer " + spec.index() + " (line " + spec.line() + ")");
            return null;
        }
        r.own(pd);
        return pd;
    }

    /** The activation as a post-op; INT8: scales of the input, of the weights per output channel, of a byte output. */
    private org.bytedeco.dnnl.dnnl_primitive_attr attr(Dnnl.Resources r) {
        org.bytedeco.dnnl.dnnl_primitive_attr a = r.attr(spec.activation());
        if (int8) {
            r.scaled(a, DNNL_ARG_SRC, 0);
            r.scaled(a, DNNL_ARG_WEIGHTS, spec.groups() == 1 ? 1 : 3);
            if (output.quantized()) r.scaled(a, DNNL_ARG_DST, 0);
        }
        return a;
    }

    /**
     * Candidate {@code c} (oneDNN's: its descriptor {@code listed}) as something to run in {@code r}: weights
     * reordered for it, buffers bound; ours: a {@link WinogradConvolution} with its tile's filters.
     */
    private Dnnl.Executable instantiate(ConvolutionTuner.Candidate c, dnnl_primitive_desc listed, int n, Dnnl.Resources r,
                                        Scratchpad scratch, WinogradFilters filters) {
        WinogradTile tile = c.winogradTile();
        if (tile != null) {
            return new WinogradConvolution(spec, tile, filters.of(tile), biasValues, input, output, n, context, r, scratch);
        }
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_primitive_desc_clone(pd, listed), "primitive_desc_clone");
        Dnnl.Primitive conv = !int8
                ? r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST)
                : output.quantized()
                ? r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST,
                        DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS,
                        DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST)
                : r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST,
                        DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS);
        String running = conv.implementation();
        if (!running.equals(c.name())) {
            throw new BuiltAnother("layer " + spec.index() + ": asked oneDNN for " + c.name() + ", it built " + running);
        }
        int g = spec.groups();
        long k = spec.size();
        int userType = int8 ? dnnl_s8 : dnnl_f32;
        Pointer userPointer = int8 ? int8Weights : weights.pointer();
        dnnl_memory_desc userWeights = g == 1
                ? r.desc(new long[] {spec.filters(), spec.groupChannels(), k, k}, userType, dnnl_oihw)
                : r.desc(new long[] {g, spec.filters() / g, spec.groupChannels(), k, k}, userType, dnnl_goihw);
        dnnl_memory_desc kernelWeights = conv.query(dnnl_query_weights_md);
        dnnl_memory wmem = r.memory(userWeights, userPointer);
        if (dnnl_memory_desc_equal(kernelWeights, userWeights) == 0) {
            Pointer blocked = r.bytes(dnnl_memory_desc_get_size(kernelWeights));
            r.reorder(userWeights, userPointer, kernelWeights, blocked, scratch).execute(context.stream());
            Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
            wmem = r.memory(kernelWeights, blocked);
        }
        dnnl_memory_desc b = r.desc(new long[] {spec.filters()}, dnnl_f32, dnnl_x);
        conv.arg(DNNL_ARG_SRC, r.memory(input.desc(r, n), input.pointer()))
                .arg(DNNL_ARG_WEIGHTS, wmem)
                .arg(DNNL_ARG_BIAS, r.memory(b, bias.pointer()))
                .arg(DNNL_ARG_DST, r.memory(output.desc(r, n), output.pointer()));
        if (int8) {
            conv.arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, r.scales(input.scale()))
                    .arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, r.scales(weightScales));
            if (output.quantized()) conv.arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, r.scales(output.scale()));
        }
        return conv;
    }

    /**
     * This layer's output for the first {@code n} images as every implementation oneDNN offers would write it, from
     * the input now in place (for tests: each must agree with the one chosen, which the equivalence tests check
     * against OpenCV and Darknet). FP32 and BF16 outputs in channels-last order, as floats; the layer's own output is
     * left as the chosen implementation wrote it.
     */
    java.util.Map<String, float[]> outputsOfEveryImplementation(int n) {
        java.util.Map<String, float[]> out = new java.util.LinkedHashMap<>();
        long bytes = n * output.imageBytes();
        byte[] chosen = new byte[(int) bytes];
        org.bytedeco.javacpp.BytePointer view = new org.bytedeco.javacpp.BytePointer(output.pointer());
        view.capacity(bytes).limit(bytes);
        view.get(chosen);
        synchronized (LISTING) {
            try (Dnnl.Resources listed = new Dnnl.Resources(); WinogradFilters filters = new WinogradFilters()) {
                var candidates = new java.util.LinkedHashMap<>(candidates(n, listed));
                for (WinogradTile t : winogradTiles(WinogradPolicy.AUTO)) candidates.put(ConvolutionTuner.Candidate.winograd(t), null);
                for (var e : candidates.entrySet()) {
                    try (Dnnl.Resources r = new Dnnl.Resources(); Scratchpad s = new Scratchpad()) {
                        instantiate(e.getKey(), e.getValue(), n, r, s, filters).execute(context.stream());
                        Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
                        out.put(e.getKey().key(), readOutput(n));
                    }
                }
            } finally {
                view.put(chosen);
            }
        }
        return out;
    }

    private float[] readOutput(int n) {
        int count = n * output.shape().size();
        float[] values = new float[count];
        if (output.dnnlType() == dnnl_f32) {
            org.bytedeco.javacpp.FloatPointer f = new org.bytedeco.javacpp.FloatPointer(output.pointer());
            f.capacity(count).limit(count);
            f.get(values);
        } else if (output.dnnlType() == dnnl_bf16) {
            org.bytedeco.javacpp.ShortPointer h = new org.bytedeco.javacpp.ShortPointer(output.pointer());
            h.capacity(count).limit(count);
            short[] raw = new short[count];
            h.get(raw);
            for (int i = 0; i < count; i++) values[i] = Float.intBitsToFloat((raw[i] & 0xFFFF) << 16);
        } else {
            org.bytedeco.javacpp.BytePointer b = new org.bytedeco.javacpp.BytePointer(output.pointer());
            b.capacity(count).limit(count);
            byte[] raw = new byte[count];
            b.get(raw);
            for (int i = 0; i < count; i++) values[i] = output.scale() * raw[i];
        }
        return values;
    }

    /**
     * The best of three runs of {@code c} on the real buffers, in ms, after one untimed run that pays page faults and
     * oneDNN's JIT; ours once the JVM has compiled its transforms ({@link WinogradTransforms#compileOnce}) and after
     * five untimed runs and 40 ms at least; NaN when it cannot run.
     */
    private double time(ConvolutionTuner.Candidate c, dnnl_primitive_desc listed, int n, WinogradFilters filters) {
        try (Dnnl.Resources r = new Dnnl.Resources(); Scratchpad s = new Scratchpad()) {
            if (c.winogradTile() != null) WinogradTransforms.compileOnce();
            Dnnl.Executable p = instantiate(c, listed, n, r, s, filters);
            boolean ours = c.winogradTile() != null;
            long warmUntil = System.nanoTime() + (ours ? WINOGRAD_WARM_UP_NS : 0);
            int warm = 0;
            do {
                p.execute(context.stream());
                Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
                warm++;
            } while (ours && (warm < WINOGRAD_WARM_UP_RUNS || System.nanoTime() < warmUntil) && warm < 100);
            double best = Double.POSITIVE_INFINITY;
            for (int run = 0; run < 3; run++) {
                long t = System.nanoTime();
                p.execute(context.stream());
                Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
                best = Math.min(best, (System.nanoTime() - t) / 1e6);
            }
            return best;
        } catch (BuiltAnother e) {
            throw e;
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    /** oneDNN created another implementation than the one listed: a defect to report, never a slow candidate. */
    static final class BuiltAnother extends IllegalStateException {
        BuiltAnother(String message) { super(message); }
    }

    /**
     * How long and how often our Winograd runs untimed before it is timed. Even with its transforms compiled, a new
     * instance ran up to 2x slower for its first runs (its buffers and helper thread cold; on this shared machine,
     * also other load), and three runs after one untimed run picked oneDNN where ours was faster.
     */
    private static final long WINOGRAD_WARM_UP_NS = 40_000_000;
    private static final int WINOGRAD_WARM_UP_RUNS = 5;

    @Override
    public void close() {
        resources.close();
        weights.close();
        bias.close();
        if (int8Weights != null) int8Weights.close();
    }

    /**
     * [convolutional] in training: the same oneDNN convolution, unfolded, forward with the batch's own statistics and
     * backward to the weights, biases, batch-norm scales and the input. Forward: convolution (with the bias when there
     * is no batch norm), batch normalization (forward training: the batch's mean and variance), the activation (eltwise
     * forward training). Backward, in reverse: eltwise backward, batch-norm backward (through the batch statistics),
     * convolution backward weights (and bias) and backward data. Every tensor is FP32 channels last; the weights are
     * reordered from the trainer's working copy into the layouts the kernels read at every pass (they change at every
     * step), and the weight gradient back into Darknet's order, added onto what earlier passes left.
     *
     * <p>Darknet normalizes with the batch variance over n-1 ({@code ConvWeights}'s rolling statistics too); oneDNN's
     * batch normalization divides by n. With N values per channel, Darknet's (x - mean) / sqrt(S/(N-1) + eps) equals
     * sqrt((N-1)/N) x (x - mean) / sqrt(S/N + eps (N-1)/N): so oneDNN runs with epsilon eps (N-1)/N and the scale
     * gamma sqrt((N-1)/N), and the scale's gradient is multiplied back by the same factor. The forward is then
     * Darknet's exactly, and oneDNN's backward its exact gradient.
     */
    static final class Training implements CpuLayer {
        private final ConvolutionalSpec spec;
        private final ConvolutionParameters params;
        private final LayerOutput input;
        private final LayerOutput output;
        private final LayerOutput gradient;
        private final GradientSink inputSink;        // null: the input needs no gradient (the network's input)
        private final NativeFloats gradientScratch;  // dX when it cannot go straight into the input's gradient
        private final boolean halfGradients;         // round each pass's weight gradient through FP16 before adding
        private final LayerOutput convolved;         // the convolution's output when batch norm follows; else null
        private final LayerOutput activationInput;   // kept for mish and swish, whose derivative needs it; else null
        private final NativeFloats shift;            // batch norm's shift = the biases, or the convolution's bias
        private final NativeFloats scale;            // gamma x sqrt((N-1)/N); null without batch norm
        private final NativeFloats mean;
        private final NativeFloats variance;         // over N, as oneDNN computes it
        private final NativeFloats shiftGradient;    // this pass's, added into the trainer's after backward
        private final NativeFloats scaleGradient;
        private final NativeFloats passWeightGradient;   // FP16 emulation: this pass's, in Darknet's order
        private final float[] batchMean;
        private final float[] batchVariance;         // over N-1, Darknet's
        private final LayerContext context;
        private final Dnnl.Resources resources = new Dnnl.Resources();
        private final Variant[] variants;

        Training(ConvolutionalSpec spec, ConvolutionParameters params, LayerOutput input, LayerOutput output,
                 LayerOutput gradient, GradientSink inputSink, NativeFloats gradientScratch, boolean halfGradients,
                 int maxBatch, LayerContext context) {
            if (context.precision() != CpuPrecision.FP32) {
                throw new IllegalArgumentException("CPU training runs in FP32; found " + context.precision());
            }
            this.spec = spec;
            this.params = params;
            this.input = input;
            this.output = output;
            this.gradient = gradient;
            this.inputSink = inputSink;
            this.gradientScratch = gradientScratch;
            this.halfGradients = halfGradients;
            this.context = context;
            boolean bn = spec.batchNormalize();
            this.convolved = bn ? new LayerOutput(spec.output(), maxBatch, CpuPrecision.FP32) : null;
            this.activationInput = needsActivationInput(spec.activation())
                    ? new LayerOutput(spec.output(), maxBatch, CpuPrecision.FP32) : null;
            int c = spec.filters();
            this.shift = new NativeFloats(c);
            this.scale = bn ? new NativeFloats(c) : null;
            this.mean = bn ? new NativeFloats(c) : null;
            this.variance = bn ? new NativeFloats(c) : null;
            this.shiftGradient = new NativeFloats(c);
            this.scaleGradient = bn ? new NativeFloats(c) : null;
            this.passWeightGradient = halfGradients ? new NativeFloats(spec.weightCount()) : null;
            this.batchMean = new float[c];
            this.batchVariance = new float[c];
            this.variants = new Variant[maxBatch + 1];
        }

        /** Mish and swish need their input for the derivative; relu, leaky and logistic read their output. */
        static boolean needsActivationInput(io.argus.detector.darknet.Activation act) {
            return act == io.argus.detector.darknet.Activation.MISH || act == io.argus.detector.darknet.Activation.SWISH;
        }

        ConvolutionalSpec spec() { return spec; }

        @Override
        public LayerOutput output() { return output; }

        /** Mean of each channel over the last forward's batch (null without batch norm). */
        float[] batchMean() { return spec.batchNormalize() ? batchMean : null; }

        /** Variance (over N-1, Darknet's) of each channel over the last forward's batch (null without batch norm). */
        float[] batchVariance() { return spec.batchNormalize() ? batchVariance : null; }

        @Override
        public void forward(int n) {
            Variant v = variant(n);
            fill(shift, params.biases(), 1f);
            if (scale != null) fill(scale, params.scales(), v.gammaFactor);
            if (v.weightsForward != null) v.weightsForward.execute(context.stream());
            v.convolution.execute(context.stream());
            if (v.normalization != null) {
                v.normalization.execute(context.stream());
                Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
                moveRollingStatistics(v.count);
            }
            if (v.activation != null) v.activation.execute(context.stream());
        }

        private static void fill(NativeFloats to, float[] values, float factor) {
            java.nio.FloatBuffer b = to.buffer();
            for (int i = 0; i < values.length; i++) b.put(i, values[i] * factor);
        }

        /** Darknet's rolling statistics move 1% towards the batch's (variance over N-1). */
        private void moveRollingStatistics(long count) {
            float[] rm = params.rollingMean();
            float[] rv = params.rollingVariance();
            double unbiased = count > 1 ? (double) count / (count - 1) : 1;
            for (int f = 0; f < batchMean.length; f++) {
                float m = mean.buffer().get(f);
                float var = (float) (variance.buffer().get(f) * unbiased);
                batchMean[f] = m;
                batchVariance[f] = var;
                rm[f] = 0.99f * rm[f] + 0.01f * m;
                rv[f] = 0.99f * rv[f] + 0.01f * var;
            }
        }

        @Override
        public void backward(int n) {
            Variant v = variant(n);
            if (v.activationBackward != null) v.activationBackward.execute(context.stream());
            if (v.normalizationBackward != null) v.normalizationBackward.execute(context.stream());
            v.weightsBackward.execute(context.stream());
            v.weightGradientOut.execute(context.stream());
            if (inputSink != null) {
                if (v.weightsData != null) v.weightsData.execute(context.stream());
                v.dataBackward.execute(context.stream());
                if (v.deliver != null) v.deliver.execute(context.stream());
            }
            Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
            java.nio.FloatBuffer db = params.biasGradient();
            for (int f = 0; f < batchMean.length; f++) db.put(f, db.get(f) + shiftGradient.buffer().get(f));
            if (scaleGradient != null) {
                java.nio.FloatBuffer ds = params.scaleGradient();
                for (int f = 0; f < batchMean.length; f++) {
                    ds.put(f, ds.get(f) + scaleGradient.buffer().get(f) * v.gammaFactor);
                }
            }
            if (passWeightGradient != null) {
                java.nio.FloatBuffer pass = passWeightGradient.buffer();
                java.nio.FloatBuffer dw = params.weightGradient().buffer();
                for (int i = 0; i < spec.weightCount(); i++) {
                    dw.put(i, dw.get(i) + Float.float16ToFloat(Float.floatToFloat16(pass.get(i))));
                }
            }
        }

        private Variant variant(int n) {
            Variant v = variants[n];
            if (v == null) v = variants[n] = new Variant(n);
            return v;
        }

        /** The primitives of one batch size and the buffers in the kernels' layouts they need. */
        private final class Variant {
            final long count;                  // values per channel: n x out_h x out_w
            final float gammaFactor;           // sqrt((N-1)/N)
            final Dnnl.Primitive weightsForward;
            final Dnnl.Primitive convolution;
            final Dnnl.Primitive normalization;
            final Dnnl.Primitive activation;
            final Dnnl.Primitive activationBackward;
            final Dnnl.Primitive normalizationBackward;
            final Dnnl.Primitive weightsBackward;
            final Dnnl.Primitive weightGradientOut;
            final Dnnl.Primitive weightsData;
            final Dnnl.Primitive dataBackward;
            final Dnnl.Primitive deliver;

            Variant(int n) {
                Dnnl.Resources r = resources;
                Scratchpad scratch = context.scratch();
                boolean bn = spec.batchNormalize();
                io.argus.detector.darknet.Activation act = spec.activation();
                boolean linear = act == io.argus.detector.darknet.Activation.LINEAR;
                count = (long) n * spec.output().plane();
                gammaFactor = count > 1 ? (float) Math.sqrt((count - 1.0) / count) : 1f;
                float epsilon = count > 1 ? (float) (ConvWeights.BN_EPSILON * (count - 1.0) / count) : ConvWeights.BN_EPSILON;
                long[] strides = {spec.strideY(), spec.strideX()};
                long[] dilates = {0, 0};
                long[] padL = {spec.pad(), spec.pad()};
                long[] padR = {padBottom(spec), padRight(spec)};
                long[] wdims = weightDims(spec);
                dnnl_memory_desc src = input.desc(r, n);
                dnnl_memory_desc dst = output.desc(r, n);   // every tensor of this layer's output shape
                dnnl_memory_desc anyWeights = r.desc(wdims, dnnl_f32, dnnl_format_tag_any);
                dnnl_memory_desc userWeights = r.desc(wdims, dnnl_f32, spec.groups() == 1 ? dnnl_oihw : dnnl_goihw);
                dnnl_memory_desc channels = r.desc(new long[] {spec.filters()}, dnnl_f32, dnnl_x);
                // where each step writes: convolution -> [batch norm ->] [activation ->] output
                LayerOutput activationIn = linear ? output : activationInput != null ? activationInput : output;
                LayerOutput convOut = bn ? convolved : activationIn;

                dnnl_primitive_desc fwd = new dnnl_primitive_desc();
                Dnnl.check(dnnl_convolution_forward_primitive_desc_create(fwd, Dnnl.engine(), dnnl_forward_training,
                        dnnl_convolution_direct, src, anyWeights, bn ? null : channels, dst, strides, dilates, padL, padR,
                        r.trainingAttr()), "convolution layer " + spec.index() + " (training)");
                convolution = bn
                        ? r.primitive(fwd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST)
                        : r.primitive(fwd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST);
                dnnl_memory_desc kernelWeights = convolution.query(dnnl_query_weights_md);
                Pointer forwardWeights = params.weights().pointer();
                if (dnnl_memory_desc_equal(kernelWeights, userWeights) == 0) {
                    forwardWeights = r.bytes(dnnl_memory_desc_get_size(kernelWeights));
                    weightsForward = r.reorder(userWeights, params.weights().pointer(), kernelWeights, forwardWeights, scratch);
                } else {
                    weightsForward = null;
                }
                convolution.arg(DNNL_ARG_SRC, r.memory(src, input.pointer()))
                        .arg(DNNL_ARG_WEIGHTS, r.memory(kernelWeights, forwardWeights));
                if (!bn) convolution.arg(DNNL_ARG_BIAS, r.memory(channels, shift.pointer()));
                convolution.arg(DNNL_ARG_DST, r.memory(dst, convOut.pointer()));

                int flags = dnnl_use_scale | dnnl_use_shift;
                if (bn) {
                    dnnl_primitive_desc pd = new dnnl_primitive_desc();
                    Dnnl.check(dnnl_batch_normalization_forward_primitive_desc_create(pd, Dnnl.engine(),
                            dnnl_forward_training, dst, dst, epsilon, flags, r.trainingAttr()),
                            "batch norm layer " + spec.index());
                    normalization = r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE, DNNL_ARG_SHIFT,
                                    DNNL_ARG_MEAN, DNNL_ARG_VARIANCE)
                            .arg(DNNL_ARG_SRC, r.memory(dst, convolved.pointer()))
                            .arg(DNNL_ARG_DST, r.memory(dst, activationIn.pointer()))
                            .arg(DNNL_ARG_SCALE, r.memory(channels, scale.pointer()))
                            .arg(DNNL_ARG_SHIFT, r.memory(channels, shift.pointer()))
                            .arg(DNNL_ARG_MEAN, r.memory(channels, mean.pointer()))
                            .arg(DNNL_ARG_VARIANCE, r.memory(channels, variance.pointer()));
                    dnnl_primitive_desc back = new dnnl_primitive_desc();
                    Dnnl.check(dnnl_batch_normalization_backward_primitive_desc_create(back, Dnnl.engine(), dnnl_backward,
                            dst, dst, dst, epsilon, flags, pd, r.trainingAttr()), "batch norm backward layer " + spec.index());
                    // in place: dLoss/d(normalized) becomes dLoss/d(convolution output) in the gradient's buffer
                    normalizationBackward = r.primitive(back, scratch, DNNL_ARG_SRC, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE,
                                    DNNL_ARG_DIFF_DST, DNNL_ARG_SCALE, DNNL_ARG_DIFF_SRC,
                                    DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT)
                            .arg(DNNL_ARG_SRC, r.memory(dst, convolved.pointer()))
                            .arg(DNNL_ARG_MEAN, r.memory(channels, mean.pointer()))
                            .arg(DNNL_ARG_VARIANCE, r.memory(channels, variance.pointer()))
                            .arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                            .arg(DNNL_ARG_SCALE, r.memory(channels, scale.pointer()))
                            .arg(DNNL_ARG_DIFF_SRC, r.memory(dst, gradient.pointer()))
                            .arg(DNNL_ARG_DIFF_SCALE, r.memory(channels, scaleGradient.pointer()))
                            .arg(DNNL_ARG_DIFF_SHIFT, r.memory(channels, shiftGradient.pointer()));
                } else {
                    normalization = null;
                    normalizationBackward = null;
                }

                if (!linear) {
                    boolean fromInput = activationInput != null;
                    int algorithm = fromInput ? Dnnl.eltwiseAlgorithm(act)
                            : act == io.argus.detector.darknet.Activation.LOGISTIC ? dnnl_eltwise_logistic_use_dst_for_bwd
                            : dnnl_eltwise_relu_use_dst_for_bwd;
                    float alpha = Dnnl.eltwiseAlpha(act);
                    dnnl_primitive_desc pd = new dnnl_primitive_desc();
                    Dnnl.check(dnnl_eltwise_forward_primitive_desc_create(pd, Dnnl.engine(), dnnl_forward_training,
                            algorithm, dst, dst, alpha, 0f, r.trainingAttr()), "activation layer " + spec.index());
                    activation = r.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_DST)
                            .arg(DNNL_ARG_SRC, r.memory(dst, activationIn.pointer()))
                            .arg(DNNL_ARG_DST, r.memory(dst, output.pointer()));
                    dnnl_primitive_desc back = new dnnl_primitive_desc();
                    Dnnl.check(dnnl_eltwise_backward_primitive_desc_create(back, Dnnl.engine(), algorithm, dst, dst, dst,
                            alpha, 0f, pd, r.trainingAttr()), "activation backward layer " + spec.index());
                    int data = fromInput ? DNNL_ARG_SRC : DNNL_ARG_DST;
                    activationBackward = r.primitive(back, scratch, data, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
                            .arg(data, r.memory(dst, fromInput ? activationInput.pointer() : output.pointer()))
                            .arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                            .arg(DNNL_ARG_DIFF_SRC, r.memory(dst, gradient.pointer()));
                } else {
                    activation = null;
                    activationBackward = null;
                }

                dnnl_primitive_desc bw = new dnnl_primitive_desc();
                Dnnl.check(dnnl_convolution_backward_weights_primitive_desc_create(bw, Dnnl.engine(),
                        dnnl_convolution_direct, src, anyWeights, bn ? null : channels, dst, strides, dilates, padL, padR,
                        fwd, r.trainingAttr()), "convolution backward weights layer " + spec.index());
                weightsBackward = bn
                        ? r.primitive(bw, scratch, DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS)
                        : r.primitive(bw, scratch, DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS);
                dnnl_memory_desc kernelDiffWeights = weightsBackward.query(dnnl_query_diff_weights_md);
                Pointer diffWeights = r.bytes(dnnl_memory_desc_get_size(kernelDiffWeights));
                weightsBackward.arg(DNNL_ARG_SRC, r.memory(src, input.pointer()))
                        .arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                        .arg(DNNL_ARG_DIFF_WEIGHTS, r.memory(kernelDiffWeights, diffWeights));
                if (!bn) weightsBackward.arg(DNNL_ARG_DIFF_BIAS, r.memory(channels, shiftGradient.pointer()));
                weightGradientOut = halfGradients
                        ? r.move(kernelDiffWeights, diffWeights, 1f, userWeights, passWeightGradient.pointer(), false, scratch)
                        : r.move(kernelDiffWeights, diffWeights, 1f, userWeights, params.weightGradient().pointer(), true,
                                scratch);

                if (inputSink != null) {
                    dnnl_primitive_desc bd = new dnnl_primitive_desc();
                    Dnnl.check(dnnl_convolution_backward_data_primitive_desc_create(bd, Dnnl.engine(),
                            dnnl_convolution_direct, src, anyWeights, dst, strides, dilates, padL, padR, fwd,
                            r.trainingAttr()), "convolution backward data layer " + spec.index());
                    dataBackward = r.primitive(bd, scratch, DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC);
                    dnnl_memory_desc dataWeights = dataBackward.query(dnnl_query_weights_md);
                    Pointer backwardWeights = params.weights().pointer();
                    if (dnnl_memory_desc_equal(dataWeights, userWeights) == 0) {
                        backwardWeights = r.bytes(dnnl_memory_desc_get_size(dataWeights));
                        weightsData = r.reorder(userWeights, params.weights().pointer(), dataWeights, backwardWeights, scratch);
                    } else {
                        weightsData = null;
                    }
                    Pointer dx = inputSink.writable() ? inputSink.gradient().pointer() : gradientScratch.pointer();
                    dataBackward.arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                            .arg(DNNL_ARG_WEIGHTS, r.memory(dataWeights, backwardWeights))
                            .arg(DNNL_ARG_DIFF_SRC, r.memory(src, dx));
                    deliver = inputSink.writable() ? null : inputSink.from(r, src, dx, 1f, src, scratch);
                } else {
                    dataBackward = null;
                    weightsData = null;
                    deliver = null;
                }
            }
        }

        @Override
        public void close() {
            resources.close();
            for (AutoCloseable c : new AutoCloseable[] {convolved, activationInput, shift, scale, mean, variance,
                    shiftGradient, scaleGradient, passWeightGradient}) {
                if (c == null) continue;
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
