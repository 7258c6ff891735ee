package io.argus.detector.cuda;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.DeviceContext;
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

/**
 * [convolutional] on cuDNN: batch norm folded into FP16 weights (KRSC, input and output channels padded with zeros
 * to multiples of 8), FP32 accumulation. The network first {@link #configure}s it for its largest batch, trying the
 * most fused form first (bias + activation, and a following [shortcut], inside cuDNN's kernel; writing straight into
 * a route's buffer); when cuDNN has no engine for that, a plain convolution plus our bias+activation kernel.
 */
final class Convolution implements CudaLayer {
    /** What runs after the convolution inside the cuDNN kernel. */
    enum Epilogue { NONE, BIAS_ACTIVATION, BIAS_ACTIVATION_RESIDUAL }

    private final ConvolutionalSpec spec;
    private final DeviceContext ctx;
    private final Workspace workspace;
    private final PlanSettings settings;
    private final TensorView x;
    private final int inChannels;
    private final int paddedFilters;
    private final GpuBuffer weights;
    private final GpuBuffer biasHalf;
    private final GpuBuffer biasFloat;
    private final Map<Integer, ConvolutionPlan> plans = new HashMap<>();

    private TensorView y;
    private int outChannels;
    private Epilogue epilogue;
    private TensorView residual;
    private Activation shortcutActivation;
    private CudnnDescriptor pack;
    private int packVersion = -1;
    private KernelLaunch biasActivation;
    private int biasActivationN;

