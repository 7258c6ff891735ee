package io.argus.gpu.cudnn;

import io.argus.gpu.TensorView;

/**
 * A 4-d NHWC tensor as cuDNN sees it: dimensions n, c, h, w and their strides in elements (channels dense, pixels
 * {@code pixelStride} apart, images {@code imageStride} apart), so a slice of a wider buffer (a route's in-place
 * input) is described without copying.
 */
public record StridedShape(long n, long channels, long height, long width, long imageStride, long pixelStride) {

    /** A dense NHWC tensor whose pixels are {@code pixelStride} channels wide. */
    public static StridedShape dense(long n, long channels, long height, long width, long pixelStride) {
        return new StridedShape(n, channels, height, width, pixelStride * height * width, pixelStride);
    }

    /** {@code n} images of a view, reading {@code channels} channels of each pixel (may exceed the view's, up to
     * the padding the buffer has). */
    public static StridedShape of(TensorView v, long n, long channels) {
        return new StridedShape(n, channels, v.height(), v.width(), v.imageStride(), v.pixelStride());
    }

    long[] dims() {
        return new long[] {n, channels, height, width};
    }

    /** In cuDNN's NCHW dimension order. */
    long[] strides() {
        return new long[] {imageStride, 1, width * pixelStride, pixelStride};
    }

    String key() {
        return n + "x" + channels + "x" + height + "x" + width + "/" + imageStride + "/" + pixelStride;
    }
}
