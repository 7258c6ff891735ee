package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaGraphDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphExecDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphInstantiate;
import static org.bytedeco.cuda.global.cudart.cudaGraphLaunch;
import static org.bytedeco.cuda.global.cudart.cudaStreamBeginCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamCaptureModeThreadLocal;
import static org.bytedeco.cuda.global.cudart.cudaStreamEndCapture;

import io.argus.detector.cuda.layers.Convolutional;
import io.argus.detector.cuda.layers.Convolutional.Epilogue;
import io.argus.detector.cuda.layers.GpuLayer;
import io.argus.detector.cuda.layers.HostOpsLayer;
import io.argus.detector.cuda.layers.MaxPool;
import io.argus.detector.cuda.layers.Route;
import io.argus.detector.cuda.layers.Shortcut;
import io.argus.detector.cuda.layers.Upsample;
import io.argus.detector.cuda.layers.Yolo;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.onnx.OnnxHead;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudaLog;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.gpu.Workspace;
import io.argus.gpu.cudnn.ConvolutionPlanner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUgraph_st;

/**
 * A network instantiated on one GPU in FP16 NHWC for up to {@code maxBatch} images. Every buffer is allocated here,
 * once; every convolution is planned here for every batch bucket ({@link BatchBuckets}: powers of two up to
 * maxBatch), from the device's plans, the disk plan cache or by timing cuDNN's engines, and with graphs on, each
 * bucket's forward is captured here too: nothing is planned once the network serves. {@link #forward(int)} runs n
 * images on the smallest bucket holding them, enqueuing the whole network on the network's stream (replaying the
 * bucket's CUDA graph).
 *
 * <p>An imported ONNX model runs the same layer classes; its graph's tail (the heads' decoding) runs after the layers
 * as its family's kernel ({@link OnnxTailKernel}, inside the graph) when that kernel matches the graph's tail at load,
 * else on the host from the layers' outputs ({@link #tailProblem} says why). Its host-run layers ({@link HostOpsLayer})
 * make the network run layer by layer, without CUDA graphs.
 */
