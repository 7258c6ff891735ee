package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_nchw;
import static org.bytedeco.dnnl.global.dnnl.dnnl_s8;
import static org.bytedeco.dnnl.global.dnnl.dnnl_u8;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.dnnl.dnnl_stream;
import org.bytedeco.dnnl.global.dnnl;

/**
 * A network instantiated on the CPU for up to {@code maxBatch} images: every buffer allocated here, once (oneDNN
 * primitives per batch size on first use); {@link #forward(int)} then runs the layers in cfg order.
 *
 * <p>Between layers, activations are channels last (NHWC) in the network's {@link CpuPrecision}. The input is FP32
 * NCHW as Darknet's (one reorder brings it in) and the [yolo] heads come out FP32 NCHW; everything in between is
 * oneDNN primitives, so one stream runs the whole network and the Java side touches only the heads.
 *
 * <p>INT8 ({@link CpuPrecision#INT8}, with an {@link Int8Calibration}): the input is brought in as unsigned bytes
 * (scale 1/255, exact for 8-bit pictures); every other output is signed bytes at the scale its calibrated range gives,
 * except those of max pooling and upsampling (their input's scale: they only move values) and the convolutions read by
 * [yolo] alone, which write FP32 so the heads lose nothing to a last rounding. A route whose inputs differ in scale
 * rescales them into the largest.
 */
