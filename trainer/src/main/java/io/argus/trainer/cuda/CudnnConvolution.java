package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.gpu.CudaException;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.Status;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.cuda.cudnn.cudnnContext;
import org.bytedeco.cuda.cudnn.cudnnConvolutionBwdDataAlgoPerf_t;
import org.bytedeco.cuda.cudnn.cudnnConvolutionBwdFilterAlgoPerf_t;
import org.bytedeco.cuda.cudnn.cudnnConvolutionFwdAlgoPerf_t;
import org.bytedeco.cuda.cudnn.cudnnConvolutionStruct;
import org.bytedeco.cuda.cudnn.cudnnFilterStruct;
import org.bytedeco.cuda.cudnn.cudnnTensorStruct;
import org.bytedeco.javacpp.FloatPointer;

/**
 * One convolution's three cuDNN operations in training: forward (x, W to z), backward data (dz, W added into dx)
 * and backward filter (x, dz to dW), on NHWC tensors of the storage type with FP32 accumulation (compute type
 * FLOAT; tensor cores for FP16). Per batch size, each operation's algorithm is chosen once: timed on the real
 * buffers (cudnnFind*AlgorithmEx) when autotuning, else cuDNN's heuristic; the fastest that fits the workspace
 * limit wins, and its math type is set on that operation's own convolution descriptor. With graph engines on, each
 * operation is also planned through cuDNN's graph API ({@link CudnnGraphConvolution}) and the faster of the two
 * runs (without autotuning, the graph engine, whose heuristics know NHWC FP32 far better than the legacy API's).
 */
final class CudnnConvolution implements AutoCloseable {
    enum Op { FORWARD, BACKWARD_DATA, BACKWARD_FILTER }

    /** The algorithm chosen for one operation. */
    record Choice(int algo, int mathType, long workspace, float ms) {
        String describe() {
            return String.format(Locale.ROOT, "algo %d%s %.3f ms ws %.1f MiB", algo,
                    mathType == CUDNN_TENSOR_OP_MATH ? " tc" : "", ms, workspace / 1048576.0);
        }
    }

    /** Per batch size: the legacy descriptors and choices, and per operation the graph plan where it won. */
    private record Planned(cudnnTensorStruct x, cudnnTensorStruct y, Choice[] choices, CudnnGraphConvolution[] graphs) {}

    private static final FloatPointer ONE = new FloatPointer(1f);
    private static final FloatPointer ZERO = new FloatPointer(0f);

    private final ConvolutionalSpec spec;
    private final Precision precision;
    private final int requestedMath;
    private final int inStride;
    private final int outStride;
    private final int filterChannels;
    private final boolean accumulateInputGradient;
    private final boolean graphEngines;
    private final cudnnFilterStruct w = new cudnnFilterStruct();
    private final cudnnConvolutionStruct[] conv = new cudnnConvolutionStruct[3];
    private final Map<Integer, Planned> plans = new HashMap<>();

