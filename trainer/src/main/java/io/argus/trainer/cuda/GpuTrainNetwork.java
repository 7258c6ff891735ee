package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemsetAsync;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.cuda.layers.Convolutional;
import io.argus.detector.cuda.layers.GpuLayer;
import io.argus.detector.cuda.layers.MaxPool;
import io.argus.detector.cuda.layers.Route;
import io.argus.detector.cuda.layers.Shortcut;
import io.argus.detector.cuda.layers.Upsample;
import io.argus.gpu.DeviceMemory;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.ElementType;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.gpu.cudnn.Numerics;
import io.argus.gpu.cudnn.PlanSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A network instantiated for training on one GPU for up to {@code maxBatch} images: the feature maps (and, per
 * convolution, its pre-normalization output z) in one activation allocation, the layers' gradients in one gradient
 * allocation laid out by a {@link GradientPlan} (tensors that are never live at the same time in the backward pass
 * share bytes, and each is cleared just before it becomes live; during the forward pass, the outputs no backward
 * reads live there instead of with the feature maps), the loss's per-pass scratch in a third. A
 * single-input [route] without groups is the same tensors as its input (its consumers add straight into the input's
 * gradient). All work is enqueued in layer order on the context's stream.
 */
final class GpuTrainNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final GpuTrainContext ctx;
    private final ParameterArena arena;
    private final TensorView input;
    private final TensorView[] outputs;
    private final TensorView[] gradients;
    private final List<GpuLayer> layers = new ArrayList<>();
    private final List<GpuYoloLoss> yoloLosses = new ArrayList<>();
    private final GpuBuffer activations;
    private final GpuBuffer gradientArena;
    private final GpuBuffer scratch;
    private final long lossSums;
    private final GradientPlan gradientPlan;

    GpuTrainNetwork(NetworkSpec spec, int maxBatch, ParameterArena arena, GpuTrainContext ctx) {
        this(spec, maxBatch, arena, ctx, false);
    }

    /**
     * {@code keepGradients}: every layer's gradient in bytes of its own (the whole-network sum), and every output with
     * the feature maps, so all of them can be read after a pass ({@link #gradient}, {@link #output}); otherwise the
     * gradient arena is the planned peak of live gradients and also holds the forward-only outputs.
     */
    GpuTrainNetwork(NetworkSpec spec, int maxBatch, ParameterArena arena, GpuTrainContext ctx, boolean keepGradients) {
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.ctx = ctx;
        this.arena = arena;
        validate(spec);
        int count = spec.layers().size();
        this.outputs = new TensorView[count];
        this.gradients = new TensorView[count];
        int bytes = ctx.precision.bytes();
        ElementType type = ctx.precision.storage();
        Shape in = spec.inputShape();

        // sizes first: activations (input, z and y), gradients (planned), per-pass scratch, per-layer scalars, heads
        this.gradientPlan = GradientPlan.of(spec, maxBatch, bytes, ctx.options.overwriteGradients(), keepGradients);
        long act = (long) maxBatch * in.plane() * 8 * bytes;
        long grad = gradientPlan.bytes();
        long scratchBytes = 64;   // the 5 loss sums (doubles), rounded up
        long scalars = 0;
        int maxStride = 8;
        int heads = 0;
        for (LayerSpec l : spec.layers()) {
            long t = GradientPlan.packedBytes(l.output(), maxBatch, bytes);
            switch (l) {
                case ConvolutionalSpec c -> {
                    act += gradientPlan.forwardOnly(l.index()) ? t : 2 * t;   // z; y unless forward-only
                    scalars += Convolutional.scalarBytes(TensorView.padded(c.filters()));
                }
                case RouteSpec r when isAlias(r) -> { }
                case YoloSpec y -> {
                    scratchBytes += align(GpuYoloLoss.scratchBytes(y, maxBatch));
                    heads++;
                }
                default -> act += gradientPlan.forwardOnly(l.index()) ? 0 : t;
            }
            maxStride = Math.max(maxStride, TensorView.padded(l.output().channels()));
        }
        DeviceMemory mem = ctx.memory;
        this.activations = mem.allocate(act, "feature maps");
        // the gradient arena also lends its idle bytes to the forward-only outputs (it is at least as large as they need)
        this.gradientArena = mem.allocate(grad, "feature-map gradients");
        this.scratch = mem.allocate(scratchBytes, "loss scratch");
        GpuBuffer scalarBuffer = mem.allocate(Math.max(16, scalars), "per-channel batch statistics");
        GpuBuffer headBuffer = mem.allocate(Math.max(16, (long) heads * GpuYoloLoss.HEAD_BYTES), "yolo head constants");
        ctx.partials = mem.allocate(4L * ctx.reductionBlocks() * 2 * maxStride, "reduction rows").address();
        this.lossSums = scratch.address();

        long actAt = activations.address();
        long gradAt = gradientArena.address();
        long scratchAt = scratch.address() + 64;
        long scalarAt = scalarBuffer.address();
        long headAt = headBuffer.address();
        this.input = TensorView.own(actAt, 3, in.height(), in.width(), type);
        actAt += input.bytes(maxBatch);
        for (LayerSpec l : spec.layers()) {
            int i = l.index();
            Shape s = l.output();
            GpuLayer layer;
            if (l instanceof RouteSpec r && isAlias(r)) {
                int src = r.layers()[0];
                outputs[i] = out(src);
                gradients[i] = grad(src);
                layer = new AliasRoute(r, outputs[i], gradients[i]);
            } else if (l instanceof YoloSpec y) {
                TensorView x = out(i - 1);
                TensorView dx = grad(i - 1);
                GpuYoloLoss loss = new GpuYoloLoss(y, x, dx, spec.net().width(), spec.net().height(), maxBatch,
                        headAt, scratchAt, lossSums, ctx);
                headAt += GpuYoloLoss.HEAD_BYTES;
                scratchAt += align(GpuYoloLoss.scratchBytes(y, maxBatch));
                yoloLosses.add(loss);
                layer = loss;
            } else {
                boolean forwardOnly = gradientPlan.forwardOnly(i);
                TensorView y = TensorView.own(forwardOnly ? gradAt + gradientPlan.outputOffset(i) : actAt,
                        s.channels(), s.height(), s.width(), type);
                if (!forwardOnly) actAt += y.bytes(maxBatch);
                TensorView dy = TensorView.own(gradAt + gradientPlan.offset(i), y.channels(), y.height(), y.width(),
                        type);
                outputs[i] = y;
                gradients[i] = dy;
                layer = switch (l) {
                    case ConvolutionalSpec c -> {
                        TensorView z = TensorView.own(actAt, y.channels(), y.height(), y.width(), type);
                        actAt += z.bytes(maxBatch);
                        boolean sole = gradientPlan.soleWriter(i);
                        Convolutional conv = new Convolutional(c, out(i - 1), grad(i - 1), z, y, dy,
                                training(c, arena.slot(i), scalarAt, sole));
                        scalarAt += Convolutional.scalarBytes(y.pixelStride());
                        yield conv;
                    }
                    case MaxPoolSpec m -> new MaxPool(m, out(i - 1), grad(i - 1), y, dy, ctx.context);
                    case UpsampleSpec u -> new Upsample(u, out(i - 1), grad(i - 1), y, dy, ctx.context);
                    case ShortcutSpec sc -> new Shortcut(sc, out(i - 1), grad(i - 1), out(sc.from()),
                            grad(sc.from()), y, dy, ctx.context);
                    case RouteSpec r -> {
                        TensorView[] xs = new TensorView[r.layers().length];
                        TensorView[] dxs = new TensorView[xs.length];
                        for (int k = 0; k < xs.length; k++) {
                            xs[k] = out(r.layers()[k]);
                            dxs[k] = grad(r.layers()[k]);
                        }
                        yield new Route(r, xs, dxs, y, dy, ctx.context);
                    }
                    default -> throw new IllegalStateException("unexpected layer " + l.kind());
                };
            }
            layers.add(layer);
        }
        // the sizing above and the carving must agree: forward-only outputs are sized out of the feature maps
        if (actAt != activations.address() + act) {
            throw new IllegalStateException("feature maps: carved " + (actAt - activations.address()) + " bytes of "
                    + act);
        }
    }

    private static long align(long bytes) { return (bytes + 255) & ~255L; }

    /**
     * What convolution {@code c} borrows from this network: the context's stream, cuDNN handle and workspace, the
     * arenas' addresses of its parameters (the slot's), the shared reduction rows and its own per-channel arrays at
     * {@code scalars}.
     */
    private Convolutional.Training training(ConvolutionalSpec c, ParameterArena.Slot slot, long scalars,
                                            boolean soleWriter) {
        Numerics numerics = ctx.precision == Precision.MIXED ? Numerics.HALF
                : ctx.options.strictFp32() ? Numerics.IEEE_FLOAT : Numerics.TF32;
        long gamma = c.batchNormalize() ? ctx.master + 4 * slot.scales() : 0;
        long rollingMean = c.batchNormalize() ? ctx.statistics + 4 * slot.statistics() : 0;
        return new Convolutional.Training(ctx.context, ctx.stream, ctx.cudnn, ctx.workspace, ctx.precision.storage(),
                numerics, ctx.options.workspaceLimit(), ctx.options.modeName(), ctx.stored(ctx.working, slot.weights()),
                ctx.stored(ctx.passGradient, slot.weights()), slot.filterChannels(), gamma,
                ctx.master + 4 * slot.biases(), ctx.gradient + 4 * slot.biases(), ctx.gradient + 4 * slot.scales(),
                rollingMean, ctx.partials, scalars, soleWriter);
    }

    /** The layer whose gradient tensor layer {@code index}'s gradient is (itself, or the source of an alias route). */
    static int owner(NetworkSpec spec, int index) {
        int t = index;
        while (t >= 0 && spec.layers().get(t) instanceof RouteSpec r && isAlias(r)) t = r.layers()[0];
        return t;
    }

    /** Per layer: how many layers' backward adds into its gradient tensor (inputs counted once per use). */
    static int[] gradientWriters(NetworkSpec spec) {
        int[] writers = new int[spec.layers().size()];
        for (LayerSpec l : spec.layers()) {
            if (l instanceof RouteSpec r && isAlias(r)) continue;   // its consumers write into the source directly
            for (int in : l.inputs()) {
                int o = in < 0 ? -1 : owner(spec, in);
                if (o >= 0) writers[o]++;
            }
        }
        return writers;
    }

    /** A [route] of one input without groups: the input's own tensors. */
    static boolean isAlias(RouteSpec r) {
        return r.layers().length == 1 && r.whole();
    }

    private static void validate(NetworkSpec spec) {
        if (spec.inputShape().channels() != 3) {
            throw new IllegalArgumentException(spec.file() + ": [net] channels=" + spec.inputShape().channels()
                    + ", the CUDA trainer takes 3-channel (RGB) input");
        }
        for (LayerSpec l : spec.layers()) {
            for (int from : l.inputs()) {
                if (from >= 0 && spec.layers().get(from) instanceof YoloSpec) {
                    throw new IllegalArgumentException("layer " + l.index() + " (" + l.kind() + ", line " + l.line()
                            + ") reads the output of [yolo] layer " + from + ": not trainable");
                }
            }
            if (TensorView.padded(l.output().channels()) > 2048) {
                throw new IllegalArgumentException("layer " + l.index() + " (" + l.kind() + ", line " + l.line()
                        + ") has " + l.output().channels() + " channels; the CUDA trainer handles at most 2048");
            }
        }
    }

    private TensorView out(int index) { return index < 0 ? input : outputs[index]; }

    private TensorView grad(int index) { return index < 0 ? null : gradients[index]; }

    NetworkSpec spec() { return spec; }

    int maxBatch() { return maxBatch; }

    TensorView input() { return input; }

    List<GpuLayer> layers() { return layers; }

    /** Address of the 5 loss sums (doubles): box, objectness, classes, assigned truths, IoU sum. */
    long lossSums() { return lossSums; }

    /**
     * Plans every convolution's operations for batch n where not done yet; call outside a pass (timing scribbles
     * buffers). The planning transient is bounded: a candidate may need at most the workspace already chosen plus
     * {@code headroom} bytes (so the peak stays within headroom of the steady state), and the workspace is fitted to
     * the chosen plans afterwards.
     */
    void plan(int n, long headroom) {
        CudaTrainingOptions o = ctx.options;
        PlanSettings settings = new PlanSettings(o.autotune() ? 8 : 1, o.workspaceLimit(), o.planCache(), true);
        long chosen = workspaceNeeded();
        boolean any = false;
        for (GpuLayer l : layers) {
            if (l instanceof Convolutional c && !c.planned(n)) {
                long budget = Math.min(o.workspaceLimit(), chosen + headroom);
                chosen = Math.max(chosen, c.plan(n, settings.withWorkspaceLimit(budget)));
                any = true;
            }
        }
        if (!any) return;
        ctx.stream.synchronize();
        ctx.workspace.fit(chosen);
    }

    long workspaceNeeded() {
        long most = 0;
        for (GpuLayer l : layers) if (l instanceof Convolutional c) most = Math.max(most, c.workspaceNeeded());
        return most;
    }

    /**
     * Clears the loss scratch. The gradients share bytes with forward-only outputs and with each other: {@link
     * #forward} ends by clearing those the losses add into (with keepGradients: every gradient), {@link #backward}
     * clears each other one just before the layer that writes it first.
     */
    void clearForPass() {
        Status.cuda(cudaMemsetAsync(DevicePointer.at(scratch.address()), 0, scratch.bytes(), ctx.stream.handle()),
                "cudaMemsetAsync loss scratch");
    }

    /** Zeroes the gradients first written at backward step s (see {@link GradientPlan}). */
    private void clearGradients(int step) {
        for (long[] r : gradientPlan.clears(step)) {
            Status.cuda(cudaMemsetAsync(DevicePointer.at(gradientArena.address() + r[0]), 0, r[1],
                    ctx.stream.handle()), "cudaMemsetAsync gradients");
        }
    }

    /** Layer i's backward, after clearing the gradients it is the first to add into. */
    private void clearAndBackward(int i, int n) {
        clearGradients(gradientPlan.backwardStep(i));
        layers.get(i).backward(n, ctx.stream);
    }

    GradientPlan gradientPlan() { return gradientPlan; }

    /** The forward pass, then the clearing of the gradients the losses add into (after: see clearForPass). */
    void forward(int n) {
        for (GpuLayer l : layers) l.forward(n, ctx.stream);
        clearGradients(0);
    }

    void yoloLoss(int n, long truths, long counts, int maxTruths, float lossScale) {
        for (GpuYoloLoss l : yoloLosses) l.loss(n, truths, counts, maxTruths, lossScale);
    }

    /** Every [yolo] layer's input and its gradient, for a loss supplied instead of the YOLO loss ({@link HeadLoss}). */
    List<HeadLoss.Head> heads() {
        List<HeadLoss.Head> heads = new ArrayList<>();
        for (LayerSpec l : spec.layers()) {
            if (l instanceof YoloSpec y) {
                heads.add(new HeadLoss.Head(y, out(y.index() - 1), grad(y.index() - 1), lossSums,
                        ctx.kernels, ctx.stream, ctx.device));
            }
        }
        return heads;
    }

    void backward(int n) {
        for (int i = layers.size() - 1; i >= 0; i--) clearAndBackward(i, n);
    }

    /**
     * The backward pass, calling {@code afterLayer} with each layer's index once its backward is enqueued (layers from
     * the last to the first): a data-parallel rank starts summing a bucket of weight gradients there.
     */
    void backward(int n, java.util.function.IntConsumer afterLayer) {
        for (int i = layers.size() - 1; i >= 0; i--) {
            clearAndBackward(i, n);
            afterLayer.accept(i);
        }
    }

    /**
     * One pass with device time measured per layer (events around each layer's forward and backward, waiting between
     * them, so the sum exceeds a normal pass by the gaps): a table of the slowest layers and the totals.
     */
    String profile(int n, Runnable loss, Runnable check) {
        int count = layers.size();
        float[] fwd = new float[count];
        float[] bwd = new float[count];
        float[][] parts = new float[count][];
        double[] convParts = new double[5];
        clearForPass();
        for (int i = 0; i < count; i++) {
            GpuLayer l = layers.get(i);
            if (l instanceof Convolutional c) {
                float[] p = c.profile(n, false);
                parts[i] = new float[] {p[0], p[1], 0, 0, 0};
                fwd[i] = p[0] + p[1];
            } else {
                fwd[i] = ctx.stream.time(() -> l.forward(n, ctx.stream));
            }
        }
        clearGradients(0);   // as forward(n) does, untimed
        float lossMs = ctx.stream.time(loss);
        for (int i = count - 1; i >= 0; i--) {
            GpuLayer l = layers.get(i);
            clearGradients(gradientPlan.backwardStep(i));   // outside the timed parts, as clearForPass is
            if (l instanceof Convolutional c) {
                float[] p = c.profile(n, true);
                parts[i][2] = p[0];
                parts[i][3] = p[1];
                parts[i][4] = p[2];
                bwd[i] = p[0] + p[1] + p[2];
                for (int k = 0; k < 5; k++) convParts[k] += parts[i][k];
            } else {
                bwd[i] = ctx.stream.time(() -> l.backward(n, ctx.stream));
            }
        }
        float checkMs = ctx.stream.time(check);
        double f = 0, b = 0;
        java.util.List<Integer> order = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            f += fwd[i];
            b += bwd[i];
            order.add(i);
        }
        order.sort((x, y) -> Float.compare(fwd[y] + bwd[y], fwd[x] + bwd[x]));
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
                "profile, batch %d: forward %.3f ms, loss %.3f ms, backward %.3f ms, gradient check %.3f ms; "
                        + "convolutions: cuDNN forward %.3f, normalize %.3f, normalize backward %.3f, cuDNN backward "
                        + "data %.3f, backward filter %.3f ms%n", n, f, lossMs, b, checkMs, convParts[0], convParts[1],
                convParts[2], convParts[3], convParts[4]));
        for (int k = 0; k < Math.min(12, count); k++) {
            int i = order.get(k);
            s.append(String.format(Locale.ROOT, "  %3d %-40s forward %.3f ms backward %.3f ms", i,
                    layers.get(i).describe(), fwd[i], bwd[i]));
            if (parts[i] != null) {
                s.append(String.format(Locale.ROOT, " (cuDNN %.3f + %.3f; %.3f + data %.3f + filter %.3f)",
                        parts[i][0], parts[i][1], parts[i][2], parts[i][3], parts[i][4]));
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * Layer {@code index}'s output for one image as Darknet's planar floats (C x H x W); null for [yolo]. Forward-only
     * outputs only where gradients did not take their bytes later in the pass ({@link #outputKept}).
     */
    float[] output(int index, int image) {
        if (!outputKept(index)) {
            throw new IllegalStateException("layer " + index + "'s output lived in the gradient arena during the "
                    + "forward pass and was overwritten; build the network with keepGradients to read it");
        }
        return planar(outputs[index], image);
    }

    /** Whether {@link #output} can read layer {@code index}'s output after a pass. */
    boolean outputKept(int index) {
        return gradientPlan.outputKeptAfterPass(owner(spec, index));
    }

    /**
     * dLoss/d(output of layer {@code index}) of the last pass, times the loss scale; null where none. Only where the
     * bytes were not reused later in the pass ({@link #gradientKept}; all of them with keepGradients).
     */
    float[] gradient(int index, int image) {
        if (gradients[index] != null && !gradientPlan.keptAfterPass(index)) {
            throw new IllegalStateException("layer " + index + "'s gradient was overwritten by later layers' "
                    + "gradients in the backward pass; build the network with keepGradients to read it");
        }
        return planar(gradients[index], image);
    }

    /** Whether {@link #gradient} can read layer {@code index}'s gradient after a pass. */
    boolean gradientKept(int index) {
        return gradients[index] != null && gradientPlan.keptAfterPass(index);
    }

    /** The network input of one image, planar. */
    float[] inputImage(int image) {
        return planar(input, image);
    }

    private float[] planar(TensorView t, int image) {
        if (t == null) return null;
        ctx.stream.synchronize();
        float[] nhwc = Transfers.download(t.base() + image * t.imageBytes(), t.imageStride(), t.type());
        int plane = t.pixels();
        float[] out = new float[t.channels() * plane];
        for (int p = 0; p < plane; p++) {
            for (int c = 0; c < t.channels(); c++) out[c * plane + p] = nhwc[p * t.pixelStride() + c];
        }
        return out;
    }

    /** Batch mean and variance (n-1) of the last forward of convolution {@code index} (null without batch norm). */
    float[][] batchStatistics(int index) {
        if (!(layers.get(index) instanceof Convolutional c) || !c.convolution().batchNormalize()) return null;
        ctx.stream.synchronize();
        int f = c.convolution().filters();
        return new float[][] {Transfers.downloadFloats(c.scalars(0), f), Transfers.downloadFloats(c.scalars(2), f)};
    }

    /** One line per layer: what it is and, for convolutions, cuDNN's algorithms for batch n. */
    String describe(int n) {
        StringBuilder s = new StringBuilder();
        for (GpuLayer l : layers) {
            s.append(String.format(Locale.ROOT, "%3d %-40s", l.spec().index(), l.describe()));
            if (l instanceof Convolutional c) s.append(' ').append(c.describePlan(n));
            s.append('\n');
        }
        return s.toString();
    }

    @Override
    public void close() {
        for (GpuLayer l : layers) l.close();
    }

    /** A [route] that is its input's tensors: nothing to run. */
    private record AliasRoute(RouteSpec spec, TensorView output, TensorView gradient) implements GpuLayer {
        @Override
        public void forward(int n, GpuStream stream) {}

        @Override
        public void backward(int n, GpuStream stream) {}

        @Override
        public String describe() { return "route (same tensors as layer " + spec.layers()[0] + ")"; }
    }
}
