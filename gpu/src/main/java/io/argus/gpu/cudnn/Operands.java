package io.argus.gpu.cudnn;

import static org.bytedeco.cuda.global.cudnn.*;

import io.argus.gpu.CudnnDescriptor;
import java.util.ArrayList;
import java.util.List;

/**
 * The device pointers of one execution, by role (see {@link ConvolutionOperation}): input, filter, output, for a
 * fused forward the bias and residual (0 when the epilogue has none), and for FP8 inputs the FP32 scale of each
 * output channel (0 otherwise).
 */
public record Operands(long input, long filter, long output, long bias, long residual, long scale) {

    public Operands(long input, long filter, long output, long bias, long residual) {
        this(input, filter, output, bias, residual, 0);
    }

    public static Operands of(long input, long filter, long output) {
        return new Operands(input, filter, output, 0, 0, 0);
    }

    /** The variant pack of these pointers and a workspace (the caller closes it). */
    public CudnnDescriptor pack(long workspace) {
        List<Long> uids = new ArrayList<>(List.of(ConvolutionGraph.UID_INPUT, ConvolutionGraph.UID_FILTER,
                ConvolutionGraph.UID_OUTPUT));
        List<Long> pointers = new ArrayList<>(List.of(input, filter, output));
        if (bias != 0) {
            uids.add(ConvolutionGraph.UID_BIAS);
            pointers.add(bias);
        }
        if (residual != 0) {
            uids.add(ConvolutionGraph.UID_RESIDUAL);
            pointers.add(residual);
        }
        if (scale != 0) {
            uids.add(ConvolutionGraph.UID_SCALE);
            pointers.add(scale);
        }
        CudnnDescriptor vp = new CudnnDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
        vp.int64(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, "unique ids", uids.stream().mapToLong(Long::longValue).toArray());
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, "data pointers",
                pointers.stream().mapToLong(Long::longValue).toArray());
        vp.pointers(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, "workspace", workspace);
        return vp.finish();
    }
}
