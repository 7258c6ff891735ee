package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.ElementType;
import io.argus.gpu.Fp8;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.gpu.Workspace;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * [convolutional] on cuDNN (the device's {@link ConvolutionPlanner}) and kernels/convolutional.cu, for both networks.
 *
 * <p><b>Inference</b> ({@link #Convolutional(ConvolutionalSpec, ConvWeights, TensorView, DeviceContext, Workspace,
 * PlanSettings)}): batch norm folded into FP16 weights this layer owns (KRSC, input and output channels padded with
 * zeros to multiples of 8), FP32 accumulation. The network first {@link #configure}s it for its largest batch, trying
 * the most fused form first (bias + activation, and a following [shortcut], inside cuDNN's kernel; writing straight
 * into a route's buffer); when cuDNN has no engine for that, a plain convolution plus our bias_activation kernel.
 * {@link #prepare} plans the other batch sizes in that form; forward only enqueues (CUDA graphs capture it).
 * Where the network asks for FP8 ({@link #fp8Choice}, before configuring), the same form is also planned with E4M3
 * operands: kernels/quantize.cu writes the FP16 input as E4M3 divided by its calibrated scale into a dense buffer this
 * layer owns, the filters are E4M3 with one scale per output channel, and cuDNN's epilogue multiplies each output
 * channel by the product of the two scales before bias and activation; it is kept when forced, or when it (the
 * quantization included) runs faster than the FP16 plan.
 *
 * <p><b>Training</b> ({@link #Convolutional(ConvolutionalSpec, TensorView, TensorView, TensorView, TensorView,
 * TensorView, Training)}): forward: cuDNN writes z = conv(x, W) from the working weights; with batch norm, one
 * reduction pass sums z per channel, a per-channel kernel turns the sums into the batch mean, variance (n-1) and
 * 1/sigma and moves the rolling statistics, and one elementwise pass writes y = act(gamma x-hat + beta); without it,
 * y = act(z + bias). Backward: dy (already summed by every consumer) becomes dL/dz in place (batch norm: a reduction
 * pass for sum(da) and sum(da x-hat) into the bias and scale gradients, then the elementwise pass), then cuDNN adds
 * dL/dx into the input's gradient and writes this pass's dW. z is kept for backward, where x-hat and the
 * pre-activation are recomputed from it. The network {@link #plan}s each batch size (forward, backward data,
 * backward filter) within a workspace budget, so it can bound the planning peak and fit the workspace afterwards.
 *
 * <p>Why two constructors and not two classes or a mode flag: the two roles share the spec, the input view, the
 * planner, the per-batch plans and variant packs (keyed by the workspace's version) and the kernel file, but own
 * different things. Inference owns its folded FP16 weights and chooses its output view and epilogue after
 * construction (the route placement and shortcut fusion are the network's decisions), so its output is set by
 * {@link #configure}; training owns nothing: the parameters, their gradients, the rolling statistics, the FP32
 * reduction rows and the per-channel scratch live in the trainer's arenas, lent as addresses in a {@link Training}
 * record (so this module never depends on the trainer), and its views are fixed at construction. Which constructor
 * built the layer is the mode ({@code training != null}); a mode enum beside the arguments would allow
 * combinations (folded weights with gradients) that no network uses.
 */
public final class Convolutional implements GpuLayer {
    private static final String FILE = "convolutional.cu";

    /** What runs after the convolution inside the cuDNN kernel (inference). */
    public enum Epilogue { NONE, BIAS_ACTIVATION, BIAS_ACTIVATION_RESIDUAL }

    /**
     * What a training network lends a convolution: its stream and the cuDNN handle bound to it, cuDNN's workspace
     * (grown while planning, fitted afterwards) and the configured most of it ({@code workspaceLimit}); the storage
     * type and how cuDNN may compute; {@code mode} (for messages); addresses in the trainer's arenas: the working
     * weights and this pass's weight gradient (storage type, [paddedFilters][size][size][filterChannels]), gamma
     * (FP32 masters, 0 without batch norm) and beta (the bias without it), the FP32 bias and scale gradients, the
     * rolling mean (0 without batch norm; the variance follows it, one padded stride later), the FP32 reduction rows
     * shared by all layers and this layer's own 5 per-channel FP32 arrays (mean, inv, variance, meanTerm,
     * varianceTerm; a padded stride each); {@code soleWriter}: no other layer adds into dx, so backward-data writes
     * it instead of adding (beta 0).
     */
    public record Training(DeviceContext context, GpuStream stream, cudnnContext cudnn, Workspace workspace,
                           ElementType storage, Numerics numerics, long workspaceLimit, String mode, long weights,
                           long passGradient, int filterChannels, long gamma, long beta, long biasGradient,
                           long scaleGradient, long rollingMean, long partials, long scalars, boolean soleWriter) {}

    private final ConvolutionalSpec spec;
    private final DeviceContext ctx;
    private final Workspace workspace;
    private final TensorView x;
    /** Per batch size: the plans of forward, backward data (training with dx) and backward filter (training). */
    private final Map<Integer, ConvolutionPlan[]> plans = new HashMap<>();
    /** Per operation: the variant pack of its pointers and the workspace of {@link #packVersion}. */
    private final CudnnDescriptor[] packs = new CudnnDescriptor[3];
    private int packVersion = -1;

    // inference (training == null)
    private final PlanSettings settings;
    private final int inChannels;
    private final int paddedFilters;
    private final GpuBuffer weights;
    private final GpuBuffer biasHalf;
    private final GpuBuffer biasFloat;
    private TensorView y;
    private int outChannels;
    private Epilogue epilogue;
    private TensorView residual;
    private Activation shortcutActivation;
    private KernelLaunch biasActivation;
    private int biasActivationN;
    /** The direct form over the image's channels (kernels/convolutional.cu (b)): FP32 [size][size][3][OC], or null. */
    private final GpuBuffer directWeights;
    private boolean directAllowed = true;   // the direct kernel may run where it is timed faster
    private boolean directForced;           // ... or wherever it applies
    private KernelLaunch direct;
    private int directN;
    private String directTiming = "";
    /** FP8: the input's scale (its calibrated largest magnitude over 448; 0: FP8 not asked for), forced or timed. */
    private float fp8InputScale;
    private boolean fp8Forced;
    private GpuBuffer fp8Weights;   // E4M3 [paddedFilters][size][size][inChannels]
    private GpuBuffer fp8Scales;    // FP32 per output channel: input scale x filter scale
    private GpuBuffer fp8Input;     // E4M3 [maxBatch][pixels][inChannels], the network's (fp8Choice), written by quantize
    private boolean fp8;            // the configured form is FP8
    private KernelLaunch quantize;
    private int quantizeN;
    private String fp8Timing = "";

    // training (training != null)
    private final Training training;
    private final TensorView dx;
    private final TensorView z;
    private final TensorView dy;
    private final int stride;
    private final long pixelsPerImage;
    private final KernelLaunch stats, finalize, apply, backReduce, backFinalize, backApply;
    private final int statsN, finalizeCount, applyN, backReduceN, backFinalizeCount, backApplyN, finalizeBlocks,
            backFinalizeBlocks;
    private final boolean accumulateInputGradient;

    /** Inference: FP16, batch norm folded into the weights; {@link #configure} then places the output. */
    public Convolutional(ConvolutionalSpec spec, ConvWeights params, TensorView x, DeviceContext ctx,
                         Workspace workspace, PlanSettings settings) {
        this.spec = spec;
        this.ctx = ctx;
        this.workspace = workspace;
        this.settings = settings;
        this.x = x;
        this.training = null;
        this.dx = null;
        this.z = null;
        this.dy = null;
        this.stride = 0;
        this.pixelsPerImage = 0;
        this.stats = this.finalize = this.apply = this.backReduce = this.backFinalize = this.backApply = null;
        this.statsN = this.finalizeCount = this.applyN = this.backReduceN = this.backFinalizeCount = this.backApplyN
                = this.finalizeBlocks = this.backFinalizeBlocks = 0;
        this.accumulateInputGradient = false;
        if (x.channelOffset() % 8 != 0) {
            throw new CudaException("layer " + spec.index() + " (line " + spec.line() + "): input channels start at "
                    + x.channelOffset() + ", not a multiple of 8; the CUDA backend needs 16-byte aligned inputs");
        }
        int cin = spec.input().channels();
        this.inChannels = spec.groups() != 1 ? cin
                : x.channelOffset() + TensorView.padded(cin) <= x.pixelStride() ? TensorView.padded(cin)
                : cin == 3 && x.channelOffset() == 0 && x.pixelStride() == 4 ? 4   // the image in 8-byte pixels
                : cin;
        this.paddedFilters = TensorView.padded(spec.filters());
        float[][] folded = params.folded();
        this.weights = GpuBuffer.device(2L * paddedFilters * spec.size() * spec.size() * (inChannels / spec.groups()),
                "weights of layer " + spec.index());
        Transfers.upload(weights.address(), krsc(folded[0]));
        float[] bias = new float[paddedFilters];
        System.arraycopy(folded[1], 0, bias, 0, spec.filters());
        this.biasHalf = GpuBuffer.device(2L * paddedFilters, "bias of layer " + spec.index());
        Transfers.upload(biasHalf.address(), Transfers.toHalves(bias));
        this.biasFloat = GpuBuffer.device(4L * paddedFilters, "bias of layer " + spec.index());
        Transfers.upload(biasFloat.address(), bias);
        if (directFits(spec, x, paddedFilters)) {
            this.directWeights = GpuBuffer.device(4L * spec.size() * spec.size() * 3 * paddedFilters,
                    "direct weights of layer " + spec.index());
            Transfers.upload(directWeights.address(), rsck(folded[0]));
        } else {
            this.directWeights = null;
        }
    }

    /**
     * Whether this layer can run on the direct kernel: 3 input channels (the image), no groups, padded filters 16, 32
     * or 64, weights within the kernel's shared memory, an input view 8-byte aligned.
     */
    private static boolean directFits(ConvolutionalSpec spec, TensorView x, int paddedFilters) {
        return spec.input().channels() == 3 && spec.groups() == 1 && spec.strideX() == spec.strideY()
                && (paddedFilters == 16 || paddedFilters == 32 || paddedFilters == 64)
                && spec.size() * spec.size() * 3 * paddedFilters <= DIRECT_WEIGHTS
                && x.pixelStride() % 4 == 0 && x.channelOffset() % 4 == 0;
    }

    /**
     * Asks for this layer's FP8 form (before {@link #configure}): its input quantized with {@code inputAbsMax}, the
     * largest magnitude the input took on the calibration frames, its filters from {@code params} (E4M3, one scale per
     * output channel); {@code forced} keeps FP8 wherever cuDNN plans it, else it is kept only where timed faster than
     * FP16. Returns false, asking nothing, where FP8 does not apply: a device before compute capability 8.9, groups,
     * input channels (padded) not a multiple of 16, a view the quantize kernel cannot read 16 bytes at a time, or an
     * input range that is not a positive number. {@code input} receives the quantized input: the network's one area
     * for every FP8 layer (they run one after another on its stream), at least {@link #fp8InputBytes} for the largest
     * batch.
     */
    public boolean fp8Choice(ConvWeights params, float inputAbsMax, boolean forced, GpuBuffer input) {
        requireInference("fp8Choice");
        if (ctx.device().computeCapability() < 89 || spec.groups() != 1 || inChannels % 16 != 0
                || x.channelOffset() % 8 != 0 || x.pixelStride() % 8 != 0 || !(inputAbsMax > 0)
                || !Float.isFinite(inputAbsMax)) {
            return false;
        }
        if (input.bytes() < fp8InputBytes(spec, x.pixels(), 1)) {
            throw new IllegalArgumentException("layer " + spec.index() + ": an FP8 input area of " + input.bytes()
                    + " bytes is smaller than one image's " + fp8InputBytes(spec, x.pixels(), 1));
        }
        fp8InputScale = Fp8.scaleFor(inputAbsMax);
        fp8Forced = forced;
        fp8Input = input;
        float[] w = params.folded()[0];
        int per = spec.size() * spec.size() * inChannels;
        byte[] codes = new byte[paddedFilters * per];
        float[] scales = new float[paddedFilters];
        float[] filter = new float[per];
        for (int f = 0; f < paddedFilters; f++) {
            java.util.Arrays.fill(filter, 0f);
            if (f < spec.filters()) krscFilter(w, f, filter);
            float amax = 0;
            for (float v : filter) amax = Math.max(amax, Math.abs(v));
            float s = Fp8.scaleFor(amax);
            System.arraycopy(Fp8.encode(filter, s), 0, codes, f * per, per);
            scales[f] = fp8InputScale * s;
        }
        fp8Weights = GpuBuffer.device(codes.length, "FP8 weights of layer " + spec.index());
        Transfers.upload(fp8Weights.address(), codes);
        fp8Scales = GpuBuffer.device(4L * paddedFilters, "FP8 scales of layer " + spec.index());
        Transfers.upload(fp8Scales.address(), scales);
        return true;
    }

    /**
     * Bytes of E4M3 input {@code images} images of a layer take when it runs in FP8 ({@code pixels} per image): one a
     * channel, the channels padded as the layer pads them where that is what FP8 needs (a multiple of 16).
     */
    public static long fp8InputBytes(ConvolutionalSpec spec, long pixels, int images) {
        return (long) images * pixels * TensorView.padded(spec.input().channels());
    }

    /** Filter f of Darknet's [filters][c][size][size] as [size][size][inChannels] (padding channels zero). */
    private void krscFilter(float[] w, int f, float[] out) {
        int c = spec.groupChannels();
        int s = spec.size();
        for (int ch = 0; ch < c; ch++) {
            for (int r = 0; r < s; r++) {
                for (int q = 0; q < s; q++) out[(r * s + q) * inChannels + ch] = w[((f * c + ch) * s + r) * s + q];
            }
        }
    }

    /** Whether the configured form runs in FP8. */
    public boolean fp8() { return fp8; }

    /** Frees the FP8 form's buffers when the layer runs in FP16. */
    private void dropFp8() {
        if (fp8Weights != null) fp8Weights.close();
        if (fp8Scales != null) fp8Scales.close();
        fp8Weights = fp8Scales = fp8Input = null;   // the input area is the network's
        quantize = null;
        fp8InputScale = 0;
    }

    /** Floats of weights the direct kernel holds in shared memory (DIRECT_WEIGHTS in kernels/convolutional.cu). */
    private static final int DIRECT_WEIGHTS = 4096;

    /** Darknet's [filters][3][size][size] to the direct kernel's [size][size][3][paddedFilters], FP32. */
    private float[] rsck(float[] w) {
        int k = spec.filters();
        int s = spec.size();
        float[] out = new float[s * s * 3 * paddedFilters];
        for (int f = 0; f < k; f++) {
            for (int ch = 0; ch < 3; ch++) {
                for (int r = 0; r < s; r++) {
                    for (int q = 0; q < s; q++) {
                        out[((r * s + q) * 3 + ch) * paddedFilters + f] = w[((f * 3 + ch) * s + r) * s + q];
                    }
                }
            }
        }
        return out;
    }

    /**
     * Training: z (this layer's pre-normalization output, kept for backward), y and dy are the network's views of
     * the storage type; dx is null where the input has no gradient. Everything else is lent in {@code t}.
     */
    public Convolutional(ConvolutionalSpec spec, TensorView x, TensorView dx, TensorView z, TensorView y,
                         TensorView dy, Training t) {
        this.spec = spec;
        this.ctx = t.context();
        this.workspace = t.workspace();
        this.x = x;
        this.settings = null;
        this.inChannels = 0;
        this.paddedFilters = 0;
        this.weights = this.biasHalf = this.biasFloat = this.directWeights = null;
        this.training = t;
        this.accumulateInputGradient = !t.soleWriter();
        this.dx = dx;
        this.z = z;
        this.y = y;
        this.dy = dy;
        this.stride = y.pixelStride();
        this.pixelsPerImage = y.pixels();
        int act = KernelCodes.activation(spec.activation());
        long gamma = t.gamma();
        long beta = t.beta();
        long scalars = t.scalars();
        long mean = scalars, inv = scalars + 4L * stride, variance = scalars + 8L * stride;
        long meanTerm = scalars + 12L * stride, varianceTerm = scalars + 16L * stride;
        long rollingMean = t.rollingMean();
        long rollingVariance = rollingMean + 4L * stride;
        long partials = t.partials();
        ElementType type = t.storage();
        int c = spec.filters();
        long maxPixels = 0;   // the pixel counts are set per call, from the batch size
        int groups = stride / 8;
        if (spec.batchNormalize()) {
            stats = KernelLaunch.of(ctx.kernels(), FILE, "bn_stats", type);
            stats.pointer(z.address());
            statsN = stats.i64(maxPixels);
            stats.i32(stride);
            stats.pointer(rollingMean);
            stats.pointer(partials);

            finalize = KernelLaunch.of(ctx.kernels(), FILE, "bn_finalize");
            finalize.pointer(partials);
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

            apply = KernelLaunch.of(ctx.kernels(), FILE, "bn_apply", type);
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

            backReduce = KernelLaunch.of(ctx.kernels(), FILE, "bn_backward_reduce", type);
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
            backReduce.pointer(partials);

            backFinalize = KernelLaunch.of(ctx.kernels(), FILE, "bn_backward_finalize");
            backFinalize.pointer(partials);
            backFinalizeBlocks = backFinalize.i32(1);
            backFinalize.i32(c);
            backFinalize.i32(stride);
            backFinalizeCount = backFinalize.i64(1);
            backFinalize.pointer(gamma);
            backFinalize.pointer(t.biasGradient());
            backFinalize.pointer(t.scaleGradient());
            backFinalize.pointer(meanTerm);
            backFinalize.pointer(varianceTerm);

            backApply = KernelLaunch.of(ctx.kernels(), FILE, "bn_backward_apply", type);
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

            apply = KernelLaunch.of(ctx.kernels(), FILE, "bias_act", type);
            apply.pointer(z.address());
            apply.pointer(y.address());
            applyN = apply.i64(maxPixels);
            apply.i32(stride);
            apply.i32(c);
            apply.pointer(beta);
            apply.i32(act);

            backReduce = KernelLaunch.of(ctx.kernels(), FILE, "bias_act_backward", type);
            backReduce.pointer(dy.address());
            backReduce.pointer(z.address());
            backReduceN = backReduce.i64(maxPixels);
            backReduce.i32(stride);
            backReduce.i32(c);
            backReduce.pointer(beta);
            backReduce.i32(act);
            backReduce.pointer(partials);

            backFinalize = KernelLaunch.of(ctx.kernels(), FILE, "bias_backward_finalize");
            backFinalize.pointer(partials);
            backFinalizeBlocks = backFinalize.i32(1);
            backFinalize.i32(c);
            backFinalize.i32(stride);
            backFinalize.pointer(t.biasGradient());
            backFinalizeCount = -1;

            backApply = null;
            backApplyN = 0;
        }
        if (groups > 256) {
            throw new IllegalArgumentException("layer " + spec.index() + ": " + spec.filters() + " filters, the CUDA "
                    + "trainer handles at most 2048 channels per layer");
        }
    }

    /** Darknet's [filters][c/groups][size][size] to [paddedFilters][size][size][inChannels/groups], as FP16. */
    private short[] krsc(float[] w) {
        int k = spec.filters();
        int c = spec.groupChannels();
        int s = spec.size();
        int cp = inChannels / spec.groups();
        short[] out = new short[paddedFilters * s * s * cp];
        for (int f = 0; f < k; f++) {
            for (int ch = 0; ch < c; ch++) {
                for (int r = 0; r < s; r++) {
                    for (int q = 0; q < s; q++) {
                        out[((f * s + r) * s + q) * cp + ch] = Float.floatToFloat16(w[((f * c + ch) * s + r) * s + q]);
                    }
                }
            }
        }
        return out;
    }

    private boolean training() { return training != null; }

    private void requireInference(String what) {
        if (training()) throw new IllegalStateException(what + ": an inference convolution's operation");
    }

    private void requireTraining(String what) {
        if (!training()) throw new IllegalStateException(what + ": a training convolution's operation");
    }

    // ---- inference: configuring the form ----

    /**
     * Inference: tries to plan this convolution for {@code n} images writing {@code out}, with the given epilogue
     * (and residual for a fused shortcut). On success the form is kept for every batch size; on failure nothing
     * changes.
     */
    public boolean configure(int n, TensorView out, Epilogue e, TensorView res, Activation resActivation,
                             GpuStream stream) {
        requireInference("configure");
        // padded filters write the output's padding channels as whole vectors; not with groups, where cuDNN gives
        // filter k to group k / (filters / groups): padding would move real filters into other groups (a depthwise
        // 2-channel layer read one channel twice) or leave filters not divisible by groups (refused)
        int oc = spec.groups() == 1 && out.channels() % 8 != 0
                && out.channelOffset() + paddedFilters <= out.pixelStride() ? paddedFilters : out.channels();
        if (out.channelOffset() % 8 != 0) return false;
        TensorView oldY = y;
        int oldOc = outChannels;
        Epilogue oldE = epilogue;
        TensorView oldR = residual;
        Activation oldA = shortcutActivation;
        y = out;
        outChannels = oc;
        epilogue = e;
        residual = res;
        shortcutActivation = resActivation;
        boolean directApplies = e == Epilogue.BIAS_ACTIVATION && res == null && directWeights != null
                && oc == paddedFilters && out.channelOffset() % 8 == 0 && out.pixelStride() % 8 == 0
                && directAllowed;
        ConvolutionPlan p = directApplies && directForced ? null : inferencePlan(n, stream);
        if (directApplies && chooseDirect(n, p, stream)) {
            plans.clear();
            packVersion = -1;
            return true;
        }
        direct = null;
        boolean oldFp8 = fp8;
        fp8 = false;
        if (fp8InputScale > 0) {
            ConvolutionPlan q = fp8Plan(n, stream);
            if (q != null && (fp8Forced || p == null || fp8Faster(n, p, q, stream))) {
                p = q;
                fp8 = true;
            }
        }
        if (p == null) {
            fp8 = oldFp8;
            y = oldY;
            outChannels = oldOc;
            epilogue = oldE;
            residual = oldR;
            shortcutActivation = oldA;
            return false;
        }
        plans.clear();
        plans.put(n, forwardOnly(p));
        packVersion = -1;
        if (fp8) workspace.ensure(p.workspaceBytes());
        else if (fp8Weights != null) dropFp8();   // FP16 won, or cuDNN has no FP8 engine for this form
        if (e == Epilogue.NONE) {
            biasActivation = KernelLaunch.of(ctx.kernels(), FILE, vectorOut() ? "bias_activation_vec8" : "bias_activation_scalar");
            biasActivation.view(y);
            biasActivation.pointer(biasFloat.address());
            biasActivation.i32(outChannels);
            biasActivation.i32(y.pixels());
            biasActivationN = biasActivation.i32(n);
            biasActivation.i32(KernelCodes.activation(spec.activation()));
        }
        return true;
    }

    /**
     * Builds the direct kernel's launch for the configured output and keeps it when forced to, when
     * cuDNN has no plan for the fused form, or when it runs faster than cuDNN's plan for n images (each timed over 5
     * runs after one, the faster of two rounds). The losing form leaves nothing behind.
     */
    private boolean chooseDirect(int n, ConvolutionPlan cudnn, GpuStream stream) {
        String kernel = "conv_direct_k" + paddedFilters;
        KernelLaunch k = KernelLaunch.of(ctx.kernels(), FILE, kernel);
        k.view(x);
        k.i32(spec.input().height());
        k.i32(spec.input().width());
        k.view(y);
        k.i32(spec.output().height());
        k.i32(spec.output().width());
        k.pointer(directWeights.address());
        k.pointer(biasFloat.address());
        k.i32(spec.size());
        k.i32(spec.strideX());
        k.i32(spec.pad());
        directN = k.i32(n);
        k.i32(KernelCodes.activation(spec.activation()));
        direct = k;
        if (cudnn == null) {
            directTiming = directForced ? "asked for" : "cuDNN has no fused plan";
            return true;
        }
        String key = choiceKey("direct", n);
        TimedChoice known = CHOICES.get(key);
        if (known != null) {
            directTiming = known.timing();
            if (known.ours()) return true;
            direct = null;
            return false;
        }
        workspace.ensure(cudnn.workspaceBytes());
        plans.put(n, forwardOnly(cudnn));
        packVersion = -1;
        float[] ms = timeForms(stream, f -> { }, f -> {
            if (f == 0) launchDirect(n, stream);
            else execute(ConvolutionOperation.FORWARD, n);
        });
        float ours = ms[0], theirs = ms[1];
        directTiming = String.format(java.util.Locale.ROOT, "%.3f ms vs cuDNN %.3f ms at batch %d", ours, theirs, n);
        remember(key, ours < theirs, directTiming);
        if (ours < theirs) return true;
        direct = null;
        return false;
    }

    /**
     * A timed choice between two forms of one convolution (our direct kernel or cuDNN's plan; FP8 or FP16) made once
     * per device and problem, as the planner keeps one plan per device and shape: every network on a device then runs
     * the same form, so two detectors of one model (two memory modes, several workers) compute the same numbers, and
     * a choice between near-equal forms does not flip with timing noise. Keys are a network's convolution shapes:
     * a handful per model.
     */
    private record TimedChoice(boolean ours, String timing) {}

    private static final Map<String, TimedChoice> CHOICES = new ConcurrentHashMap<>();

    private String choiceKey(String what, int n) {
        return ctx.device().index() + " " + what + " " + inferenceProblem(n).key();
    }

    private static void remember(String key, boolean ours, String timing) {
        CHOICES.putIfAbsent(key, new TimedChoice(ours, timing + ", kept for this device"));
    }

    /**
     * Milliseconds per run of two forms of this convolution, each the faster of two rounds of 5 runs after one, the
     * forms alternating so that a clock change or another job on the GPU weighs on both: {@code select} switches to
     * form f (untimed), {@code run} runs it once.
     */
    private static float[] timeForms(GpuStream stream, IntConsumer select, IntConsumer run) {
        float[] ms = {Float.MAX_VALUE, Float.MAX_VALUE};
        for (int round = 0; round < 2; round++) {
            for (int f = 0; f < 2; f++) {
                int form = f;
                select.accept(form);
                run.accept(form);
                ms[f] = Math.min(ms[f], stream.time(() -> { for (int i = 0; i < 5; i++) run.accept(form); }) / 5);
            }
        }
        return ms;
    }

    /** A grid-stride loop over the batch's output pixels, one per thread. */
    private void launchDirect(int n, GpuStream stream) {
        direct.setInt(directN, n);
        long outputs = (long) n * spec.output().height() * spec.output().width();
        direct.launch(KernelLaunch.grid(outputs, ctx.device()), 1, KernelLaunch.BLOCK, stream.handle());
    }

    /** The FP8 form's plan for n images writing the configured output (null when cuDNN has no FP8 engine for it). */
    private ConvolutionPlan fp8Plan(int n, GpuStream stream) {
        long need = fp8InputBytes(spec, x.pixels(), n);   // inChannels is the padded count wherever FP8 applies
        if (fp8Input.bytes() < need) {
            throw new IllegalStateException("layer " + spec.index() + ": the FP8 input area holds " + fp8Input.bytes()
                    + " bytes, batch " + n + " needs " + need);
        }
        quantize = KernelLaunch.of(ctx.kernels(), "quantize.cu", "quantize_fp8");
        quantize.view(x);
        quantize.i32(inChannels);
        quantize.i32(x.pixels());
        quantizeN = quantize.i32(n);
        quantize.f32(1f / fp8InputScale);
        quantize.pointer(fp8Input.address());
        fp8 = true;
        try {
            return inferencePlan(n, stream);
        } finally {
            fp8 = false;
        }
    }

    /**
     * Times the FP16 plan against the FP8 one (its quantization included) for n images, each over 5 runs after one,
     * the faster of two rounds; says so in {@link #describe}.
     */
    private boolean fp8Faster(int n, ConvolutionPlan half, ConvolutionPlan eight, GpuStream stream) {
        String key = choiceKey("fp8", n);
        TimedChoice known = CHOICES.get(key);
        if (known != null) {
            fp8Timing = known.timing();
            return known.ours();
        }
        ConvolutionPlan[] forms = {half, eight};
        float[] ms = timeForms(stream, f -> {
            fp8 = f == 1;
            workspace.ensure(forms[f].workspaceBytes());
            plans.clear();
            plans.put(n, forwardOnly(forms[f]));
            packVersion = -1;
        }, f -> convolveInference(n, stream));
        fp8 = false;
        plans.clear();
        packVersion = -1;
        fp8Timing = String.format(java.util.Locale.ROOT, "FP8 %.3f ms vs FP16 %.3f ms at batch %d", ms[1], ms[0], n);
        remember(key, ms[1] < ms[0], fp8Timing);
        return ms[1] < ms[0];
    }

    /** The convolution of the configured form: quantizing the input first in FP8 (no bias_activation kernel). */
    private void convolveInference(int n, GpuStream stream) {
        if (fp8) {
            quantize.setInt(quantizeN, n);
            quantize.launch(KernelLaunch.grid((long) n * x.pixels() * (inChannels / 16), ctx.device()), 1,
                    KernelLaunch.BLOCK, stream.handle());
        }
        execute(ConvolutionOperation.FORWARD, n);
    }

    /**
     * Whether {@link #configure} may run the direct kernel where it is timed faster than cuDNN ({@code allowed}), or
     * wherever it applies ({@code forced}); set before configuring.
     */
    public void directChoice(boolean allowed, boolean forced) {
        this.directAllowed = allowed || forced;
        this.directForced = forced;
    }

    private static ConvolutionPlan[] forwardOnly(ConvolutionPlan p) {
        ConvolutionPlan[] a = new ConvolutionPlan[3];
        a[ConvolutionOperation.FORWARD.ordinal()] = p;
        return a;
    }

    private boolean vectorOut() {
        return outChannels % 8 == 0 && y.channelOffset() % 8 == 0 && y.pixelStride() % 8 == 0;
    }

    /** The planner's problem for n images in the configured inference form. */
    private ConvolutionProblem inferenceProblem(int n) {
        io.argus.gpu.cudnn.Epilogue e = switch (epilogue) {
            case NONE -> io.argus.gpu.cudnn.Epilogue.NONE;
            case BIAS_ACTIVATION -> io.argus.gpu.cudnn.Epilogue.biasActivation(activation(spec.activation()));
            case BIAS_ACTIVATION_RESIDUAL -> io.argus.gpu.cudnn.Epilogue.biasActivationResidual(
                    activation(spec.activation()), activation(shortcutActivation));
        };
        Operands o = operands(ConvolutionOperation.FORWARD);
        StridedShape in = fp8 ? StridedShape.dense(n, inChannels, spec.input().height(), spec.input().width(), inChannels)
                : StridedShape.of(x, n, inChannels);
        return new ConvolutionProblem(ConvolutionOperation.FORWARD, fp8 ? Numerics.FP8 : Numerics.HALF, in,
                StridedShape.of(y, n, outChannels), inChannels / spec.groups(), spec.size(), spec.strideY(),
                spec.strideX(), spec.pad(), e, residual == null ? null : StridedShape.of(residual, n, outChannels), 0f,
                ConvolutionProblem.alignmentOf(o.input(), o.filter(), o.output(), o.bias(), o.residual(), o.scale()));
    }

    static io.argus.gpu.cudnn.Epilogue.Activation activation(Activation a) {
        return io.argus.gpu.cudnn.Epilogue.Activation.valueOf(a.name());
    }

    /** The device planner's plan for n images (null when cuDNN has no engine for this form). */
    private ConvolutionPlan inferencePlan(int n, GpuStream stream) {
        return ConvolutionPlanner.of(ctx).plan(inferenceProblem(n), operands(ConvolutionOperation.FORWARD), workspace,
                stream, ctx.cudnn(), settings);
    }

    /** The inference form chosen by {@link #configure}. */
    public Epilogue epilogue() { return epilogue; }

    // ---- both: operands, plans, variant packs ----

    /**
     * The pointers of one operation by role: input-shaped (x or dx), filter-shaped (W or dW), output-shaped (y, z
     * or dz); in inference also the FP16 bias and the residual of a fused epilogue.
     */
    private Operands operands(ConvolutionOperation op) {
        if (!training()) {
            long bias = epilogue == Epilogue.NONE ? 0 : biasHalf.address();
            long res = residual == null ? 0 : residual.address();
            return fp8 ? new Operands(fp8Input.address(), fp8Weights.address(), y.address(), bias, res,
                    fp8Scales.address())
                    : new Operands(x.address(), weights.address(), y.address(), bias, res);
        }
        return switch (op) {
            case FORWARD -> Operands.of(x.address(), training.weights(), z.address());
            case BACKWARD_DATA -> Operands.of(dx.address(), training.weights(), dy.address());
            case BACKWARD_FILTER -> Operands.of(x.address(), training.passGradient(), dy.address());
        };
    }

    private cudnnContext cudnn() { return training() ? training.cudnn() : ctx.cudnn(); }

    private void execute(ConvolutionOperation op, int n) {
        ConvolutionPlan[] p = plans.get(n);
        if (p == null) {
            throw new IllegalStateException("layer " + spec.index() + ": batch " + n
                    + (training() ? " not planned" : " not prepared"));
        }
        if (packVersion != workspace.version()) {
            for (int i = 0; i < 3; i++) {
                if (packs[i] != null) packs[i].close();
                packs[i] = null;
            }
            packVersion = workspace.version();
        }
        int i = op.ordinal();
        if (packs[i] == null) packs[i] = operands(op).pack(workspace.address());
        p[i].execute(cudnn(), packs[i]);
    }

    private static long workspaceNeeded(ConvolutionPlan[] p) {
        long most = 0;
        for (ConvolutionPlan c : p) if (c != null) most = Math.max(most, c.workspaceBytes());
        return most;
    }

    /** The largest workspace any planned operation needs. */
    public long workspaceNeeded() {
        long most = 0;
        for (ConvolutionPlan[] p : plans.values()) most = Math.max(most, workspaceNeeded(p));
        return most;
    }

    // ---- training: planning ----

    /** How many bytes a training layer's own per-channel FP32 arrays take ({@link Training#scalars}). */
    public static long scalarBytes(int paddedStride) { return 5L * 4 * paddedStride; }

    private ConvolutionProblem trainingProblem(ConvolutionOperation op, int n) {
        Operands o = operands(op);
        return ConvolutionProblem.plain(op, training.numerics(),
                StridedShape.dense(n, x.pixelStride(), spec.input().height(), spec.input().width(), x.pixelStride()),
                StridedShape.dense(n, stride, spec.output().height(), spec.output().width(), stride),
                training.filterChannels(), spec.size(), spec.strideY(), spec.strideX(), spec.pad(),
                op == ConvolutionOperation.BACKWARD_DATA && accumulateInputGradient ? 1f : 0f,
                ConvolutionProblem.alignmentOf(o.input(), o.filter(), o.output()));
    }

    /**
     * Training: plans forward, backward data (when the input has a gradient) and backward filter for batch n through
     * the device's planner (the buffers are scratch while timing), each within {@code settings}' workspace limit,
     * else within the configured one. Returns the plans' largest workspace.
     */
    public long plan(int n, PlanSettings settings) {
        requireTraining("plan");
        ConvolutionPlan[] p = new ConvolutionPlan[3];
        ConvolutionPlanner planner = ConvolutionPlanner.of(ctx);
        for (ConvolutionOperation op : ConvolutionOperation.values()) {
            if (op == ConvolutionOperation.BACKWARD_DATA && dx == null) continue;
            p[op.ordinal()] = planner.plan(trainingProblem(op, n), operands(op), workspace, training.stream(),
                    training.cudnn(), settings);
            if (p[op.ordinal()] == null && settings.workspaceLimit() < training.workspaceLimit()) {
                // nothing within the planning budget: the configured limit, at the cost of a higher planning peak
                settings = settings.withWorkspaceLimit(training.workspaceLimit());
                p[op.ordinal()] = planner.plan(trainingProblem(op, n), operands(op), workspace, training.stream(),
                        training.cudnn(), settings);
            }
            if (p[op.ordinal()] == null) {
                throw new CudaException("layer " + spec.index() + " (" + spec.size() + "x" + spec.size() + "/"
                        + spec.strideX() + " " + spec.input().channels() + "->" + spec.filters() + "): cuDNN offers no "
                        + op + " engine for " + training.mode() + " NHWC within "
                        + GpuBuffer.mib(settings.workspaceLimit()) + " of workspace");
            }
        }
        plans.put(n, p);
        return workspaceNeeded(p);
    }

    /** Training: whether batch n is planned. */
    public boolean planned(int n) { return plans.containsKey(n); }

    /** Training: the layer's own per-channel arrays: 0 mean, 1 inv, 2 variance (of the last forward's batch). */
    public long scalars(int which) {
        requireTraining("scalars");
        return training.scalars() + 4L * which * stride;
    }

    // ---- GpuLayer ----

    @Override
    public LayerSpec spec() { return spec; }

    /** The [convolutional] spec (filters, batch norm, ...). */
    public ConvolutionalSpec convolution() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    /**
     * Inference: plans batch n in the form chosen for the largest batch. Training plans through {@link #plan}
     * (the network bounds the planning peak), so this does nothing there.
     */
    @Override
    public void prepare(int n, GpuStream stream) {
        if (training() || direct != null || plans.containsKey(n)) return;
        ConvolutionPlan p = inferencePlan(n, stream);
        if (p == null) {
            throw new CudaException("layer " + spec.index() + " (convolutional, line " + spec.line() + "): cuDNN has no "
                    + "engine for batch " + n + " in the form chosen for the largest batch (" + epilogue + ")");
        }
        plans.put(n, forwardOnly(p));
    }

    /**
     * Inference: the convolution with its configured epilogue (plus the bias_activation kernel where cuDNN fused
     * none). Training: z = conv(x, W), then batch statistics (or the bias) and the activation into y, enqueued on
     * the training stream ({@code stream} is that stream: its cuDNN handle is bound to it).
     */
    @Override
    public void forward(int n, GpuStream stream) {
        if (training()) {
            convolve(n);
            normalize(n);
            return;
        }
        if (direct != null) {
            launchDirect(n, stream);
            return;
        }
        convolveInference(n, stream);
        if (epilogue == Epilogue.NONE) {
            biasActivation.setInt(biasActivationN, n);
            biasActivation.launch(KernelLaunch.grid((long) n * y.pixels() * (vectorOut() ? outChannels / 8 : outChannels),
                    ctx.device()), 1, KernelLaunch.BLOCK, stream.handle());
        }
    }

    private void convolve(int n) {
        execute(ConvolutionOperation.FORWARD, n);
    }

    private void normalize(int n) {
        long pixels = n * pixelsPerImage;
        long lanes = pixels * (stride / 8);
        CUstream_st s = training.stream().handle();
        if (stats != null) {
            int grid = KernelLaunch.reductionGrid(lanes, ctx.device());
            stats.setLong(statsN, pixels).launch(grid, s);
            finalize.setInt(finalizeBlocks, grid).setLong(finalizeCount, pixels)
                    .launch(stride / 8, s);   // a block per 8 channels
        }
        apply.setLong(applyN, pixels).launch(KernelLaunch.grid(lanes, ctx.device()), s);
    }

    /** Training only (an inference layer has no gradients). */
    @Override
    public void backward(int n, GpuStream stream) {
        if (!training()) return;
        normalizeBackward(n);
        backwardData(n);
        backwardFilter(n);
    }

    /**
     * Training: forward or backward with device times per part, in ms (waiting between parts): forward {cuDNN
     * forward, normalize}, backward {normalize backward, backward data, backward filter}.
     */
    public float[] profile(int n, boolean backward) {
        requireTraining("profile");
        GpuStream s = training.stream();
        if (!backward) return new float[] {s.time(() -> convolve(n)), s.time(() -> normalize(n))};
        return new float[] {s.time(() -> normalizeBackward(n)), s.time(() -> backwardData(n)),
                s.time(() -> backwardFilter(n))};
    }

    private void normalizeBackward(int n) {
        long pixels = n * pixelsPerImage;
        long lanes = pixels * (stride / 8);
        CUstream_st s = training.stream().handle();
        int grid = KernelLaunch.reductionGrid(lanes, ctx.device());
        backReduce.setLong(backReduceN, pixels).launch(grid, s);
        backFinalize.setInt(backFinalizeBlocks, grid);
        if (backFinalizeCount >= 0) backFinalize.setLong(backFinalizeCount, pixels);
        backFinalize.launch(stride / 8, s);   // a block per 8 channels
        if (backApply != null) backApply.setLong(backApplyN, pixels).launch(KernelLaunch.grid(lanes, ctx.device()), s);
    }

    private void backwardData(int n) {
        if (dx != null) execute(ConvolutionOperation.BACKWARD_DATA, n);
    }

    private void backwardFilter(int n) {
        execute(ConvolutionOperation.BACKWARD_FILTER, n);
    }

    @Override
    public String describe() {
        if (training()) {
            return String.format(java.util.Locale.ROOT, "conv %dx%d/%d %d->%d %s%s", spec.size(), spec.size(),
                    spec.strideX(), spec.input().channels(), spec.filters(), spec.activation(),
                    spec.batchNormalize() ? " bn" : "") + (accumulateInputGradient ? "" : " dx=");
        }
        ConvolutionPlan[] any = plans.values().stream().findFirst().orElse(null);
        return String.format(java.util.Locale.ROOT, "conv %dx%d/%d %d->%d %s %s%s%s", spec.size(), spec.size(),
                spec.strideX(), spec.input().channels(), spec.filters(), spec.activation(),
                direct != null ? "direct kernel (" + directTiming + ")"
                        : (fp8 ? "FP8 " : fp8Timing.isEmpty() ? "" : "FP16 ")
                        + (epilogue == Epilogue.NONE ? "+ bias_activation kernel" : "fused " + epilogue)
                        + (fp8Timing.isEmpty() ? "" : " (" + fp8Timing + ")"),
                y.pixelStride() != TensorView.padded(y.channels()) ? " in place" : "",
                any == null ? "" : " [" + any[ConvolutionOperation.FORWARD.ordinal()].describe()
                        + (directTiming.isEmpty() ? "" : "; direct kernel " + directTiming) + "]");
    }

    /** "fwd engine 12 tc, 0.1 ms best of 8, ws 1.0 MiB; bwd-data ...; bwd-filter ..." for batch n. */
    public String describePlan(int n) {
        ConvolutionPlan[] p = plans.get(n);
        if (p == null) return "not planned";
        String[] names = {"fwd", "bwd-data", "bwd-filter"};
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 3; i++) if (p[i] != null) s.append(names[i]).append(' ').append(p[i].describe()).append("; ");
        return s.toString();
    }

    /**
     * Plans belong to the device's planner (shared by shape); this layer's variant packs are freed here, and in
     * inference its folded weights and biases.
     */
    @Override
    public void close() {
        for (CudnnDescriptor d : packs) if (d != null) d.close();
        if (weights != null) weights.close();
        if (biasHalf != null) biasHalf.close();
        if (biasFloat != null) biasFloat.close();
        if (directWeights != null) directWeights.close();
        dropFp8();
    }
}
