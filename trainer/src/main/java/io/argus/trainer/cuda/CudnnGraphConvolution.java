package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.gpu.CudaException;
import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * One of a training convolution's three operations as a cuDNN graph (backend API), the way cudnn-frontend and
 * PyTorch run them. Why: for NHWC FP32 the legacy API offers only slow FMA algorithms (cudnnFind's best for
 * yolov4-tiny's 3x3 64->64 backward took 105 ms at batch 64), while the graph API's engines include fast
 * implicit-GEMM kernels for every precision. The engine is chosen once per batch size: cuDNN's heuristics propose
 * configurations, those that finalize within the workspace limit and whose numerical notes the precision allows
 * are timed on the real buffers (or, without autotuning, the first is taken).
 *
 * <p>The three tensors have fixed roles whatever the operation: the input-shaped one (x, or dx for backward data),
 * the filter-shaped one (W, or dW for backward filter) and the output-shaped one (z, or dz for both backwards).
 */
final class CudnnGraphConvolution implements AutoCloseable {
    private static final long UID_INPUT = 1;
    private static final long UID_FILTER = 2;
    private static final long UID_OUTPUT = 3;

    /** Shapes of one convolution at batch n, in elements; strides are NHWC with the given channel strides. */
    record Shape(int n, int inStride, int inHeight, int inWidth, int filterChannels, int outStride, int outHeight,
                 int outWidth, int kernel, int strideY, int strideX, int pad) {}

    /** Which engines a precision may use: FP16/TF32 may take tensor cores; IEEE FP32 may not. */
    record Numerics(int dataType, boolean tensorCores) {}

    private record Pointers(long input, long filter, long output, long workspace) {}

    private final CudnnDescriptor plan;
    private final long workspace;
    private final String engine;
    private final float milliseconds;
    private final int timed;
    private final Map<Pointers, CudnnDescriptor> packs = new HashMap<>();

    private CudnnGraphConvolution(CudnnDescriptor plan, long workspace, String engine, float milliseconds, int timed) {
        this.plan = plan;
        this.workspace = workspace;
        this.engine = engine;
        this.milliseconds = milliseconds;
        this.timed = timed;
    }

    long workspaceBytes() { return workspace; }

    /** Device time measured while choosing (NaN when not timed). */
    float milliseconds() { return milliseconds; }

    String describe() {
        return Float.isNaN(milliseconds) ? "graph " + engine + " (heuristic) ws " + mib(workspace)
                : String.format(Locale.ROOT, "graph %s %.3f ms of %d ws %s", engine, milliseconds, timed,
                mib(workspace));
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /** Enqueues the operation on the handle's stream (the variant pack of these pointers is built once). */
    void execute(cudnnContext handle, long input, long filter, long output, long ws) {
        CudnnDescriptor pack = packs.computeIfAbsent(new Pointers(input, filter, output, ws), this::pack);
        int s = cudnnBackendExecute(handle, plan.handle(), pack.handle());
        if (s != 0) throw new CudaException("cudnnBackendExecute (" + engine + "): " + Status.cudnnMessage(s));
    }

    private CudnnDescriptor pack(Pointers p) {
        CudnnDescriptor vp = new CudnnDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
        vp.int64(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, "unique ids", UID_INPUT, UID_FILTER, UID_OUTPUT);
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, "data pointers", p.input(), p.filter(), p.output());
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, "workspace", p.workspace());
        return vp.finish();
    }

    /**
     * The fastest graph engine for {@code op} on these buffers (scribbled while timing), or null when cuDNN has none
     * that the numerics allow within {@code workspaceLimit}. {@code timer} null: no timing, cuDNN's first choice.
     * {@code beta}: 1 adds into the output-role tensor of backward data (other consumers' gradient parts), else 0.
     */
    static CudnnGraphConvolution find(cudnnContext handle, CudnnConvolution.Op op, Shape s, Numerics numerics,
                                      float beta, long input, long filter, long output, long ws, long workspaceLimit,
                                      int maxCandidates, GpuStream timer, String what) {
        List<CudnnDescriptor> keep = new ArrayList<>();
        List<Candidate> found = new ArrayList<>();
        try {
            long alignment = Math.min(16, Math.min(Long.lowestOneBit(input),
                    Math.min(Long.lowestOneBit(filter), Long.lowestOneBit(output))));
            CudnnDescriptor graph = graph(handle, op, s, numerics.dataType(), beta, alignment, keep);
            if (graph == null) return null;
            candidates(handle, graph, numerics, workspaceLimit, timer == null ? 1 : maxCandidates, keep, found);
            Candidate best = null;
            for (Candidate c : found) {
                if (timer == null) {
                    c.ms = Float.NaN;
                    best = c;
                    break;
                }
                CudnnGraphConvolution trial = new CudnnGraphConvolution(c.plan, c.workspace, c.engine, 0, 0);
                try {
                    trial.execute(handle, input, filter, output, ws);   // also catches launch failures early
                    timer.synchronize();
                    int runs = 3;
                    c.ms = timer.time(() -> {
                        for (int i = 0; i < runs; i++) trial.execute(handle, input, filter, output, ws);
                    }) / runs;
                } catch (CudaException e) {
                    c.ms = Float.POSITIVE_INFINITY;
                } finally {
                    for (CudnnDescriptor p : trial.packs.values()) p.close();
                }
                if (best == null || c.ms < best.ms) best = c;
            }
            if (best == null || best.ms == Float.POSITIVE_INFINITY) return null;
            int timed = timer == null ? 0 : found.size();
            found.remove(best);
            return new CudnnGraphConvolution(best.plan, best.workspace, best.engine, best.ms, timed);
        } catch (CudaException e) {
            throw new CudaException(what + " " + op + ": " + e.getMessage());
        } finally {
            for (Candidate c : found) c.plan.close();
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

    /** Engine configurations from the heuristics (mode A, then the fallback list) that finalize, best guess first. */
    private static void candidates(cudnnContext handle, CudnnDescriptor graph, Numerics numerics, long workspaceLimit,
                                   int max, List<CudnnDescriptor> keep, List<Candidate> out) {
        for (int mode : new int[] {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
            CudnnDescriptor heur = new CudnnDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "engine heuristics");
            keep.add(heur);
            heur.descriptors(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, "operation graph", graph)
                    .enumeration(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, "mode", mode);
            if (heur.tryFinish() != 0) continue;
            int count = (int) Math.min(64, CudnnDescriptor.count(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                    CUDNN_TYPE_BACKEND_DESCRIPTOR));
            if (count == 0) continue;
            CudnnDescriptor[] configs = new CudnnDescriptor[count];
            for (int i = 0; i < count; i++) {
                configs[i] = new CudnnDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
                keep.add(configs[i]);
            }
            int got = CudnnDescriptor.getDescriptors(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, configs);
            for (int i = 0; i < got && out.size() < max; i++) {
                String engine = allowedEngine(configs[i], numerics, keep);
                if (engine == null) continue;
                CudnnDescriptor plan = new CudnnDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
                plan.cudnnHandle(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, "handle", handle);
                plan.descriptors(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, "engine config", configs[i]);
                if (plan.tryFinish() != 0) {
                    plan.close();
                    continue;
                }
                long ws = plan.getInt64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "workspace size");
                if (ws > workspaceLimit) {
                    plan.close();
                    continue;
                }
                out.add(new Candidate(plan, ws, engine));
            }
            if (out.size() >= max) return;
        }
    }

    /**
     * "engine 12 tc" or null where the numerics forbid it: reduced-precision accumulation and down-converted inputs
     * always (as PyTorch filters), tensor cores for IEEE FP32.
     */
    private static String allowedEngine(CudnnDescriptor config, Numerics numerics, List<CudnnDescriptor> keep) {
        CudnnDescriptor engine = new CudnnDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
        keep.add(engine);
        if (CudnnDescriptor.getDescriptors(config, CUDNN_ATTR_ENGINECFG_ENGINE, new CudnnDescriptor[] {engine}) != 1) {
            return null;
        }
        long index = engine.getInt64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "global index");
        int[] notes = engine.getEnums(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 16);
        StringBuilder s = new StringBuilder("engine " + index);
        for (int note : notes) {
            if (note == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) return null;
            if (note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return null;
            if (note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE) {
                if (!numerics.tensorCores()) return null;
                s.append(" tc");
            }
        }
        return s.toString();
    }

    // ------------------------------------------------------------------ the operation graph

    private static CudnnDescriptor graph(cudnnContext handle, CudnnConvolution.Op op, Shape s, int type, float beta,
                                         long alignment, List<CudnnDescriptor> keep) {
        int k = s.kernel();
        int fc = s.filterChannels();
        CudnnDescriptor in = tensor(keep, "input", UID_INPUT, type, alignment,
                new long[] {s.n(), s.inStride(), s.inHeight(), s.inWidth()}, nhwc(s.inStride(), s.inHeight(), s.inWidth()));
        CudnnDescriptor filter = tensor(keep, "filter", UID_FILTER, type, alignment, new long[] {s.outStride(), fc, k, k},
                new long[] {(long) k * k * fc, 1, (long) k * fc, fc});
        CudnnDescriptor out = tensor(keep, "output", UID_OUTPUT, type, alignment,
                new long[] {s.n(), s.outStride(), s.outHeight(), s.outWidth()},
                nhwc(s.outStride(), s.outHeight(), s.outWidth()));
        CudnnDescriptor conv = new CudnnDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "convolution");
        keep.add(conv);
        conv.dataType(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, "compute type", CUDNN_DATA_FLOAT)
                .enumeration(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, "mode",
                        CUDNN_CROSS_CORRELATION)
                .int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, "spatial dims", 2)
                .int64(CUDNN_ATTR_CONVOLUTION_DILATIONS, "dilations", 1, 1)
                .int64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, "strides", s.strideY(), s.strideX())
                .int64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, "pre paddings", s.pad(), s.pad())
                .int64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, "post paddings", s.pad(), s.pad())
                .finish();
        CudnnDescriptor operation = switch (op) {
            case FORWARD -> new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, "forward")
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "x", in)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "w", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "y", out)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, "beta", 0f);
            case BACKWARD_DATA -> new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                    "backward data")
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "dx", in)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "w", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "dy", out)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, "beta", beta);
            case BACKWARD_FILTER -> new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                    "backward filter")
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "x", in)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "dw", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "dy", out)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, "beta", 0f);
        };
        keep.add(operation);
        operation.finish();
        CudnnDescriptor graph = new CudnnDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
        keep.add(graph);
        graph.cudnnHandle(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, "handle", handle)
                .descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, "ops", operation);
        return graph.tryFinish() == 0 ? graph : null;
    }

    /** NHWC strides in cuDNN's NCHW dimension order. */
    private static long[] nhwc(int channels, int height, int width) {
        return new long[] {(long) channels * height * width, 1, (long) width * channels, channels};
    }

    private static CudnnDescriptor tensor(List<CudnnDescriptor> keep, String name, long uid, int type, long alignment,
                                          long[] dims, long[] strides) {
        CudnnDescriptor t = new CudnnDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + name);
        keep.add(t);
        return t.dataType(CUDNN_ATTR_TENSOR_DATA_TYPE, "data type", type)
                .int64(CUDNN_ATTR_TENSOR_DIMENSIONS, "dimensions", dims)
                .int64(CUDNN_ATTR_TENSOR_STRIDES, "strides", strides)
                .int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, "unique id", uid)
                .int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, "alignment", alignment)
                .finish();
    }

    @Override
    public void close() {
        for (CudnnDescriptor p : packs.values()) p.close();
        packs.clear();
        plan.close();
    }
}
