package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.gpu.CudnnDescriptor;
import io.argus.gpu.Status;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudnn.cudnnContext;

/**
 * The cuDNN operation graph of one {@link ConvolutionProblem}: the convolution operation and, for a fused forward,
 * the chain of pointwise ops after it (x scale for FP8 inputs, + bias, activation, + residual, activation) through
 * virtual FP32 tensors.
 * Owns every descriptor it creates (closed together); virtual tensor ids are counted per graph.
 */
final class ConvolutionGraph implements AutoCloseable {
    static final long UID_INPUT = 1;
    static final long UID_FILTER = 2;
    static final long UID_OUTPUT = 3;
    static final long UID_BIAS = 4;
    static final long UID_RESIDUAL = 5;
    static final long UID_SCALE = 6;

    private final List<CudnnDescriptor> owned = new ArrayList<>();
    private long nextVirtual = 100;
    private final CudnnDescriptor graph;
    private final int status;

    /** Builds the graph; {@link #graph()} is null when cuDNN rejects it ({@link #status()} says why). */
    ConvolutionGraph(cudnnContext handle, ConvolutionProblem p) {
        List<CudnnDescriptor> ops = new ArrayList<>();
        int type = p.numerics().storage().cudnnType();
        int outType = p.numerics().output().cudnnType();
        StridedShape in = p.input();
        StridedShape out = p.output();
        long k = out.channels();
        long fc = p.filterChannels();
        long r = p.kernel();
        CudnnDescriptor input = tensor("input", UID_INPUT, type, in.dims(), in.strides(), p.alignment(), false);
        CudnnDescriptor filter = tensor("filter", UID_FILTER, type, new long[] {k, fc, r, r},
                new long[] {r * r * fc, 1, r * fc, fc}, p.alignment(), false);
        CudnnDescriptor output = tensor("output", UID_OUTPUT, outType, out.dims(), out.strides(), p.alignment(), false);
        CudnnDescriptor conv = own(new CudnnDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "convolution"))
                .dataType(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, "compute type", CUDNN_DATA_FLOAT)
                .enumeration(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, "mode",
                        CUDNN_CROSS_CORRELATION)
                .int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, "spatial dims", 2)
                .int64(CUDNN_ATTR_CONVOLUTION_DILATIONS, "dilations", 1, 1)
                .int64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, "strides", p.strideY(), p.strideX())
                .int64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, "pre paddings", p.pad(), p.pad())
                .int64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, "post paddings", p.pad(), p.pad())
                .finish();
        Epilogue e = p.epilogue();
        boolean chain = e.fused() || p.numerics().scaled();
        CudnnDescriptor convOut = chain ? virtual(out) : output;
        CudnnDescriptor op = switch (p.operation()) {
            case FORWARD -> own(new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, "forward"))
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "x", input)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "w", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "y", convOut)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, "beta", 0f);
            case BACKWARD_DATA -> own(new CudnnDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                    "backward data"))
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "dx", input)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "w", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "dy", output)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, "beta", p.beta());
            case BACKWARD_FILTER -> own(new CudnnDescriptor(
                    CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, "backward filter"))
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "x", input)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "dw", filter)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "dy", output)
                    .descriptors(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, "conv", conv)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, "alpha", 1f)
                    .float32(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, "beta", 0f);
        };
        ops.add(op.finish());
        if (chain) epilogue(p, e, convOut, output, ops);
        CudnnDescriptor g = own(new CudnnDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph"));
        g.cudnnHandle(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, "handle", handle)
                .descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, "ops", ops.toArray(new CudnnDescriptor[0]));
        this.status = g.tryFinish();
        this.graph = status == 0 ? g : null;
    }

    CudnnDescriptor graph() { return graph; }

    /** cuDNN's reason for rejecting the graph. */
    String problem() { return status == 0 ? null : Status.cudnnMessage(status); }

    int status() { return status; }

    /** A descriptor that lives as long as this graph. */
    <T extends CudnnDescriptor> T own(T d) {
        owned.add(d);
        return d;
    }

    /** The pointwise chain: {@code current} is what the next op reads, the last op writes the real output. */
    private void epilogue(ConvolutionProblem p, Epilogue e, CudnnDescriptor convOut, CudnnDescriptor output,
                          List<CudnnDescriptor> ops) {
        long k = p.output().channels();
        List<Step> steps = new ArrayList<>();
        if (p.numerics().scaled()) steps.add(Step.binary(CUDNN_POINTWISE_MUL, Operand.SCALE));
        if (e.bias()) steps.add(Step.binary(CUDNN_POINTWISE_ADD, Operand.BIAS));
        activationSteps(e.activation(), steps);
        if (e.residual()) {
            steps.add(Step.binary(CUDNN_POINTWISE_ADD, Operand.RESIDUAL));
            activationSteps(e.residualActivation(), steps);
        }
        int type = p.numerics().output().cudnnType();
        CudnnDescriptor scale = p.numerics().scaled() ? tensor("scale", UID_SCALE, CUDNN_DATA_FLOAT,
                new long[] {1, k, 1, 1}, new long[] {k, 1, k, k}, 16, false) : null;
        CudnnDescriptor bias = e.bias() ? tensor("bias", UID_BIAS, type, new long[] {1, k, 1, 1},
                new long[] {k, 1, k, k}, p.alignment(), false) : null;
        CudnnDescriptor residual = e.residual() ? tensor("residual", UID_RESIDUAL, type, p.residual().dims(),
                p.residual().strides(), p.alignment(), false) : null;
        CudnnDescriptor current = convOut;
        CudnnDescriptor activationInput = null;   // mish multiplies its input by tanh(softplus(input))
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            CudnnDescriptor out = i == steps.size() - 1 ? output : virtual(p.output());
            CudnnDescriptor second = s.operand == null ? null : switch (s.operand) {
                case BIAS -> bias;
                case RESIDUAL -> residual;
                case SCALE -> scale;
                case ACTIVATION_INPUT -> activationInput;
            };
            if (s.startsActivation) activationInput = current;
            ops.add(pointwise(s, current, second, out));
            current = out;
        }
    }

    private enum Operand { SCALE, BIAS, RESIDUAL, ACTIVATION_INPUT }

    /** One pointwise op of the epilogue: mode, its second operand (or null), leaky's slope. */
    private record Step(int mode, Operand operand, double reluSlope, boolean startsActivation) {
        static Step binary(int mode, Operand operand) {
            return new Step(mode, operand, 0, false);
        }
    }

    private static void activationSteps(Epilogue.Activation a, List<Step> steps) {
        switch (a) {
            case LINEAR -> { }
            case LEAKY -> steps.add(new Step(CUDNN_POINTWISE_RELU_FWD, null, 0.1, false));
            case RELU -> steps.add(new Step(CUDNN_POINTWISE_RELU_FWD, null, 0, false));
            case LOGISTIC -> steps.add(new Step(CUDNN_POINTWISE_SIGMOID_FWD, null, 0, false));
            case SWISH -> steps.add(new Step(CUDNN_POINTWISE_SWISH_FWD, null, 0, false));
            case MISH -> {
                steps.add(new Step(CUDNN_POINTWISE_SOFTPLUS_FWD, null, 0, true));
                steps.add(new Step(CUDNN_POINTWISE_TANH_FWD, null, 0, false));
                steps.add(new Step(CUDNN_POINTWISE_MUL, Operand.ACTIVATION_INPUT, 0, false));
            }
        }
    }

    private CudnnDescriptor pointwise(Step s, CudnnDescriptor x, CudnnDescriptor b, CudnnDescriptor y) {
        CudnnDescriptor pw = own(new CudnnDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise " + s.mode));
        pw.enumeration(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, "mode", s.mode)
                .dataType(CUDNN_ATTR_POINTWISE_MATH_PREC, "math precision", CUDNN_DATA_FLOAT);
        if (s.mode == CUDNN_POINTWISE_RELU_FWD && s.reluSlope != 0) {
            pw.float64(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, "relu lower clip slope", s.reluSlope);
        }
        if (s.mode == CUDNN_POINTWISE_SWISH_FWD) pw.float64(CUDNN_ATTR_POINTWISE_SWISH_BETA, "swish beta", 1.0);
        if (s.mode == CUDNN_POINTWISE_SOFTPLUS_FWD) pw.float64(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, "softplus beta", 1.0);
        pw.finish();
        CudnnDescriptor op = own(new CudnnDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pointwise op"));
        op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, "pointwise", pw)
                .descriptors(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, "x", x);
        if (b != null) op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, "b", b);
        op.descriptors(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, "y", y);
        return op.finish();
    }

    /** An FP32 intermediate of the epilogue, dense NHWC, never in memory. */
    private CudnnDescriptor virtual(StridedShape shape) {
        long k = shape.channels();
        long h = shape.height();
        long w = shape.width();
        return tensor("virtual", nextVirtual++, CUDNN_DATA_FLOAT, new long[] {shape.n(), k, h, w},
                new long[] {h * w * k, 1, w * k, k}, 16, true);
    }

    private CudnnDescriptor tensor(String name, long uid, int type, long[] dims, long[] strides, int alignment,
                                   boolean virtual) {
        return own(new CudnnDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + name))
                .dataType(CUDNN_ATTR_TENSOR_DATA_TYPE, "data type", type)
                .int64(CUDNN_ATTR_TENSOR_DIMENSIONS, "dimensions", dims)
                .int64(CUDNN_ATTR_TENSOR_STRIDES, "strides", strides)
                .int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, "unique id", uid)
                .int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, "alignment", alignment)
                .bool(CUDNN_ATTR_TENSOR_IS_VIRTUAL, "virtual", virtual)
                .finish();
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) owned.get(i).close();
        owned.clear();
    }
}