public final class CpuNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final CpuOptions options;
    private final NativeFloats input;                 // NCHW FP32, what callers fill
    private final LayerOutput inputActivations;       // the same, channels last in the network's precision
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Scratchpad scratch = new Scratchpad();
    private final WinogradWorkspace winograd = new WinogradWorkspace();
    private final LayerContext context;
    private final List<LayerOutput> outputs = new ArrayList<>();
    private final List<CpuLayer> layers = new ArrayList<>();
    private final Dnnl.Primitive[] inputReorders;
    private final java.util.Map<Integer, NativeFloats> nchwCopies = new java.util.HashMap<>();
    private final java.util.Map<Integer, Dnnl.Primitive[]> nchwReorders = new java.util.HashMap<>();
    private int lastBatch;

    public CpuNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch) {
        this(spec, weights, maxBatch, CpuOptions.DEFAULTS);
    }

    /** FP32 or BF16 ({@code options.precision()}); INT8 needs the other constructor's calibration. */
    public CpuNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, CpuOptions options) {
        this(spec, weights, maxBatch, options, null);
    }

    /** Any precision; {@code calibration} is required for INT8 and ignored otherwise. */
    public CpuNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, CpuOptions options,
                      Int8Calibration calibration) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        options.precision().requireSupport(CpuInfo.current());
        boolean int8 = options.precision() == CpuPrecision.INT8;
        if (int8 && calibration == null) {
            throw new IllegalArgumentException("CPU precision int8 needs a calibration (sample frames: "
                    + "models[].cpu.calibration, --calibration)");
        }
        if (int8 && calibration.layers() != spec.layers().size()) {
            throw new IllegalArgumentException("INT8 calibration of " + calibration.layers() + " layers for a network of "
                    + spec.layers().size());
        }
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.options = options;
        this.input = new NativeFloats((long) maxBatch * spec.inputShape().size());
        this.inputActivations = int8
                ? LayerOutput.quantized(spec.inputShape(), maxBatch, dnnl_u8, 1f / 255)
                : new LayerOutput(spec.inputShape(), maxBatch, options.precision());
        dnnl_stream stream = resources.stream();
        this.context = new LayerContext(stream, scratch, options.precision(), new ConvolutionTuner(options),
                options.winograd(), winograd);
        this.inputReorders = new Dnnl.Primitive[maxBatch + 1];
        boolean[] readByLayers = int8 ? readByLayers(spec) : null;
        for (LayerSpec l : spec.layers()) {
            if (l instanceof YoloSpec) outputs.add(null);
            else if (int8) outputs.add(aliasOrOwn(l, quantizedOutput(l, readByLayers[l.index()], calibration)));
            else outputs.add(aliasOrOwn(l, new LayerOutput(l.output(), maxBatch, options.precision())));
        }
        for (LayerSpec l : spec.layers()) layers.add(create(l, weights));
    }

    /**
     * A [route] of one whole input (an imported graph's second reference to a tensor) shares that input's buffer when
     * its own would hold the same numbers in the same type and scale: no copy per frame. Otherwise {@code own}.
     */
    private LayerOutput aliasOrOwn(LayerSpec l, LayerOutput own) {
        if (!(l instanceof RouteSpec r) || r.layers().length != 1 || !r.whole()) return own;
        LayerOutput from = r.layers()[0] < 0 ? inputActivations : outputs.get(r.layers()[0]);
        if (from == null || from.dnnlType() != own.dnnlType() || from.scale() != own.scale()) return own;
        own.close();
        return from;
    }

    /** Per layer: whether a layer other than [yolo] reads its output. */
    private static boolean[] readByLayers(NetworkSpec spec) {
        boolean[] read = new boolean[spec.layers().size()];
        for (LayerSpec l : spec.layers()) {
            if (l instanceof YoloSpec) continue;
            for (int from : l.inputs()) if (from >= 0) read[from] = true;
        }
        return read;
    }

    /** An INT8 network's output of layer {@code l} (see the class comment). */
    private LayerOutput quantizedOutput(LayerSpec l, boolean readByLayers, Int8Calibration calibration) {
        LayerOutput in = l.index() > 0 ? outputs.get(l.index() - 1) : inputActivations;
        return switch (l) {
            case ConvolutionalSpec c -> readByLayers
                    ? LayerOutput.quantized(l.output(), maxBatch, dnnl_s8, scaleOf(calibration.absMax(l.index())))
                    : LayerOutput.quantized(l.output(), maxBatch, dnnl_f32, 1f);
            case MaxPoolSpec m -> LayerOutput.quantized(l.output(), maxBatch, in.dnnlType(), in.scale());
            case UpsampleSpec u -> LayerOutput.quantized(l.output(), maxBatch, in.dnnlType(),
                    in.scale() * Math.abs(u.scale()));
            case RouteSpec r -> {
                float scale = 0;
                for (int from : r.layers()) scale = Math.max(scale, (from < 0 ? inputActivations : outputs.get(from)).scale());
                yield LayerOutput.quantized(l.output(), maxBatch, dnnl_s8, scale);
            }
            case ShortcutSpec s -> LayerOutput.quantized(l.output(), maxBatch, dnnl_s8, scaleOf(calibration.absMax(l.index())));
            case HostOpsSpec h -> readByLayers
                    ? LayerOutput.quantized(l.output(), maxBatch, dnnl_s8, scaleOf(calibration.absMax(l.index())))
                    : LayerOutput.quantized(l.output(), maxBatch, dnnl_f32, 1f);
            case YoloSpec y -> throw new IllegalStateException("[yolo] has no output buffer");
        };
    }

    /** The scale that maps [-absMax, absMax] onto [-127, 127] (a layer that wrote only zeros gets 1/127). */
    private static float scaleOf(float absMax) {
        return absMax > 0 && Float.isFinite(absMax) ? absMax / 127 : 1f / 127;
    }

    /** The output layer {@code reader} reads from layer {@code index} (-1: the input). */
    private LayerOutput out(int index, LayerSpec reader) {
        if (index < 0) return inputActivations;
        LayerOutput o = outputs.get(index);
        if (o == null) {
            throw new IllegalArgumentException("layer " + reader.index() + " (" + reader.kind() + ", line " + reader.line()
                    + ") reads [yolo] layer " + index + ": the CPU backend keeps [yolo] outputs for the decoder only");
        }
        return o;
    }

    private CpuLayer create(LayerSpec l, ModelWeights weights) {
        LayerOutput mine = outputs.get(l.index());
        return switch (l) {
            case ConvolutionalSpec c ->
                    new ConvolutionalLayer(c, weights.conv(c.index()), out(l.index() - 1, l), mine, maxBatch, context);
            case MaxPoolSpec m -> new MaxPoolLayer(m, out(l.index() - 1, l), mine, maxBatch, context);
            case RouteSpec r -> {
                LayerOutput[] ins = new LayerOutput[r.layers().length];
                for (int i = 0; i < ins.length; i++) ins[i] = out(r.layers()[i], l);
                yield new RouteLayer(r, ins, mine, maxBatch, context);
            }
            case ShortcutSpec s -> new ShortcutLayer(s, out(l.index() - 1, l), out(s.from(), l), mine, maxBatch, context);
            case UpsampleSpec u -> new UpsampleLayer(u, out(l.index() - 1, l), mine, maxBatch, context);
            case HostOpsSpec h -> {
                LayerOutput[] ins = new LayerOutput[h.layers().length];
                for (int i = 0; i < ins.length; i++) ins[i] = out(h.layers()[i], l);
                yield new HostOpsLayer(h, ins, mine, maxBatch, context);
            }
            case YoloSpec y -> new YoloLayer(y, out(l.index() - 1, l), maxBatch, context);
        };
    }

    public NetworkSpec spec() { return spec; }

    /** Layer {@code index} (for tests in this package). */
    CpuLayer layer(int index) { return layers.get(index); }

    public int maxBatch() { return maxBatch; }

    public CpuOptions options() { return options; }

    /** The batch input, NCHW planar RGB in [0,1] (FP32 in every precision); image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return input.buffer(); }

    public void forward(int n) {
        check(n);
        bringInput(n);
        for (int i = 0; i < layers.size(); i++) layers.get(i).forward(n);   // index loop: no Iterator per frame
        Dnnl.check(dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
        lastBatch = n;
    }

    private void bringInput(int n) {
        Dnnl.Primitive p = inputReorders[n];
        if (p == null) {
            var s = spec.inputShape();
            p = inputReorders[n] = resources.reorder(
                    resources.desc(new long[] {n, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw), input.pointer(), 1f,
                    inputActivations.desc(resources, n), inputActivations.pointer(), inputActivations.scale(), scratch);
        }
        p.execute(context.stream());
    }

    /**
     * Runs the network once layer by layer and returns each layer's wall time in nanoseconds (for profiling: where
     * does the time go). Same results as {@link #forward(int)}.
     */
    public long[] forwardTimed(int n) {
        check(n);
        bringInput(n);
        long[] ns = new long[layers.size()];
        for (int i = 0; i < layers.size(); i++) {
            long t = System.nanoTime();
            layers.get(i).forward(n);
            Dnnl.check(dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
            ns[i] = System.nanoTime() - t;
        }
        lastBatch = n;
        return ns;
    }

    private void check(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
    }

    /**
     * A copy of layer {@code index}'s output for image {@code image} of the last forward pass, FP32 in Darknet's NCHW
     * order whatever the precision (for tests and tools; allocates).
     */
    public float[] outputImage(int index, int image) {
        if (image < 0 || image >= lastBatch) throw new IndexOutOfBoundsException("image " + image + " of " + lastBatch);
        LayerSpec l = spec.layers().get(index);
        int size = l.output().size();
        float[] out = new float[size];
        if (layers.get(index) instanceof YoloLayer y) {
            y.head().get(image * size, out);
            return out;
        }
        LayerOutput o = outputs.get(index);
        try (Dnnl.Resources r = new Dnnl.Resources(); Scratchpad temporary = new Scratchpad();
             NativeFloats nchw = new NativeFloats((long) lastBatch * size)) {
            var s = l.output();
            r.reorder(o.desc(r, lastBatch), o.pointer(), o.scale(),
                    r.desc(new long[] {lastBatch, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw), nchw.pointer(), 1f,
                    temporary).execute(context.stream());
            Dnnl.check(dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
            nchw.buffer().get(image * size, out);
        }
        return out;
    }

    /** A loop body over {@code [from, to)} for {@link #forRange}. */
    @FunctionalInterface
    public interface Range {
        void run(int from, int to);
    }

    /**
     * Runs {@code body} over {@code [0, count)} in one contiguous range per thread of the engine (the threads oneDNN
     * runs the layers on sleep meanwhile): for host work between forward passes, such as an imported graph's decoding.
     */
    public void forRange(int count, Range body) {
        winograd.threads().forRange(count, (worker, from, to) -> body.run(from, to));
    }

    /**
     * Layer {@code index}'s output for the images of the last forward pass, FP32 in NCHW order (image i at i x the layer's
     * output size), whatever the network's layout and precision: for what runs after the layers on the host (an
     * imported graph's tail). The buffer and its reorder are made on first use and reused.
     */
    public FloatBuffer outputNchw(int index) {
        if (lastBatch == 0) throw new IllegalStateException("no forward pass yet");
        LayerOutput o = outputs.get(index);
        if (o == null) return output(index);
        NativeFloats copy = nchwCopies.computeIfAbsent(index, k -> new NativeFloats((long) maxBatch * o.shape().size()));
        Dnnl.Primitive[] perBatch = nchwReorders.computeIfAbsent(index, k -> new Dnnl.Primitive[maxBatch + 1]);
        Dnnl.Primitive p = perBatch[lastBatch];
        if (p == null) {
            var s = o.shape();
            p = perBatch[lastBatch] = resources.reorder(o.desc(resources, lastBatch), o.pointer(), o.scale(),
                    resources.desc(new long[] {lastBatch, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw),
                    copy.pointer(), 1f, scratch);
        }
        p.execute(context.stream());
        Dnnl.check(dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
        return copy.buffer();
    }

    /**
     * Adds the last forward's first image to {@code absMax}: per layer, the largest |value| so far (FP32 networks
     * only; for {@link Int8Calibration}).
     */
    void absMaxInto(float[] absMax) {
        if (options.precision() != CpuPrecision.FP32) throw new IllegalStateException("calibration runs in FP32");
        for (int i = 0; i < outputs.size(); i++) {
            LayerOutput o = outputs.get(i);
            if (o == null) {
                absMax[i] = Float.NaN;
                continue;
            }
            int size = o.shape().size();
            org.bytedeco.javacpp.FloatPointer fp = new org.bytedeco.javacpp.FloatPointer(o.pointer());
            fp.capacity(size);
            fp.limit(size);
            FloatBuffer values = fp.asBuffer();
            float m = absMax[i];
            for (int k = 0; k < size; k++) m = Math.max(m, Math.abs(values.get(k)));
            absMax[i] = m;
        }
    }

    /** A [yolo] layer's output after the last forward, FP32 NCHW: image i at i x the layer's output size. */
    public FloatBuffer output(int index) {
        if (!(layers.get(index) instanceof YoloLayer y)) {
            LayerSpec l = spec.layers().get(index);
            throw new IllegalArgumentException("layer " + index + " is a " + l.kind() + ": output(index) gives [yolo] "
                    + "heads; use outputImage(index, image) for any layer");
        }
        return y.head();
    }

    /**
     * One convolution's implementation for batch size {@code n}, as chosen: its kind ("3x3/1"), its size ("64->128
     * 104x104": channels in and out, input height x width), the implementation's key, whether it came from the tuning
     * cache, and what each candidate took when timed now (ms).
     */
    public record ConvolutionChoice(int layer, String shape, String size, String implementation, boolean fromCache,
                                    java.util.Map<String, Double> timesMs) {}

    /** The implementation every convolution runs at batch size {@code n} (after a forward of that size). */
    public List<ConvolutionChoice> convolutionChoices(int n) {
        List<ConvolutionChoice> out = new ArrayList<>();
        for (CpuLayer l : layers) {
            if (!(l instanceof ConvolutionalLayer c) || c.choice(n) == null) continue;
            ConvolutionalSpec s = c.spec();
            String shape = s.size() + "x" + s.size() + "/" + s.strideX() + (s.groups() > 1 ? " g" + s.groups() : "");
            ConvolutionTuner.Choice ch = c.choice(n);
            String size = s.input().channels() + "->" + s.filters() + " " + s.input().height() + "x" + s.input().width();
            out.add(new ConvolutionChoice(s.index(), shape, size, ch.candidate().key(), ch.fromCache(), ch.timesMs()));
        }
        return out;
    }

    @Override
    public void close() {
        for (CpuLayer l : layers) l.close();
        java.util.Set<LayerOutput> closed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        closed.add(inputActivations);
        for (LayerOutput o : outputs) if (o != null && closed.add(o)) o.close();   // shared by aliasing routes
        inputActivations.close();
        for (NativeFloats f : nchwCopies.values()) f.close();
        input.close();
        winograd.close();
        scratch.close();
        resources.close();
    }
}
