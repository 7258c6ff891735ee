package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.detector.darknet.Activation;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudaLog;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import io.argus.gpu.TensorView;
import io.argus.gpu.Workspace;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One convolution as a cuDNN graph (backend API): FP16 NHWC tensors, FP32 accumulation, and, when asked, the
 * epilogue fused into the same kernel: + bias, activation, and for a following [shortcut] + residual and its
 * activation. The engine is found once per shape: cuDNN's heuristics propose configurations, each that finalizes is
 * timed on the real buffers, the fastest is kept in the device's plan cache.
 */
final class ConvolutionPlan {
    /** What runs after the convolution inside the cuDNN kernel. */
    enum Epilogue { NONE, BIAS_ACTIVATION, BIAS_ACTIVATION_RESIDUAL }

    static final long UID_X = 1;
    static final long UID_W = 2;
    static final long UID_B = 3;
    static final long UID_Y = 4;
    static final long UID_R = 5;

    /**
     * The convolution to plan. Views describe n images; {@code inChannels} is how many input channels the filter
     * reads (the view's channels rounded up to 8 where the buffer has room), {@code outChannels} likewise.
     */
    record Request(int n, TensorView x, int inChannels, TensorView y, int outChannels, int kernel, int strideY,
                   int strideX, int pad, int groups, Epilogue epilogue, Activation activation, TensorView residual,
                   Activation shortcutActivation) {

        String key() {
            return String.format(Locale.ROOT, "n%d x[%s|%d] y[%s|%d] k%d s%dx%d p%d g%d %s %s r[%s] %s", n,
                    layout(x), inChannels, layout(y), outChannels, kernel, strideY, strideX, pad, groups, epilogue,
                    epilogue == Epilogue.NONE ? "-" : activation,
                    residual == null ? "-" : layout(residual), shortcutActivation == null ? "-" : shortcutActivation);
        }

        private static String layout(TensorView v) {
            return v.height() + "x" + v.width() + "/" + v.imageStride() + "/" + v.pixelStride() + "/"
                    + (v.channelOffset() % 64);
        }
    }

    private final CudnnDescriptor plan;
    private final long workspace;
    private final String engine;
    private final float milliseconds;
    private final int candidates;

    private ConvolutionPlan(CudnnDescriptor plan, long workspace, String engine, float milliseconds, int candidates) {
        this.plan = plan;
        this.workspace = workspace;
        this.engine = engine;
        this.milliseconds = milliseconds;
        this.candidates = candidates;
    }

    long workspaceBytes() { return workspace; }

    /** "engine 12 (tensor core), 0.123 ms of 4 timed" for logs. */
    String describe() {
        return String.format(Locale.ROOT, "%s, %.3f ms best of %d", engine, milliseconds, candidates);
    }

    /** Enqueues the convolution on the handle's current stream. */
    void execute(DeviceContext ctx, CudnnDescriptor variantPack) {
        int s = cudnnBackendExecute(ctx.cudnn(), plan.handle(), variantPack.handle());
        if (s != 0) throw new CudaException("cudnnBackendExecute failed: " + Status.cudnnMessage(s));
    }

