package io.argus.gpu.cudnn;

import java.util.Locale;

/**
 * One convolution operation to plan, complete enough to build its cuDNN graph and to key its plan: the operation,
 * the three tensors' shapes (the filter is KRSC: {@code outputs} filters of {@code kernel x kernel x
 * filterChannels}, grouped when the input has more channels than a filter reads), the geometry, the numerics, the
 * forward epilogue (residual shaped like the output, with its own strides), the beta of backward data (1 adds into
 * dx, 0 writes it) and the byte alignment all pointers share.
 */
public record ConvolutionProblem(ConvolutionOperation operation, Numerics numerics, StridedShape input,
                                 StridedShape output, int filterChannels, int kernel, int strideY, int strideX,
                                 int pad, Epilogue epilogue, StridedShape residual, float beta, int alignment) {

    public ConvolutionProblem {
        if (epilogue.fused() && operation != ConvolutionOperation.FORWARD) {
            throw new IllegalArgumentException("an epilogue is fused into the forward convolution only");
        }
        if (numerics.scaled() && operation != ConvolutionOperation.FORWARD) {
            throw new IllegalArgumentException("FP8 inputs are for the forward convolution only, got " + operation);
        }
        if (epilogue.residual() != (residual != null)) {
            throw new IllegalArgumentException("a residual shape goes with a residual epilogue, and only with one");
        }
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        }
    }

    /** A plain operation (training): no epilogue, no residual. */
    public static ConvolutionProblem plain(ConvolutionOperation op, Numerics numerics, StridedShape input,
                                           StridedShape output, int filterChannels, int kernel, int strideY,
                                           int strideX, int pad, float beta, int alignment) {
        return new ConvolutionProblem(op, numerics, input, output, filterChannels, kernel, strideY, strideX, pad,
                Epilogue.NONE, null, beta, alignment);
    }

    /** The largest power of two up to 16 that divides every address (cuDNN's vectorized engines need it). */
    public static int alignmentOf(long... addresses) {
        long a = 16;
        for (long p : addresses) if (p != 0) a = Math.min(a, Long.lowestOneBit(p));
        return (int) a;
    }

    /** The same problem for {@code n} images (the batch buckets of one layer). */
    public ConvolutionProblem withBatch(long n) {
        return new ConvolutionProblem(operation, numerics, resize(input, n), resize(output, n), filterChannels, kernel,
                strideY, strideX, pad, epilogue, residual == null ? null : resize(residual, n), beta, alignment);
    }

    private static StridedShape resize(StridedShape s, long n) {
        return new StridedShape(n, s.channels(), s.height(), s.width(), s.imageStride(), s.pixelStride());
    }

    /** Everything that makes two problems need different plans, as one line (also the disk cache's key). */
    public String key() {
        return String.format(Locale.ROOT, "%s %s in[%s] out[%s] f%d k%d s%dx%d p%d %s r[%s] beta%s a%d",
                operation, numerics.key(), input.key(), output.key(), filterChannels, kernel, strideY, strideX, pad,
                epilogue.key(), residual == null ? "-" : residual.key(), beta, alignment);
    }
}