    /**
     * {@code accumulateInputGradient}: backward data adds into dx (beta 1) rather than writing it; {@code graphEngines}:
     * also plan through the graph API and keep the faster.
     */
    CudnnConvolution(ConvolutionalSpec spec, int inStride, int filterChannels, int outStride, Precision precision,
                     boolean strictFp32, boolean accumulateInputGradient, boolean graphEngines) {
        this.spec = spec;
        this.filterChannels = filterChannels;
        this.accumulateInputGradient = accumulateInputGradient;
        this.graphEngines = graphEngines;
        this.precision = precision;
        this.inStride = inStride;
        this.outStride = outStride;
        this.requestedMath = precision == Precision.MIXED ? CUDNN_TENSOR_OP_MATH
                : strictFp32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
        Status.cudnn(cudnnCreateFilterDescriptor(w), "cudnnCreateFilterDescriptor");
        Status.cudnn(cudnnSetFilter4dDescriptor(w, precision.cudnnType(), CUDNN_TENSOR_NHWC, outStride, filterChannels,
                spec.size(), spec.size()), "cudnnSetFilter4dDescriptor " + what());
        for (int i = 0; i < 3; i++) {
            conv[i] = new cudnnConvolutionStruct();
            Status.cudnn(cudnnCreateConvolutionDescriptor(conv[i]), "cudnnCreateConvolutionDescriptor");
            Status.cudnn(cudnnSetConvolution2dDescriptor(conv[i], spec.pad(), spec.pad(), spec.strideY(),
                    spec.strideX(), 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                    "cudnnSetConvolution2dDescriptor " + what());
            Status.cudnn(cudnnSetConvolutionGroupCount(conv[i], spec.groups()), "cudnnSetConvolutionGroupCount");
            Status.cudnn(cudnnSetConvolutionMathType(conv[i], requestedMath), "cudnnSetConvolutionMathType");
        }
    }

    private String what() {
        return "layer " + spec.index() + " (" + spec.size() + "x" + spec.size() + "/" + spec.strideX() + " "
                + spec.input().channels() + "->" + spec.filters() + ")";
    }

    private cudnnTensorStruct tensor(int n, int stride, int h, int w) {
        cudnnTensorStruct t = new cudnnTensorStruct();
        Status.cudnn(cudnnCreateTensorDescriptor(t), "cudnnCreateTensorDescriptor");
        Status.cudnn(cudnnSetTensor4dDescriptorEx(t, precision.cudnnType(), n, stride, h, w, stride * h * w, 1,
                w * stride, stride), "cudnnSetTensor4dDescriptorEx " + what());
        return t;
    }

    boolean planned(int n) { return plans.containsKey(n); }

    /**
     * Chooses the three algorithms for batch {@code n} on the given buffers (they are overwritten while timing).
     * {@code dx} 0: the input needs no gradient (no backward-data algorithm). {@code timer}: the stream graph
     * engines are timed on.
     */
    Choice[] plan(cudnnContext handle, int n, long x, long weights, long z, long dx, long dw, long workspace,
                  long workspaceBytes, boolean autotune, GpuStream timer) {
        cudnnTensorStruct xd = tensor(n, inStride, spec.input().height(), spec.input().width());
        cudnnTensorStruct yd = tensor(n, outStride, spec.output().height(), spec.output().width());
        Choice[] c = new Choice[3];
        CudnnGraphConvolution[] g = new CudnnGraphConvolution[3];
        long[][] roles = {{x, weights, z}, {dx, weights, z}, {x, dw, z}};
        for (Op op : Op.values()) {
            int i = op.ordinal();
            if (op == Op.BACKWARD_DATA && dx == 0) continue;
            CudaException legacyFailure = null;
            try {
                c[i] = switch (op) {
                    case FORWARD -> forwardAlgo(handle, xd, x, weights, yd, z, workspace, workspaceBytes, autotune);
                    case BACKWARD_DATA -> dataAlgo(handle, xd, dx, weights, yd, z, workspace, workspaceBytes, autotune);
                    case BACKWARD_FILTER -> filterAlgo(handle, xd, x, dw, yd, z, workspace, workspaceBytes, autotune);
                };
            } catch (CudaException e) {
                if (!graphEngines) throw e;
                legacyFailure = e;
            }
            if (graphEngines) {
                g[i] = CudnnGraphConvolution.find(handle, op, shape(n), numerics(),
                        op == Op.BACKWARD_DATA && accumulateInputGradient ? 1f : 0f, roles[i][0], roles[i][1],
                        roles[i][2], workspace, workspaceBytes, 8, autotune ? timer : null, what());
                boolean graphWins = g[i] != null && (c[i] == null || !autotune || g[i].milliseconds() < c[i].ms());
                if (!graphWins && g[i] != null) {
                    g[i].close();
                    g[i] = null;
                }
                if (g[i] == null && c[i] == null) throw legacyFailure;
            }
        }
        for (int i = 0; i < 3; i++) {
            if (c[i] != null) Status.cudnn(cudnnSetConvolutionMathType(conv[i], c[i].mathType()), "set math type");
        }
        plans.put(n, new Planned(xd, yd, c, g));
        return c;
    }

    private CudnnGraphConvolution.Shape shape(int n) {
        return new CudnnGraphConvolution.Shape(n, inStride, spec.input().height(), spec.input().width(), filterChannels,
                outStride, spec.output().height(), spec.output().width(), spec.size(), spec.strideY(), spec.strideX(),
                spec.pad());
    }

    private CudnnGraphConvolution.Numerics numerics() {
        return new CudnnGraphConvolution.Numerics(precision.cudnnType(), requestedMath != CUDNN_FMA_MATH);
    }

    /** How many of the planned operations of batch n run through graph engines, of how many. */
    int[] graphOperations(int n) {
        Planned p = plans.get(n);
        int graphs = 0;
        int all = 0;
        for (int i = 0; i < 3; i++) {
            if (p.graphs()[i] != null) graphs++;
            if (p.graphs()[i] != null || p.choices()[i] != null) all++;
        }
        return new int[] {graphs, all};
    }

    /** The largest workspace any planned operation needs. */
    long workspaceNeeded() {
        long most = 0;
        for (Planned p : plans.values()) {
            for (int i = 0; i < 3; i++) {
                if (p.graphs()[i] != null) most = Math.max(most, p.graphs()[i].workspaceBytes());
                else if (p.choices()[i] != null) most = Math.max(most, p.choices()[i].workspace());
            }
        }
        return most;
    }

    String describe(int n) {
        Planned p = plans.get(n);
        if (p == null) return "not planned";
        StringBuilder s = new StringBuilder();
        String[] names = {"fwd", "bwd-data", "bwd-filter"};
        for (int i = 0; i < 3; i++) {
            if (p.graphs()[i] != null) s.append(names[i]).append(' ').append(p.graphs()[i].describe()).append("; ");
            else if (p.choices()[i] != null) s.append(names[i]).append(' ').append(p.choices()[i].describe()).append("; ");
        }
        return s.toString();
    }

    private boolean acceptable(int status, int mathType, long memory, long limit) {
        if (status != 0 || memory > limit) return false;
        return !(precision == Precision.FP32 && requestedMath == CUDNN_FMA_MATH && mathType != CUDNN_FMA_MATH
                && mathType != CUDNN_DEFAULT_MATH);
    }

    private CudaException none(String op) {
        return new CudaException(what() + ": cuDNN offers no " + op + " algorithm for " + precision
                + " NHWC within the workspace limit");
    }

    private Choice forwardAlgo(cudnnContext h, cudnnTensorStruct xd, long x, long wt, cudnnTensorStruct yd, long y,
                               long ws, long wsBytes, boolean tune) {
        int[] max = new int[1];
        Status.cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(h, max), "cudnnGetConvolutionForwardAlgorithmMaxCount");
        cudnnConvolutionFwdAlgoPerf_t perf = new cudnnConvolutionFwdAlgoPerf_t(max[0]);
        int[] got = new int[1];
        if (tune) {
            Status.cudnn(cudnnFindConvolutionForwardAlgorithmEx(h, xd, DevicePointer.at(x), w, DevicePointer.at(wt),
                    conv[0], yd, DevicePointer.at(y), max[0], got, perf, DevicePointer.at(ws), wsBytes),
                    "cudnnFindConvolutionForwardAlgorithmEx " + what());
        } else {
            Status.cudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, w, conv[0], yd, max[0], got, perf),
                    "cudnnGetConvolutionForwardAlgorithm_v7 " + what());
        }
        for (int i = 0; i < got[0]; i++) {
            cudnnConvolutionFwdAlgoPerf_t p = perf.getPointer(i);
            if (acceptable(p.status(), p.mathType(), p.memory(), wsBytes)) {
                return new Choice(p.algo(), p.mathType(), p.memory(), p.time());
            }
        }
        throw none("forward");
    }

    private Choice dataAlgo(cudnnContext h, cudnnTensorStruct xd, long dx, long wt, cudnnTensorStruct yd, long dy,
                            long ws, long wsBytes, boolean tune) {
        int[] max = new int[1];
        Status.cudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, max), "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
        cudnnConvolutionBwdDataAlgoPerf_t perf = new cudnnConvolutionBwdDataAlgoPerf_t(max[0]);
        int[] got = new int[1];
        if (tune) {
            Status.cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(h, w, DevicePointer.at(wt), yd,
                    DevicePointer.at(dy), conv[1], xd, DevicePointer.at(dx), max[0], got, perf, DevicePointer.at(ws),
                    wsBytes), "cudnnFindConvolutionBackwardDataAlgorithmEx " + what());
        } else {
            Status.cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, w, yd, conv[1], xd, max[0], got, perf),
                    "cudnnGetConvolutionBackwardDataAlgorithm_v7 " + what());
        }
        for (int i = 0; i < got[0]; i++) {
            cudnnConvolutionBwdDataAlgoPerf_t p = perf.getPointer(i);
            if (acceptable(p.status(), p.mathType(), p.memory(), wsBytes)) {
                return new Choice(p.algo(), p.mathType(), p.memory(), p.time());
            }
        }
        throw none("backward-data");
    }

    private Choice filterAlgo(cudnnContext h, cudnnTensorStruct xd, long x, long dw, cudnnTensorStruct yd, long dy,
                              long ws, long wsBytes, boolean tune) {
        int[] max = new int[1];
        Status.cudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, max), "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
        cudnnConvolutionBwdFilterAlgoPerf_t perf = new cudnnConvolutionBwdFilterAlgoPerf_t(max[0]);
        int[] got = new int[1];
        if (tune) {
            Status.cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, xd, DevicePointer.at(x), yd,
                    DevicePointer.at(dy), conv[2], w, DevicePointer.at(dw), max[0], got, perf, DevicePointer.at(ws),
                    wsBytes), "cudnnFindConvolutionBackwardFilterAlgorithmEx " + what());
        } else {
            Status.cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd, yd, conv[2], w, max[0], got, perf),
                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7 " + what());
        }
        for (int i = 0; i < got[0]; i++) {
            cudnnConvolutionBwdFilterAlgoPerf_t p = perf.getPointer(i);
            if (acceptable(p.status(), p.mathType(), p.memory(), wsBytes)) {
                return new Choice(p.algo(), p.mathType(), p.memory(), p.time());
            }
        }
        throw none("backward-filter");
    }

    private Planned planned(int n, String op) {
        Planned p = plans.get(n);
        if (p == null) throw new IllegalStateException(what() + ": " + op + " for batch " + n + " before planning it");
        return p;
    }

    /** z = conv(x, W). */
    void forward(cudnnContext h, int n, long x, long weights, long z, long ws, long wsBytes) {
        Planned p = planned(n, "forward");
        if (p.graphs()[0] != null) {
            p.graphs()[0].execute(h, x, weights, z, ws);
            return;
        }
        Choice c = p.choices()[0];
        Status.cudnn(cudnnConvolutionForward(h, ONE, p.x(), DevicePointer.at(x), w, DevicePointer.at(weights), conv[0],
                c.algo(), DevicePointer.at(ws), wsBytes, ZERO, p.y(), DevicePointer.at(z)),
                "cudnnConvolutionForward " + what());
    }

    /**
     * dx = conv_transpose(dz, W), added to what dx holds when {@code accumulate} (other consumers of x add their
     * parts too), written over it when this convolution is x's only consumer.
     */
    void backwardData(cudnnContext h, int n, long weights, long dz, long dx, boolean accumulate, long ws,
                      long wsBytes) {
        Planned p = planned(n, "backward data");
        if (accumulate != accumulateInputGradient) {
            throw new IllegalStateException(what() + ": backward data planned to " + (accumulateInputGradient ? "add into"
                    : "write") + " dx, asked to " + (accumulate ? "add into" : "write") + " it");
        }
        if (p.graphs()[1] != null) {
            p.graphs()[1].execute(h, dx, weights, dz, ws);
            return;
        }
        Choice c = p.choices()[1];
        Status.cudnn(cudnnConvolutionBackwardData(h, ONE, w, DevicePointer.at(weights), p.y(), DevicePointer.at(dz),
                conv[1], c.algo(), DevicePointer.at(ws), wsBytes, accumulate ? ONE : ZERO, p.x(), DevicePointer.at(dx)),
                "cudnnConvolutionBackwardData " + what());
    }

    /** dW = this pass's weight gradient (overwritten; the optimizer's kernel accumulates it in FP32). */
    void backwardFilter(cudnnContext h, int n, long x, long dz, long dw, long ws, long wsBytes) {
        Planned p = planned(n, "backward filter");
        if (p.graphs()[2] != null) {
            p.graphs()[2].execute(h, x, dw, dz, ws);
            return;
        }
        Choice c = p.choices()[2];
        Status.cudnn(cudnnConvolutionBackwardFilter(h, ONE, p.x(), DevicePointer.at(x), p.y(), DevicePointer.at(dz),
                conv[2], c.algo(), DevicePointer.at(ws), wsBytes, ZERO, w, DevicePointer.at(dw)),
                "cudnnConvolutionBackwardFilter " + what());
    }

    @Override
    public void close() {
        for (Planned p : plans.values()) {
            cudnnDestroyTensorDescriptor(p.x());
            cudnnDestroyTensorDescriptor(p.y());
            for (CudnnGraphConvolution g : p.graphs()) if (g != null) g.close();
        }
        plans.clear();
        for (cudnnConvolutionStruct c : conv) cudnnDestroyConvolutionDescriptor(c);
        cudnnDestroyFilterDescriptor(w);
    }
}