    Convolution(ConvolutionalSpec spec, ConvWeights params, TensorView x, DeviceContext ctx, Workspace workspace,
                PlanSettings settings) {
        this.spec = spec;
        this.ctx = ctx;
        this.workspace = workspace;
        this.settings = settings;
        this.x = x;
        if (x.channelOffset() % 8 != 0) {
            throw new CudaException("layer " + spec.index() + " (line " + spec.line() + "): input channels start at "
                    + x.channelOffset() + ", not a multiple of 8; the CUDA backend needs 16-byte aligned inputs");
        }
        int cin = spec.input().channels();
        this.inChannels = spec.groups() == 1 && x.channelOffset() + TensorView.padded(cin) <= x.pixelStride()
                ? TensorView.padded(cin) : cin;
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

    /**
     * Tries to plan this convolution for {@code n} images writing {@code out}, with the given epilogue (and residual
     * for a fused shortcut). On success the form is kept for every batch size; on failure nothing changes.
     */
    boolean configure(int n, TensorView out, Epilogue e, TensorView res, Activation resActivation, GpuStream stream) {
        int oc = out.channels() % 8 != 0 && out.channelOffset() + paddedFilters <= out.pixelStride()
                ? paddedFilters : out.channels();
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
        ConvolutionPlan p = plan(n, stream);
        if (p == null) {
            y = oldY;
            outChannels = oldOc;
            epilogue = oldE;
            residual = oldR;
            shortcutActivation = oldA;
            return false;
        }
        plans.clear();
        plans.put(n, p);
        packVersion = -1;
        if (e == Epilogue.NONE) {
            biasActivation = KernelLaunch.of(ctx.kernels(), "bias_activation.cu", vectorOut() ? "bias_activation_vec8" : "bias_activation_scalar");
            biasActivation.view(y);
            biasActivation.pointer(biasFloat.address());
            biasActivation.i32(outChannels);
            biasActivation.i32(y.pixels());
            biasActivationN = biasActivation.i32(n);
            biasActivation.i32(KernelCodes.activation(spec.activation()));
        }
        return true;
    }

    private boolean vectorOut() {
        return outChannels % 8 == 0 && y.channelOffset() % 8 == 0 && y.pixelStride() % 8 == 0;
    }

    /** The planner's problem for n images in the configured form. */
    private ConvolutionProblem problem(int n) {
        io.argus.gpu.cudnn.Epilogue e = switch (epilogue) {
            case NONE -> io.argus.gpu.cudnn.Epilogue.NONE;
            case BIAS_ACTIVATION -> io.argus.gpu.cudnn.Epilogue.biasActivation(activation(spec.activation()));
            case BIAS_ACTIVATION_RESIDUAL -> io.argus.gpu.cudnn.Epilogue.biasActivationResidual(
                    activation(spec.activation()), activation(shortcutActivation));
        };
        Operands o = operands();
        return new ConvolutionProblem(ConvolutionOperation.FORWARD, Numerics.HALF, StridedShape.of(x, n, inChannels),
                StridedShape.of(y, n, outChannels), inChannels / spec.groups(), spec.size(), spec.strideY(),
                spec.strideX(), spec.pad(), e, residual == null ? null : StridedShape.of(residual, n, outChannels), 0f,
                ConvolutionProblem.alignmentOf(o.input(), o.filter(), o.output(), o.bias(), o.residual()));
    }

    static io.argus.gpu.cudnn.Epilogue.Activation activation(Activation a) {
        return io.argus.gpu.cudnn.Epilogue.Activation.valueOf(a.name());
    }

    private Operands operands() {
        return new Operands(x.address(), weights.address(), y.address(),
                epilogue == Epilogue.NONE ? 0 : biasHalf.address(), residual == null ? 0 : residual.address());
    }

    /** The device planner's plan for n images (null when cuDNN has no engine for this form). */
    private ConvolutionPlan plan(int n, GpuStream stream) {
        return ConvolutionPlanner.of(ctx).plan(problem(n), operands(), workspace, stream, ctx.cudnn(), settings);
    }

    private CudnnDescriptor packFor(long workspaceAddress) {
        return operands().pack(workspaceAddress);
    }

    Epilogue epilogue() { return epilogue; }

    /** The most workspace any of this layer's plans needs. */
    long workspaceNeeded() {
        return plans.values().stream().mapToLong(ConvolutionPlan::workspaceBytes).max().orElse(0);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void prepare(int n, GpuStream stream) {
        if (plans.containsKey(n)) return;
        ConvolutionPlan p = plan(n, stream);
        if (p == null) {
            throw new CudaException("layer " + spec.index() + " (convolutional, line " + spec.line() + "): cuDNN has no "
                    + "engine for batch " + n + " in the form chosen for the largest batch (" + epilogue + ")");
        }
        plans.put(n, p);
    }

    @Override
    public void forward(int n, GpuStream stream) {
        ConvolutionPlan p = plans.get(n);
        if (p == null) throw new IllegalStateException("layer " + spec.index() + " not prepared for batch " + n);
        if (packVersion != workspace.version() || pack == null) {
            if (pack != null) pack.close();
            pack = packFor(workspace.address());
            packVersion = workspace.version();
        }
        p.execute(ctx.cudnn(), pack);
        if (epilogue == Epilogue.NONE) {
            biasActivation.setInt(biasActivationN, n);
            biasActivation.launch(KernelLaunch.grid((long) n * y.pixels() * (vectorOut() ? outChannels / 8 : outChannels),
                    ctx.device()), 1, KernelLaunch.BLOCK, stream.handle());
        }
    }

    @Override
    public String describe() {
        ConvolutionPlan any = plans.values().stream().findFirst().orElse(null);
        return String.format(java.util.Locale.ROOT, "conv %dx%d/%d %d->%d %s %s%s%s", spec.size(), spec.size(),
                spec.strideX(), spec.input().channels(), spec.filters(), spec.activation(),
                epilogue == Epilogue.NONE ? "+ bias_activation kernel" : "fused " + epilogue,
                y.pixelStride() != TensorView.padded(y.channels()) ? " in place" : "",
                any == null ? "" : " [" + any.describe() + "]");
    }

    @Override
    public void close() {
        if (pack != null) pack.close();
        weights.close();
        biasHalf.close();
        biasFloat.close();
    }
}