public final class CudaNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final CudaOptions options;
    private final DeviceContext ctx;
    private final GpuStream stream;
    private final Workspace workspace = new Workspace();
    private final List<GpuBuffer> buffers = new ArrayList<>();
    private final TensorView input;
    private final List<GpuLayer> layers = new ArrayList<>();
    private final TensorView[] views;
    private final Map<Integer, TensorView> ownViews = new HashMap<>();
    private final Map<Integer, TensorView> routeViews = new HashMap<>();
    private final Map<Integer, TensorView> fusedShortcuts = new HashMap<>();
    private final Set<Integer> fusedAway = new HashSet<>();
    private final List<Yolo> heads = new ArrayList<>();
    private final int[] buckets;
    private final Map<Integer, CUgraphExec_st> graphs = new HashMap<>();
    private final BufferPlan plan;
    private final Set<Integer> tailInputs = new HashSet<>();
    private OnnxTailKernel tail;
    private String tailProblem;
    private int graphWorkspaceVersion = -1;
    private String graphProblem;
    private final float[] outputRanges;
    private int fp8Layers;
    private GpuBuffer fp8Inputs;   // E4M3 inputs of the FP8 convolutions, one at a time (null in FP16)

    public CudaNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, CudaOptions options) {
        this(spec, weights, maxBatch, options, null);
    }

    /** {@code head}: an imported model's head (its tail runs after the layers), null for a Darknet network. */
    public CudaNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, CudaOptions options, OnnxHead head) {
        this(spec, weights, maxBatch, options, head, null);
    }

    /**
     * {@code outputRanges}: in FP8 and AUTO precision, every layer output's largest magnitude on the calibration
     * frames ({@link CudaBackend#outputRanges}), which scale each convolution's input; null in FP16.
     */
    public CudaNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch, CudaOptions options, OnnxHead head,
                       float[] outputRanges) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        if (options.precision().quantizes() && (outputRanges == null || outputRanges.length != spec.layers().size())) {
            throw new IllegalArgumentException("CUDA precision " + options.precision().label() + " needs the activation "
                    + "range of each of the " + spec.layers().size() + " layers, measured on calibration frames; got "
                    + (outputRanges == null ? "none" : outputRanges.length));
        }
        this.outputRanges = outputRanges == null ? null : outputRanges.clone();
        Shape in = spec.inputShape();
        if (in.channels() != 3) {
            throw new IllegalArgumentException(spec.file() + ": [net] channels=" + in.channels()
                    + ", the CUDA backend takes 3-channel (RGB) input");
        }
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.options = options;
        this.ctx = DeviceContext.of(options.device());
        if (options.precision() == CudaPrecision.FP8 && ctx.device().computeCapability() < 89) {
            throw new CudaException("CUDA precision fp8 needs FP8 tensor cores (compute capability 8.9 or later); "
                    + ctx.device() + " has none: use fp16, or auto (FP8 where a GPU has it)");
        }
        // after DeviceContext.of made the device current: a stream belongs to the device current at its creation.
        // Live detection goes first when a fine-tune shares the GPU (its stream is at the lowest priority).
        this.stream = new GpuStream(GpuStream.Priority.HIGHEST);
        this.views = new TensorView[spec.layers().size()];
        try {
            int pixel = inputPixelStride(spec);
            this.input = new TensorView(allocate((long) pixel * in.plane(), "network input"), (long) pixel * in.plane(),
                    pixel, 0, 3, in.height(), in.width());
            this.plan = BufferPlan.of(spec, options.inPlace());
            if (head != null) for (int l : head.tail().inputLayers()) tailInputs.add(l);
            for (LayerSpec l : spec.layers()) {
                if (l instanceof HostOpsSpec && graphProblem == null) {
                    graphProblem = "layer " + l.index() + " runs on the host";
                }
            }
            planRoutes();
            if (options.precision().quantizes()) fp8Inputs = GpuBuffer.device(fp8InputBytes(), "FP8 layer inputs");
            this.buckets = BatchBuckets.of(maxBatch);
            ConvolutionPlanner.Counts before = ConvolutionPlanner.of(ctx).counts();
            long t0 = System.nanoTime();
            synchronized (ctx.lock()) {
                ctx.useStream(stream);
                for (LayerSpec l : spec.layers()) {   // each convolution chooses its form at maxBatch
                    GpuLayer layer = build(l, weights);
                    layers.add(layer);
                    if (layer instanceof Convolutional c && c.fp8()) fp8Layers++;
                    views[l.index()] = layer.output();
                }
                for (int b : buckets) {
                    for (GpuLayer l : layers) l.prepare(b, stream);
                }
                stream.synchronize();
                if (fp8Inputs != null && fp8Layers == 0) {   // auto kept FP16 everywhere
                    fp8Inputs.close();
                    fp8Inputs = null;
                }
                // the timing transient goes: the workspace is what the chosen plans need, before graphs take it
                long need = 0;
                for (GpuLayer l : layers) if (l instanceof Convolutional c) need = Math.max(need, c.workspaceNeeded());
                workspace.fit(need);
                if (head != null) {
                    String[] problem = new String[1];
                    tail = OnnxTailKernel.create(this, head, maxBatch, problem);
                    tailProblem = problem[0];
                    if (tail == null) CudaLog.info(spec.name() + ": the graph's tail runs on the host: " + tailProblem);
                }
            }
            long planned = System.nanoTime();
            if (options.graphs()) {
                synchronized (ctx.lock()) {
                    ctx.useStream(stream);
                    for (int b : buckets) if (graphProblem == null) capture(b);
                    stream.synchronize();
                }
            }
            long done = System.nanoTime();
            CudaLog.info(String.format(java.util.Locale.ROOT, "%s on %s: batch buckets %s planned in %d ms (%s)%s%s",
                    spec.name(), ctx.device(), java.util.Arrays.toString(buckets), (planned - t0) / 1_000_000,
                    ConvolutionPlanner.of(ctx).counts().minus(before).describe(),
                    options.precision().quantizes() ? String.format(java.util.Locale.ROOT,
                            ", precision %s: %d of %d convolutions in FP8", options.precision().label(), fp8Layers,
                            spec.convolutionalLayers().size()) : "",
                    options.graphs() ? String.format(java.util.Locale.ROOT, ", graphs captured in %d ms",
                            (done - planned) / 1_000_000) : ""));
            if (CudaLog.verbose()) CudaLog.info(spec.name() + " layers:\n" + describe());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * The E4M3 input of the largest FP8 candidate at the largest batch: one area serves every FP8 convolution, as they
     * run one after another on this network's stream and each quantizes its input just before it runs.
     */
    private long fp8InputBytes() {
        long most = 0;
        for (ConvolutionalSpec c : spec.convolutionalLayers()) {
            if (c.index() == 0) continue;
            Shape in = c.input();
            most = Math.max(most, Convolutional.fp8InputBytes(c, (long) in.height() * in.width(), maxBatch));
        }
        return Math.max(most, 16);
    }

    /**
     * Halves per input pixel: 4 (RGB and a zero, 8 bytes) where only a plain convolution reads the image, as layer 0
     * of every Darknet network does: half the bytes of 8 for the preprocess to write and the convolution to read, and
     * cuDNN runs a 4-channel first layer faster than an 8-channel one (yolov4-tiny's at batch 64 on an H200: 0.149 vs
     * 0.214 ms, scripts/gpu/layer0_forms_bench.py). 8 (16-byte vectors) where another kind of layer reads it.
     */
    static int inputPixelStride(NetworkSpec spec) {
        return spec.layers().get(0) instanceof ConvolutionalSpec c && c.groups() == 1 ? 4 : 8;
    }

    private long allocate(long halvesPerImage, String what) {
        GpuBuffer b = GpuBuffer.device(2L * halvesPerImage * maxBatch, what);
        buffers.add(b);
        return b.address();
    }

    private TensorView own(int layer) {
        return ownViews.computeIfAbsent(layer, i -> {
            Shape s = spec.layers().get(i).output();
            long base = allocate((long) TensorView.padded(s.channels()) * s.plane(), "output of layer " + i);
            return TensorView.own(base, s.channels(), s.height(), s.width());
        });
    }

    /** Buffers of the concatenating routes, outermost first, so a route placed inside another takes its slice. */
    private void planRoutes() {
        List<LayerSpec> all = spec.layers();
        for (int r = all.size() - 1; r >= 0; r--) {
            if (!(all.get(r) instanceof RouteSpec route) || BufferPlan.isView(route)) continue;
            BufferPlan.Slot slot = plan.slot(r);
            routeViews.put(r, slot != null
                    ? routeViews.get(slot.route()).slice(slot.channelOffset(), route.output().channels())
                    : own(r));
        }
    }

    private TensorView slotView(int layer) {
        BufferPlan.Slot slot = plan.slot(layer);
        if (slot == null) return null;
        return routeViews.get(slot.route()).slice(slot.channelOffset(), spec.layers().get(layer).output().channels());
    }

    private TensorView viewOf(int layer, LayerSpec reader) {
        if (layer < 0) return input;
        TensorView v = views[layer];
        if (v == null) {
            throw new IllegalArgumentException(spec.file() + " line " + reader.line() + ": layer " + reader.index()
                    + " reads layer " + layer + " (" + spec.layers().get(layer).kind() + "), which the CUDA backend "
                    + "cannot read as a feature map");
        }
        return v;
    }

    private GpuLayer build(LayerSpec l, ModelWeights weights) {
        int i = l.index();
        return switch (l) {
            case ConvolutionalSpec c -> convolution(c, weights);
            case MaxPoolSpec m -> new MaxPool(m, viewOf(i - 1, l), placedOrOwn(i), ctx);
            case UpsampleSpec u -> new Upsample(u, viewOf(i - 1, l), placedOrOwn(i), ctx);
            case ShortcutSpec s -> fusedShortcuts.containsKey(i)
                    ? Shortcut.fused(s, fusedShortcuts.get(i))
                    : new Shortcut(s, viewOf(i - 1, l), viewOf(s.from(), l), placedOrOwn(i), ctx);
            case RouteSpec r -> {
                TensorView[] ins = new TensorView[r.layers().length];
                for (int k = 0; k < ins.length; k++) ins[k] = viewOf(r.layers()[k], l);
                TensorView out = BufferPlan.isView(r) ? Route.viewOf(r, ins[0]) : routeViews.get(i);
                yield new Route(r, ins, out, ctx);
            }
            case HostOpsSpec h -> {
                TensorView[] ins = new TensorView[h.layers().length];
                for (int k = 0; k < ins.length; k++) ins[k] = viewOf(h.layers()[k], l);
                yield new HostOpsLayer(h, ins, own(i));
            }
            case YoloSpec y -> {
                Yolo h = new Yolo(y, viewOf(i - 1, l), maxBatch, ctx);
                heads.add(h);
                yield h;
            }
        };
    }

    private TensorView placedOrOwn(int layer) {
        TensorView slot = slotView(layer);
        return slot != null ? slot : own(layer);
    }

    private Convolutional convolution(ConvolutionalSpec c, ModelWeights weights) {
        int i = c.index();
        Convolutional conv = new Convolutional(c, weights.conv(i), viewOf(i - 1, c), ctx, workspace,
                options.planSettings());
        conv.directChoice(options.direct() != CudaOptions.DirectConvolution.NEVER,
                options.direct() == CudaOptions.DirectConvolution.ALWAYS);
        if (options.precision().quantizes() && i > 0) {   // the image (layer 0's input) has 3 channels: FP16
            conv.fp8Choice(weights.conv(i), outputRanges[i - 1], options.precision() == CudaPrecision.FP8, fp8Inputs);
        }
        CudaOptions.Fusion fusion = options.fusion();
        ShortcutSpec next = fusableShortcut(i);
        if (fusion == CudaOptions.Fusion.ALL && next != null) {
            TensorView residual = viewOf(next.from(), c);
            TensorView out = placedOrOwn(i + 1);
            boolean ok = conv.configure(maxBatch, out, Epilogue.BIAS_ACTIVATION_RESIDUAL, residual, next.activation(),
                    stream);
            if (!ok && slotView(i + 1) != null) {
                out = own(i + 1);
                ok = conv.configure(maxBatch, out, Epilogue.BIAS_ACTIVATION_RESIDUAL, residual, next.activation(),
                        stream);
            }
            if (ok) {
                fusedShortcuts.put(i + 1, out);
                fusedAway.add(i);
                return conv;
            }
        }
        if (fusion != CudaOptions.Fusion.NONE && configure(conv, i, Epilogue.BIAS_ACTIVATION)) return conv;
        if (configure(conv, i, Epilogue.NONE)) return conv;
        throw new CudaException(spec.file() + " line " + c.line() + ": cuDNN has no engine for layer " + i + " ("
                + c.size() + "x" + c.size() + " convolution " + c.input() + " -> " + c.output() + ", stride "
                + c.strideX() + ", groups " + c.groups() + ") on " + ctx.device());
    }

    private boolean configure(Convolutional conv, int i, Epilogue e) {
        TensorView slot = slotView(i);
        if (slot != null && conv.configure(maxBatch, slot, e, null, null, stream)) return true;
        return conv.configure(maxBatch, own(i), e, null, null, stream);
    }

    /**
     * The [shortcut] right after convolution i when nothing else reads the convolution's output (an imported graph's
     * tail counts as a reader).
     */
    private ShortcutSpec fusableShortcut(int i) {
        List<LayerSpec> all = spec.layers();
        if (i + 1 >= all.size() || !(all.get(i + 1) instanceof ShortcutSpec s) || s.from() == i
                || tailInputs.contains(i)) return null;
        for (LayerSpec l : all) {
            if (l.index() == i + 1) continue;
            for (int in : l.inputs()) if (in == i) return null;
        }
        return s;
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    public GpuDevice device() { return ctx.device(); }

    public GpuStream stream() { return stream; }

    DeviceContext context() { return ctx; }

    List<Yolo> heads() { return heads; }

    /** Where layer {@code layer}'s output lives (not for [yolo] layers or convolutions fused into a shortcut). */
    TensorView layerView(int layer) {
        if (fusedAway.contains(layer) || views[layer] == null) {
            throw new IllegalArgumentException("layer " + layer + " has no feature map of its own on the GPU");
        }
        return views[layer];
    }

    /** An imported model's tail kernel, run after the layers; null for a Darknet network or a tail on the host. */
    OnnxTailKernel tail() { return tail; }

    /** Why an imported model's tail runs on the host; null when its kernel runs (or for a Darknet network). */
    public String tailProblem() { return tailProblem; }

    /** The input tensor: FP16 NHWC, 8 channels per pixel (RGB + 5 zeros). */
    public TensorView input() { return input; }

    /** How many convolutions run in FP8 (0 in FP16 precision). */
    public int fp8Convolutions() { return fp8Layers; }

    /** Convolution FLOPs of one image. */
    public long flops() { return spec.flops(); }

    /** Why CUDA graphs are off for this network, or null while they are used (or not asked for). */
    public String graphProblem() { return graphProblem; }

    /** The batch sizes planned at open; a batch runs on the smallest one holding it. */
    public int[] buckets() { return buckets.clone(); }

    /**
     * Enqueues the forward pass of the first {@code n} images on {@link #stream()}; does not wait. It runs on n's
     * bucket: images n..bucket-1 are computed from whatever the input holds there and their outputs are ignored.
     */
    public void forward(int n) {
        int b = BatchBuckets.bucket(n, maxBatch);
        ctx.device().makeCurrent();
        synchronized (ctx.lock()) {
            ctx.useStream(stream);
            if (options.graphs() && graphProblem == null) {
                if (graphWorkspaceVersion != workspace.version()) {
                    for (CUgraphExec_st g : graphs.values()) cudaGraphExecDestroy(g);
                    graphs.clear();
                    graphWorkspaceVersion = workspace.version();
                }
                CUgraphExec_st exec = graphs.get(b);
                if (exec == null) exec = capture(b);
                if (exec != null) {
                    Status.cuda(cudaGraphLaunch(exec, stream.handle()), "cudaGraphLaunch");
                    return;
                }
            }
            runLayers(b);
        }
    }

    /** Enqueues the forward pass layer by layer, without a CUDA graph (to measure what graphs save). */
    public void forwardWithoutGraph(int n) {
        int b = BatchBuckets.bucket(n, maxBatch);
        ctx.device().makeCurrent();
        synchronized (ctx.lock()) {
            ctx.useStream(stream);
            runLayers(b);
        }
    }

    /** Enqueues every layer directly (what a graph replays). */
    void runLayers(int n) {
        for (GpuLayer l : layers) l.forward(n, stream);
        if (tail != null) tail.forward(n, stream);
    }

    private CUgraphExec_st capture(int n) {
        runLayers(n);   // once outside capture: lazy initialisation inside cuDNN happens here
        stream.synchronize();
        Status.cuda(cudaStreamBeginCapture(stream.handle(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        CUgraph_st graph = new CUgraph_st();
        try {
            runLayers(n);
        } catch (RuntimeException e) {
            cudaStreamEndCapture(stream.handle(), graph);
            if (!graph.isNull()) cudaGraphDestroy(graph);
            cudaGetLastError();
            graphProblem = "capture failed: " + e.getMessage();
            CudaLog.info("CUDA graphs off for " + spec.name() + ": " + graphProblem);
            return null;
        }
        int s = cudaStreamEndCapture(stream.handle(), graph);
        if (s != 0) {
            cudaGetLastError();
            graphProblem = "cudaStreamEndCapture returned " + s;
            CudaLog.info("CUDA graphs off for " + spec.name() + ": " + graphProblem);
            return null;
        }
        CUgraphExec_st exec = new CUgraphExec_st();
        s = cudaGraphInstantiate(exec, graph, 0L);
        cudaGraphDestroy(graph);
        if (s != 0) {
            cudaGetLastError();
            graphProblem = "cudaGraphInstantiate returned " + s;
            CudaLog.info("CUDA graphs off for " + spec.name() + ": " + graphProblem);
            return null;
        }
        graphs.put(n, exec);
        graphWorkspaceVersion = workspace.version();
        return exec;
    }

    /** Writes image {@code image} of the input from planar RGB floats (3 x H x W), as the CPU network takes it. */
    public void setInput(int image, float[] planarRgb) {
        int plane = input.pixels();
        if (planarRgb.length != 3 * plane) {
            throw new IllegalArgumentException("input of " + planarRgb.length + " floats, expected 3 x " + plane);
        }
        int pixel = input.pixelStride();
        short[] nhwc = new short[pixel * plane];
        for (int c = 0; c < 3; c++) {
            for (int p = 0; p < plane; p++) nhwc[pixel * p + c] = Float.floatToFloat16(planarRgb[c * plane + p]);
        }
        stream.synchronize();
        Transfers.upload(input.base() + (long) image * input.imageBytes(), nhwc);
    }

    /**
     * Output of layer {@code layer} for image {@code image} of the last forward, as FP32 in Darknet's planar layout
     * (C x H x W). Null for a convolution whose output only exists inside its fused shortcut. [yolo] layers give
     * their activated output.
     */
    public float[] layerOutput(int layer, int image) {
        stream.synchronize();
        if (spec.layers().get(layer) instanceof YoloSpec) {
            for (int h = 0; h < heads.size(); h++) if (heads.get(h).spec().index() == layer) return headOutput(h, image);
        }
        if (fusedAway.contains(layer)) return null;
        TensorView v = views[layer];
        short[] halves = Transfers.downloadHalves(v.base() + (long) image * v.imageBytes(), (int) v.imageStride());
        int plane = v.pixels();
        float[] out = new float[v.channels() * plane];
        for (int c = 0; c < v.channels(); c++) {
            for (int p = 0; p < plane; p++) {
                out[c * plane + p] = Float.float16ToFloat(halves[p * v.pixelStride() + v.channelOffset() + c]);
            }
        }
        return out;
    }

    /** Image {@code image} of the input tensor as planar RGB floats (3 x H x W), as the CPU network takes it. */
    public float[] inputImage(int image) {
        stream.synchronize();
        int plane = input.pixels();
        int pixel = input.pixelStride();
        short[] nhwc = Transfers.downloadHalves(input.base() + (long) image * input.imageBytes(), pixel * plane);
        float[] out = new float[3 * plane];
        for (int c = 0; c < 3; c++) {
            for (int p = 0; p < plane; p++) out[c * plane + p] = Float.float16ToFloat(nhwc[pixel * p + c]);
        }
        return out;
    }

    /** Activated output of [yolo] head {@code head} (cfg order) for one image, Darknet layout, FP32. */
    public float[] headOutput(int head, int image) {
        stream.synchronize();
        Yolo h = heads.get(head);
        int size = h.yolo().output().size();
        return Transfers.downloadFloats(h.address() + 4L * image * size, size);
    }

    /** One line per layer: what runs (cuDNN engine and fusion, our kernels, in-place routes). */
    public String describe() {
        StringBuilder s = new StringBuilder();
        for (GpuLayer l : layers) {
            s.append(String.format("%4d %-14s %s%n", l.spec().index(), l.spec().kind(), l.describe()));
        }
        s.append("routes written in place: ").append(plan.placedCount()).append(" inputs");
        if (tail != null) s.append("\ntail: ").append(tail.describe());
        else if (tailProblem != null) s.append("\ntail on the host: ").append(tailProblem);
        return s.toString();
    }

    @Override
    public void close() {
        for (CUgraphExec_st g : graphs.values()) cudaGraphExecDestroy(g);
        graphs.clear();
        for (GpuLayer l : layers) l.close();
        layers.clear();
        if (tail != null) tail.close();
        tail = null;
        for (GpuBuffer b : buffers) b.close();
        buffers.clear();
        if (fp8Inputs != null) fp8Inputs.close();
        fp8Inputs = null;
        workspace.close();
        stream.close();
    }
}
