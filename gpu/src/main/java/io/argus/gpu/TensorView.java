package io.argus.gpu;

/**
 * Where a batch of NHWC feature maps lives on the GPU: {@code channels} channels starting at {@code channelOffset}
 * of pixels {@code pixelStride} values apart, images {@code imageStride} values apart, in the buffer at {@code base},
 * each value of {@code type}. A tensor that owns its buffer has offset 0 and pixelStride = channels rounded up to 8
 * (the padding holds zeros); a layer written into its place in a concatenation (a route) has the route's pixel stride
 * and its channel offset there; a grouped route is a slice.
 */
public record TensorView(long base, long imageStride, int pixelStride, int channelOffset, int channels, int height,
                         int width, ElementType type) {

    public TensorView {
        if (channelOffset + channels > pixelStride) {
            throw new IllegalArgumentException("view of channels " + channelOffset + ".." + (channelOffset + channels)
                    + " exceeds the pixel stride " + pixelStride);
        }
        if (type == null) throw new IllegalArgumentException("a tensor view needs an element type");
    }

    /** An FP16 view with the given strides (inference's feature maps). */
    public TensorView(long base, long imageStride, int pixelStride, int channelOffset, int channels, int height,
                      int width) {
        this(base, imageStride, pixelStride, channelOffset, channels, height, width, ElementType.HALF);
    }

    /** A packed FP16 view over its own buffer: pixel stride rounded up to a multiple of 8 channels. */
    public static TensorView own(long base, int channels, int height, int width) {
        return own(base, channels, height, width, ElementType.HALF);
    }

    /** A packed view over its own buffer: pixel stride rounded up to a multiple of 8 channels. */
    public static TensorView own(long base, int channels, int height, int width, ElementType type) {
        int stride = padded(channels);
        return new TensorView(base, (long) stride * height * width, stride, 0, channels, height, width, type);
    }

    /** Channels rounded up to a multiple of 8: 16-byte vectors and tensor-core friendly. */
    public static int padded(int channels) {
        return (channels + 7) & ~7;
    }

    /** Bytes of {@code maxBatch} packed images of {@code channels} x {@code height} x {@code width}. */
    public static long packedBytes(int channels, int height, int width, int maxBatch, ElementType type) {
        return (long) maxBatch * height * width * padded(channels) * type.bytes();
    }

    public int pixels() { return height * width; }

    /** Channels [offset, offset + count) of this view. */
    public TensorView slice(int offset, int count) {
        if (offset < 0 || offset + count > channels) {
            throw new IllegalArgumentException("slice " + offset + "+" + count + " of a " + channels + "-channel view");
        }
        return new TensorView(base, imageStride, pixelStride, channelOffset + offset, count, height, width, type);
    }

    /** Byte address of channel 0 of image 0. */
    public long address() {
        return base + (long) type.bytes() * channelOffset;
    }

    /** 16-byte (8 halves) vector kernels apply: 8-channel groups aligned within each pixel. */
    public boolean vectorizable() {
        return channels % 8 == 0 && channelOffset % 8 == 0 && pixelStride % 8 == 0;
    }

    /** Whether the view covers whole pixels of its own buffer (no offset, stride = padded channels). */
    public boolean packed() {
        return channelOffset == 0 && pixelStride == padded(channels) && imageStride == (long) pixelStride * pixels();
    }

    /** Bytes one image spans in the buffer. */
    public long imageBytes() {
        return (long) type.bytes() * imageStride;
    }

    /** Bytes {@code n} images span. */
    public long bytes(int n) {
        return n * imageBytes();
    }

    public boolean sameStorage(TensorView o) {
        return base == o.base && imageStride == o.imageStride && pixelStride == o.pixelStride
                && channelOffset == o.channelOffset && channels == o.channels && type == o.type;
    }
}
