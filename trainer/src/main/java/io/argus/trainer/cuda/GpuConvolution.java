package io.argus.trainer.cuda;

import io.argus.detector.cuda.layers.GpuLayer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.cudnn.ConvolutionOperation;
import io.argus.gpu.cudnn.ConvolutionPlan;
import io.argus.gpu.cudnn.ConvolutionPlanner;
import io.argus.gpu.cudnn.ConvolutionProblem;
import io.argus.gpu.cudnn.Numerics;
import io.argus.gpu.cudnn.Operands;
import io.argus.gpu.cudnn.PlanSettings;
import io.argus.gpu.cudnn.StridedShape;
import java.util.HashMap;
import java.util.Map;

/**
 * [convolutional] in training on the GPU. Forward: cuDNN writes z = conv(x, W) from the working weights; with batch
 * norm, one reduction pass sums z per channel, a per-channel kernel turns the sums into the batch mean, variance
 * (n-1) and 1/sigma and moves the rolling statistics, and one elementwise pass writes y = act(gamma x-hat + beta);
 * without it, y = act(z + bias). Backward: dy (already summed by every consumer) becomes dL/dz in place (batch norm:
 * a reduction pass for sum(da) and sum(da x-hat) into the bias and scale gradients, then the elementwise pass), then
 * cuDNN adds dL/dx into the input's gradient and writes this pass's dW. z is kept for backward, where x-hat and the
 * pre-activation are recomputed from it.
 */
final class GpuConvolution implements GpuLayer {
    private static final String BN = "train_batchnorm.cu";
    private static final String BIAS = "train_bias_activation.cu";

    private final ConvolutionalSpec spec;
    private final ParameterArena.Slot slot;
    private final GpuTrainContext ctx;
    private final TensorView x;
    private final TensorView dx;
    private final TensorView z;
    private final TensorView y;
    private final TensorView dy;
    /** Per batch size: the plans of forward, backward data (null without dx) and backward filter. */
    private final Map<Integer, ConvolutionPlan[]> plans = new HashMap<>();
    /** Per operation: the variant pack of its (fixed) pointers and the workspace of {@link #packVersion}. */
    private final CudnnDescriptor[] packs = new CudnnDescriptor[3];
    private int packVersion = -1;
    private final int stride;
    private final long pixelsPerImage;
    private final int act;
    // per-channel FP32 arrays of this layer (stride values each): mean, inv, variance, meanTerm, varianceTerm
    private final long scalars;
    private final KernelLaunch stats, finalize, apply, backReduce, backFinalize, backApply;
    private final int statsN, finalizeCount, applyN, backReduceN, backFinalizeCount, backApplyN, finalizeBlocks,
            backFinalizeBlocks;

    private final boolean accumulateInputGradient;