    /** The pointers of one execution: tensors by unique id plus the workspace. */
    static CudnnDescriptor variantPack(long x, long w, long b, long y, long r, long workspace) {
        CudnnDescriptor vp = new CudnnDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
        List<Long> uids = new ArrayList<>(List.of(UID_X, UID_W, UID_Y));
        List<Long> ptrs = new ArrayList<>(List.of(x, w, y));
        if (b != 0) {
            uids.add(UID_B);
            ptrs.add(b);
        }
        if (r != 0) {
            uids.add(UID_R);
            ptrs.add(r);
        }
        vp.int64(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, "unique ids", uids.stream().mapToLong(Long::longValue).toArray());
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, "data pointers",
                ptrs.stream().mapToLong(Long::longValue).toArray());
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, "workspace", workspace);
        return vp.finish();
    }

    /** Supplies the variant pack for a workspace address (autotuning runs candidates on the real buffers). */
    interface Packs {
        CudnnDescriptor forWorkspace(long workspaceAddress);
    }

    /**
     * The plan for this request: from the device's cache, else searched and timed now. Returns null when cuDNN has
     * no engine for it (the caller tries a less fused form). Call under the device lock, stream set on the handle.
     */
    static ConvolutionPlan find(DeviceContext ctx, Request req, Workspace ws, GpuStream stream, Packs packs,
                                int maxCandidates) {
        String key = req.key();
        ConvolutionPlan cached = ctx.cache(ConvolutionPlan.class).get(key);
        if (cached != null) {
            ws.ensure(cached.workspace);
            return cached;
        }
        List<CudnnDescriptor> keep = new ArrayList<>();
        try {
            CudnnDescriptor graph = graph(ctx, req, keep);
            if (graph == null) return null;
            List<Candidate> found = candidates(ctx, graph, maxCandidates, keep);
            if (found.isEmpty()) return null;
            Candidate best = null;
            for (Candidate c : found) {
                ws.ensure(c.workspace);
                CudnnDescriptor pack = packs.forWorkspace(ws.address());
                try {
                    c.ms = time(ctx, c.plan, pack, stream, found.size() > 1);
                } catch (CudaException e) {
                    c.ms = Float.POSITIVE_INFINITY;
                    if (CudaLog.verbose()) CudaLog.info("candidate " + c.engine + " failed: " + e.getMessage());
                } finally {
                    pack.close();
                }
                if (best == null || c.ms < best.ms) best = c;
            }
            if (best == null || best.ms == Float.POSITIVE_INFINITY) return null;
            for (Candidate c : found) if (c != best) c.plan.close();
            ConvolutionPlan p = new ConvolutionPlan(best.plan, best.workspace, best.engine, best.ms, found.size());
            ws.ensure(p.workspace);
            ctx.cache(ConvolutionPlan.class).put(key, p);
            return p;
        } finally {
            for (CudnnDescriptor d : keep) d.close();
        }
    }

    private static final class Candidate {
        final CudnnDescriptor plan;
        final long workspace;
        final String engine;
        float ms;

        Candidate(CudnnDescriptor plan, long workspace, String engine) {
            this.plan = plan;
            this.workspace = workspace;
            this.engine = engine;
        }
    }

    private static float time(DeviceContext ctx, CudnnDescriptor plan, CudnnDescriptor pack, GpuStream stream,
                              boolean repeat) {
        int s = cudnnBackendExecute(ctx.cudnn(), plan.handle(), pack.handle());
        if (s != 0) throw new CudaException("cudnnBackendExecute: " + Status.cudnnMessage(s));
        stream.synchronize();
        if (!repeat) return 0f;
        int runs = 3;
        float ms = stream.time(() -> {
            for (int i = 0; i < runs; i++) {
                int r = cudnnBackendExecute(ctx.cudnn(), plan.handle(), pack.handle());
                if (r != 0) throw new CudaException("cudnnBackendExecute: " + Status.cudnnMessage(r));
            }
        });
        return ms / runs;
    }

    /** Engine configurations from the heuristics that finalize into execution plans, best guess first. */
    private static List<Candidate> candidates(DeviceContext ctx, CudnnDescriptor graph, int max,
                                              List<CudnnDescriptor> keep) {
        List<Candidate> out = new ArrayList<>();
        for (int mode : new int[] {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
            CudnnDescriptor heur = new CudnnDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "engine heuristics");
            keep.add(heur);
            heur.descriptors(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, "operation graph", graph)
                    .enumeration(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, "mode", mode);
            if (heur.tryFinish() != 0) continue;
            int count = (int) Math.min(32, CudnnDescriptor.count(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                    CUDNN_TYPE_BACKEND_DESCRIPTOR));
            if (count == 0) continue;
            CudnnDescriptor[] configs = new CudnnDescriptor[count];
            for (int i = 0; i < count; i++) {
                configs[i] = new CudnnDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
                keep.add(configs[i]);
            }
            int got = CudnnDescriptor.getDescriptors(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, configs);
            for (int i = 0; i < got && out.size() < max; i++) {
                String engine = engineOf(configs[i], keep);
                if (engine == null) continue;   // reduced-precision accumulation: not for us
                CudnnDescriptor plan = new CudnnDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
                plan.cudnnHandle(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, "handle", ctx.cudnn());
                plan.descriptors(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, "engine config", configs[i]);
                int s = plan.tryFinish();
                if (s != 0) {
                    plan.close();
                    continue;
                }
                long ws = plan.getInt64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "workspace size");
                out.add(new Candidate(plan, ws, engine));
            }
            if (!out.isEmpty()) break;
        }
        return out;
    }

    /** "engine 7 [tensor core]" or null for engines that accumulate in reduced precision. */
    private static String engineOf(CudnnDescriptor config, List<CudnnDescriptor> keep) {
        try {
            CudnnDescriptor engine = new CudnnDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
            keep.add(engine);
            if (CudnnDescriptor.getDescriptors(config, CUDNN_ATTR_ENGINECFG_ENGINE, new CudnnDescriptor[] {engine})
                    != 1) {
                return "engine ?";
            }
            long index = engine.getInt64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "global index");
            int[] notes = engine.getEnums(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 16);
            StringBuilder s = new StringBuilder("engine " + index);
            for (int note : notes) {
                if (note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) return null;
                if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) s.append(" tc");
                if (note == CUDNN_NUMERICAL_NOTE_WINOGRAD) s.append(" winograd");
                if (note == CUDNN_NUMERICAL_NOTE_FFT) s.append(" fft");
            }
            return s.toString();
        } catch (CudaException e) {
            return "engine ?";
        }
    }

    // ------------------------------------------------------------------ the operation graph

    private static long nextVirtual;

    private static CudnnDescriptor graph(DeviceContext ctx, Request r, List<CudnnDescriptor> keep) {
        nextVirtual = 100;
        int n = r.n();
        TensorView x = r.x();
        TensorView y = r.y();
        int cg = r.inChannels() / r.groups();
        int k = r.outChannels();
        CudnnDescriptor xt = tensor(keep, "x", UID_X, CUDNN_DATA_HALF, dims(n, r.inChannels(), x), strides(x), false);
        CudnnDescriptor wt = tensor(keep, "w", UID_W, CUDNN_DATA_HALF, new long[] {k, cg, r.kernel(), r.kernel()},
                new long[] {(long) r.kernel() * r.kernel() * cg, 1, (long) r.kernel() * cg, cg}, false);
        CudnnDescriptor yt = tensor(keep, "y", UID_Y, CUDNN_DATA_HALF, dims(n, k, y), strides(y), false);

        CudnnDescriptor conv = new CudnnDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "convolution");
        keep.add(conv);
        conv.dataType(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, "compute type", CUDNN_DATA_FLOAT)
                .enumeration(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, "mode",
                        CUDNN_CROSS_CORRELATION)
                .int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, "spatial dims", 2)
                .int64(CUDNN_ATTR_CONVOLUTION_DILATIONS, "dilations", 1, 1)
                .int64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, "strides", r.strideY(), r.strideX())
                .int64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, "pre paddings", r.pad(), r.pad())
                .int64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, "post paddings", r.pad(), r.pad())
                .finish();

        List<CudnnDescriptor> ops = new ArrayList<>();
        boolean epilogue = r.epilogue() != Epilogue.NONE;
        CudnnDescriptor convOut = epilogue ? virtual(keep, n, k, y) : yt;
        CudnnDescriptor op = new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, "conv op");
        keep.add(op);
        op.descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "x", xt)
                .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "w", wt)
                .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "y", convOut)
                .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, "conv", conv)
                .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, "alpha", 1f)
                .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, "beta", 0f)
                .finish();
        ops.add(op);
        if (epilogue) {
            // the chain of pointwise ops; `last` is what the next op reads, the final op writes y
            List<Step> steps = new ArrayList<>();
            steps.add(Step.binary(CUDNN_POINTWISE_ADD, "bias"));
            activationSteps(r.activation(), steps);
            if (r.epilogue() == Epilogue.BIAS_ACTIVATION_RESIDUAL) {
                steps.add(Step.binary(CUDNN_POINTWISE_ADD, "residual"));
                activationSteps(r.shortcutActivation(), steps);
            }
            CudnnDescriptor bt = tensor(keep, "bias", UID_B, CUDNN_DATA_HALF, new long[] {1, k, 1, 1},
                    new long[] {k, 1, k, k}, false);
            CudnnDescriptor rt = r.residual() == null ? null
                    : tensor(keep, "residual", UID_R, CUDNN_DATA_HALF, dims(n, k, r.residual()), strides(r.residual()),
                    false);
            CudnnDescriptor current = convOut;
            CudnnDescriptor activationInput = null;   // mish multiplies its input by tanh(softplus(input))
            for (int i = 0; i < steps.size(); i++) {
                Step s = steps.get(i);
                boolean lastStep = i == steps.size() - 1;
                CudnnDescriptor out = lastStep ? yt : virtual(keep, n, k, y);
                CudnnDescriptor second = s.operand == null ? null : switch (s.operand) {
                    case "bias" -> bt;
                    case "residual" -> rt;
                    case "activation input" -> activationInput;
                    default -> throw new IllegalStateException("unknown operand " + s.operand);
                };
                if (s.startsActivation) activationInput = current;
                ops.add(pointwise(keep, s, current, second, out));
                current = out;
            }
        }
        CudnnDescriptor graph = new CudnnDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
        keep.add(graph);
        graph.cudnnHandle(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, "handle", ctx.cudnn())
                .descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, "ops", ops.toArray(new CudnnDescriptor[0]));
        int s = graph.tryFinish();
        if (s != 0) {
            if (CudaLog.verbose()) CudaLog.info("cuDNN rejects the graph " + r.key() + ": " + Status.cudnnMessage(s));
            return null;
        }
        return graph;
    }

    /** One pointwise op of the epilogue: mode, the name of its second operand (or null), parameters. */
    private record Step(int mode, String operand, double reluSlope, boolean startsActivation) {
        static Step binary(int mode, String operand) {
            return new Step(mode, operand, 0, false);
        }
    }

    private static void activationSteps(Activation a, List<Step> steps) {
        switch (a) {
            case LINEAR -> { }
            case LEAKY -> steps.add(new Step(CUDNN_POINTWISE_RELU_FWD, null, 0.1, false));
            case RELU -> steps.add(new Step(CUDNN_POINTWISE_RELU_FWD, null, 0, false));
            case LOGISTIC -> steps.add(new Step(CUDNN_POINTWISE_SIGMOID_FWD, null, 0, false));
            case SWISH -> steps.add(new Step(CUDNN_POINTWISE_SWISH_FWD, null, 0, false));
            case MISH -> {
                steps.add(new Step(CUDNN_POINTWISE_SOFTPLUS_FWD, null, 0, true));
                steps.add(new Step(CUDNN_POINTWISE_TANH_FWD, null, 0, false));
                steps.add(new Step(CUDNN_POINTWISE_MUL, "activation input", 0, false));
            }
        }
    }

    private static CudnnDescriptor pointwise(List<CudnnDescriptor> keep, Step s, CudnnDescriptor x,
                                             CudnnDescriptor b, CudnnDescriptor y) {
        CudnnDescriptor pw = new CudnnDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise " + s.mode);
        keep.add(pw);
        pw.enumeration(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, "mode", s.mode)
                .dataType(CUDNN_ATTR_POINTWISE_MATH_PREC, "math precision", CUDNN_DATA_FLOAT);
        if (s.mode == CUDNN_POINTWISE_RELU_FWD && s.reluSlope != 0) {
            pw.float64(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, "relu lower clip slope", s.reluSlope);
        }
        if (s.mode == CUDNN_POINTWISE_SWISH_FWD) pw.float64(CUDNN_ATTR_POINTWISE_SWISH_BETA, "swish beta", 1.0);
        if (s.mode == CUDNN_POINTWISE_SOFTPLUS_FWD) pw.float64(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, "softplus beta", 1.0);
        pw.finish();
        CudnnDescriptor op = new CudnnDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pointwise op");
        keep.add(op);
        op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, "pointwise", pw)
                .descriptors(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, "x", x);
        if (b != null) op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, "b", b);
        op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, "y", y);
        return op.finish();
    }

    private static long[] dims(int n, int channels, TensorView v) {
        return new long[] {n, channels, v.height(), v.width()};
    }

    /** NHWC strides of a view, in cuDNN's NCHW dimension order. */
    private static long[] strides(TensorView v) {
        return new long[] {v.imageStride(), 1, (long) v.width() * v.pixelStride(), v.pixelStride()};
    }

    private static CudnnDescriptor virtual(List<CudnnDescriptor> keep, int n, int k, TensorView shape) {
        long h = shape.height();
        long w = shape.width();
        return tensor(keep, "virtual", nextVirtual++, CUDNN_DATA_FLOAT, new long[] {n, k, h, w},
                new long[] {h * w * k, 1, w * k, k}, true);
    }

    private static CudnnDescriptor tensor(List<CudnnDescriptor> keep, String name, long uid, int type, long[] dims,
                                          long[] strides, boolean virtual) {
        CudnnDescriptor t = new CudnnDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + name);
        keep.add(t);
        return t.dataType(CUDNN_ATTR_TENSOR_DATA_TYPE, "data type", type)
                .int64(CUDNN_ATTR_TENSOR_DIMENSIONS, "dimensions", dims)
                .int64(CUDNN_ATTR_TENSOR_STRIDES, "strides", strides)
                .int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, "unique id", uid)
                .int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, "alignment", 16)
                .bool(CUDNN_ATTR_TENSOR_IS_VIRTUAL, "virtual", virtual)
                .finish();
    }
}
