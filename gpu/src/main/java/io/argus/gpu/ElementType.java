package io.argus.gpu;

import static org.bytedeco.cuda.global.cudnn.CUDNN_DATA_FLOAT;
import static org.bytedeco.cuda.global.cudnn.CUDNN_DATA_FP8_E4M3;
import static org.bytedeco.cuda.global.cudnn.CUDNN_DATA_HALF;

/**
 * How one value of a tensor is stored on the GPU. Kernels templated over the type (kernels/common.cuh INSTANTIATE)
 * are instantiated once per type, named with the type's suffix.
 */
public enum ElementType {
    HALF(2, CUDNN_DATA_HALF, "_h"),
    FLOAT(4, CUDNN_DATA_FLOAT, "_f"),
    /** FP8 E4M3 (Hopper's tensor cores): a convolution's input and filter only, with their scales (cudnn.Numerics.FP8). */
    FP8_E4M3(1, CUDNN_DATA_FP8_E4M3, "_e4m3");

    private final int bytes;
    private final int cudnnType;
    private final String suffix;

    ElementType(int bytes, int cudnnType, String suffix) {
        this.bytes = bytes;
        this.cudnnType = cudnnType;
        this.suffix = suffix;
    }

    /** Bytes of one value. */
    public int bytes() { return bytes; }

    /** cuDNN's data type constant. */
    public int cudnnType() { return cudnnType; }

    /** The suffix of a templated kernel's instance for this type. */
    public String suffix() { return suffix; }
}