    /** {@code soleWriter}: no other layer adds into dx, so backward-data writes it instead of adding (beta 0). */
    GpuConvolution(ConvolutionalSpec spec, ParameterArena.Slot slot, TensorView x, TensorView dx, boolean soleWriter, TensorView z,
                   TensorView y, TensorView dy, long scalars, GpuTrainContext ctx) {
        this.accumulateInputGradient = !soleWriter;
        this.spec = spec;
        this.slot = slot;
        this.ctx = ctx;
        this.x = x;
        this.dx = dx;
        this.z = z;
        this.y = y;
        this.dy = dy;
        this.scalars = scalars;
        this.stride = y.pixelStride();
        this.pixelsPerImage = y.pixels();
        this.act = KernelCodes.activation(spec.activation());
        long gamma = spec.batchNormalize() ? ctx.master + 4 * slot.scales() : 0;
        long beta = ctx.master + 4 * slot.biases();
        long mean = scalars, inv = scalars + 4L * stride, variance = scalars + 8L * stride;
        long meanTerm = scalars + 12L * stride, varianceTerm = scalars + 16L * stride;
        long rollingMean = spec.batchNormalize() ? ctx.statistics + 4 * slot.statistics() : 0;
        long rollingVariance = rollingMean + 4L * stride;
        int c = spec.filters();
        long maxPixels = 0;   // the pixel counts are set per call, from the batch size
        int groups = stride / 8;
        if (spec.batchNormalize()) {
            stats = ctx.kernel(BN, "bn_stats");
            stats.pointer(z.address());
            statsN = stats.i64(maxPixels);
            stats.i32(stride);
            stats.pointer(rollingMean);
            stats.pointer(ctx.partials);

            finalize = ctx.plainKernel(BN, "bn_finalize");
            finalize.pointer(ctx.partials);
            finalizeBlocks = finalize.i32(1);
            finalize.i32(c);
            finalize.i32(stride);
            finalizeCount = finalize.i64(1);
            finalize.pointer(rollingMean);
            finalize.pointer(rollingVariance);
            finalize.pointer(mean);
            finalize.pointer(inv);
            finalize.pointer(variance);
            finalize.f32(ConvWeights.BN_EPSILON);

            apply = ctx.kernel(BN, "bn_apply");
            apply.pointer(z.address());
            apply.pointer(y.address());
            applyN = apply.i64(maxPixels);
            apply.i32(stride);
            apply.i32(c);
            apply.pointer(mean);
            apply.pointer(inv);
            apply.pointer(gamma);
            apply.pointer(beta);
            apply.i32(act);

            backReduce = ctx.kernel(BN, "bn_backward_reduce");
            backReduce.pointer(dy.address());
            backReduce.pointer(z.address());
            backReduceN = backReduce.i64(maxPixels);
            backReduce.i32(stride);
            backReduce.i32(c);
            backReduce.pointer(mean);
            backReduce.pointer(inv);
            backReduce.pointer(gamma);
            backReduce.pointer(beta);
            backReduce.i32(act);
            backReduce.pointer(ctx.partials);

            backFinalize = ctx.plainKernel(BN, "bn_backward_finalize");
            backFinalize.pointer(ctx.partials);
            backFinalizeBlocks = backFinalize.i32(1);
            backFinalize.i32(c);
            backFinalize.i32(stride);
            backFinalizeCount = backFinalize.i64(1);
            backFinalize.pointer(gamma);
            backFinalize.pointer(ctx.gradient + 4 * slot.biases());
            backFinalize.pointer(ctx.gradient + 4 * slot.scales());
            backFinalize.pointer(meanTerm);
            backFinalize.pointer(varianceTerm);

            backApply = ctx.kernel(BN, "bn_backward_apply");
            backApply.pointer(dy.address());
            backApply.pointer(z.address());
            backApplyN = backApply.i64(maxPixels);
            backApply.i32(stride);
            backApply.i32(c);
            backApply.pointer(mean);
            backApply.pointer(inv);
            backApply.pointer(gamma);
            backApply.pointer(beta);
            backApply.i32(act);
            backApply.pointer(meanTerm);
            backApply.pointer(varianceTerm);
        } else {
            stats = null;
            statsN = 0;
            finalize = null;
            finalizeBlocks = 0;
            finalizeCount = 0;

            apply = ctx.kernel(BIAS, "bias_act");
            apply.pointer(z.address());
            apply.pointer(y.address());
            applyN = apply.i64(maxPixels);
            apply.i32(stride);
            apply.i32(c);
            apply.pointer(beta);
            apply.i32(act);

            backReduce = ctx.kernel(BIAS, "bias_act_backward");
            backReduce.pointer(dy.address());
            backReduce.pointer(z.address());
            backReduceN = backReduce.i64(maxPixels);
            backReduce.i32(stride);
            backReduce.i32(c);
            backReduce.pointer(beta);
            backReduce.i32(act);
            backReduce.pointer(ctx.partials);

            backFinalize = ctx.plainKernel(BIAS, "bias_backward_finalize");
            backFinalize.pointer(ctx.partials);
            backFinalizeBlocks = backFinalize.i32(1);
            backFinalize.i32(c);
            backFinalize.i32(stride);
            backFinalize.pointer(ctx.gradient + 4 * slot.biases());
            backFinalizeCount = -1;

            backApply = null;
            backApplyN = 0;
        }
        if (groups > 256) {
            throw new IllegalArgumentException("layer " + spec.index() + ": " + spec.filters() + " filters, the CUDA "
                    + "trainer handles at most 2048 channels per layer");
        }
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    ConvolutionalSpec convolution() { return spec; }

    /** The layer's own per-channel arrays: 0 mean, 1 inv, 2 variance (of the last forward's batch). */
    long scalars(int which) { return scalars + 4L * which * stride; }

    private long weights() { return ctx.stored(ctx.working, slot.weights()); }

    private long passGradient() { return ctx.stored(ctx.passGradient, slot.weights()); }

    /** How cuDNN may compute: FP16 on tensor cores, IEEE FP32, or FP32 storage on TF32 tensor cores. */
    private Numerics numerics() {
        return ctx.precision == Precision.MIXED ? Numerics.HALF
                : ctx.options.strictFp32() ? Numerics.IEEE_FLOAT : Numerics.TF32;
    }

    /** The pointers of one operation by role: input-shaped (x or dx), filter-shaped (W or dW), output-shaped (z or dz). */
    private Operands operands(ConvolutionOperation op) {
        return switch (op) {
            case FORWARD -> Operands.of(x.address(), weights(), z.address());
            case BACKWARD_DATA -> Operands.of(dx.address(), weights(), dy.address());
            case BACKWARD_FILTER -> Operands.of(x.address(), passGradient(), dy.address());
        };
    }

    private ConvolutionProblem problem(ConvolutionOperation op, int n) {
        Operands o = operands(op);
        return ConvolutionProblem.plain(op, numerics(),
                StridedShape.dense(n, x.pixelStride(), spec.input().height(), spec.input().width(), x.pixelStride()),
                StridedShape.dense(n, stride, spec.output().height(), spec.output().width(), stride), slot.filterChannels(), spec.size(),
                spec.strideY(), spec.strideX(), spec.pad(),
                op == ConvolutionOperation.BACKWARD_DATA && accumulateInputGradient ? 1f : 0f,
                ConvolutionProblem.alignmentOf(o.input(), o.filter(), o.output()));
    }

    /**
     * Plans forward, backward data (when the input has a gradient) and backward filter for batch n through the
     * device's planner (the buffers are scratch while timing). Returns the plans' largest workspace.
     */
    long plan(int n, PlanSettings settings) {
        ConvolutionPlan[] p = new ConvolutionPlan[3];
        ConvolutionPlanner planner = ConvolutionPlanner.of(ctx.context);
        for (ConvolutionOperation op : ConvolutionOperation.values()) {
            if (op == ConvolutionOperation.BACKWARD_DATA && dx == null) continue;
            p[op.ordinal()] = planner.plan(problem(op, n), operands(op), ctx.workspace, ctx.stream, ctx.cudnn,
                    settings);
            if (p[op.ordinal()] == null && settings.workspaceLimit() < ctx.options.workspaceLimit()) {
                // nothing within the planning budget: the configured limit, at the cost of a higher planning peak
                settings = settings.withWorkspaceLimit(ctx.options.workspaceLimit());
                p[op.ordinal()] = planner.plan(problem(op, n), operands(op), ctx.workspace, ctx.stream, ctx.cudnn,
                        settings);
            }
            if (p[op.ordinal()] == null) {
                throw new CudaException("layer " + spec.index() + " (" + spec.size() + "x" + spec.size() + "/"
                        + spec.strideX() + " " + spec.input().channels() + "->" + spec.filters() + "): cuDNN offers no "
                        + op + " engine for " + ctx.options.modeName() + " NHWC within "
                        + io.argus.gpu.GpuBuffer.mib(settings.workspaceLimit()) + " of workspace");
            }
        }
        plans.put(n, p);
        return workspaceNeeded(p);
    }

    boolean planned(int n) { return plans.containsKey(n); }

    private static long workspaceNeeded(ConvolutionPlan[] p) {
        long most = 0;
        for (ConvolutionPlan c : p) if (c != null) most = Math.max(most, c.workspaceBytes());
        return most;
    }

    /** The largest workspace any planned operation needs. */
    long workspaceNeeded() {
        long most = 0;
        for (ConvolutionPlan[] p : plans.values()) most = Math.max(most, workspaceNeeded(p));
        return most;
    }

    private void execute(ConvolutionOperation op, int n) {
        ConvolutionPlan[] p = plans.get(n);
        if (p == null) throw new IllegalStateException("layer " + spec.index() + ": batch " + n + " not planned");
        if (packVersion != ctx.workspace.version()) {
            for (int i = 0; i < 3; i++) {
                if (packs[i] != null) packs[i].close();
                packs[i] = null;
            }
            packVersion = ctx.workspace.version();
        }
        int i = op.ordinal();
        if (packs[i] == null) packs[i] = operands(op).pack(ctx.workspace.address());
        p[i].execute(ctx.cudnn, packs[i]);
    }

    /** Enqueues on the context's stream ({@code stream} is that stream: its cuDNN handle is bound to it). */
    @Override
    public void forward(int n, GpuStream stream) {
        convolve(n);
        normalize(n);
    }

    private void convolve(int n) {
        execute(ConvolutionOperation.FORWARD, n);
    }

    private void normalize(int n) {
        long pixels = n * pixelsPerImage;
        long lanes = pixels * (stride / 8);
        if (stats != null) {
            int grid = ctx.reductionGrid(lanes);
            stats.setLong(statsN, pixels).launch(grid, ctx.stream.handle());
            finalize.setInt(finalizeBlocks, grid).setLong(finalizeCount, pixels)
                    .launch(stride / 8, ctx.stream.handle());   // a block per 8 channels
        }
        apply.setLong(applyN, pixels).launch(ctx.grid(lanes), ctx.stream.handle());
    }

    @Override
    public void backward(int n, GpuStream stream) {
        normalizeBackward(n);
        backwardData(n);
        backwardFilter(n);
    }

    /** Forward and backward with device times per part: {cuDNN forward, normalize, normalize backward, backward data,
     * backward filter} in ms (waiting between parts). */
    float[] profile(int n, boolean backward) {
        if (!backward) return new float[] {ctx.stream.time(() -> convolve(n)), ctx.stream.time(() -> normalize(n))};
        return new float[] {ctx.stream.time(() -> normalizeBackward(n)), ctx.stream.time(() -> backwardData(n)),
                ctx.stream.time(() -> backwardFilter(n))};
    }

    private void normalizeBackward(int n) {
        long pixels = n * pixelsPerImage;
        long lanes = pixels * (stride / 8);
        int grid = ctx.reductionGrid(lanes);
        backReduce.setLong(backReduceN, pixels).launch(grid, ctx.stream.handle());
        backFinalize.setInt(backFinalizeBlocks, grid);
        if (backFinalizeCount >= 0) backFinalize.setLong(backFinalizeCount, pixels);
        backFinalize.launch(stride / 8, ctx.stream.handle());   // a block per 8 channels
        if (backApply != null) backApply.setLong(backApplyN, pixels).launch(ctx.grid(lanes), ctx.stream.handle());
    }

    private void backwardData(int n) {
        if (dx != null) execute(ConvolutionOperation.BACKWARD_DATA, n);
    }

    private void backwardFilter(int n) {
        execute(ConvolutionOperation.BACKWARD_FILTER, n);
    }

    @Override
    public String describe() {
        return String.format(java.util.Locale.ROOT, "conv %dx%d/%d %d->%d %s%s", spec.size(), spec.size(),
                spec.strideX(), spec.input().channels(), spec.filters(), spec.activation(),
                spec.batchNormalize() ? " bn" : "") + (accumulateInputGradient ? "" : " dx=");
    }

    /** "fwd engine 12 tc, 0.1 ms best of 8, ws 1.0 MiB; bwd-data ...; bwd-filter ..." for batch n. */
    String describePlan(int n) {
        ConvolutionPlan[] p = plans.get(n);
        if (p == null) return "not planned";
        String[] names = {"fwd", "bwd-data", "bwd-filter"};
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 3; i++) if (p[i] != null) s.append(names[i]).append(' ').append(p[i].describe()).append("; ");
        return s.toString();
    }

    /** Plans belong to the device's planner (shared by shape); only this layer's variant packs are freed here. */
    @Override
    public void close() {
        for (CudnnDescriptor d : packs) if (d != null) d.close();
    }
}
