package io.argus.detector.cuda;

/**
 * Where one layer's FP16 NHWC output lives: {@code channels} channels starting at {@code channelOffset} of pixels
 * {@code pixelStride} halves apart, images {@code imageStride} halves apart, in the buffer at {@code base}. A layer
 * that owns its buffer has offset 0 and pixelStride = channels rounded up to 8; a layer written into its place in a
 * concatenation (a route) has the route's pixel stride and its channel offset there; a grouped route is a slice.
 */
public record TensorView(long base, long imageStride, int pixelStride, int channelOffset, int channels, int height,
                         int width) {

    public TensorView {
        if (channelOffset + channels > pixelStride) {
            throw new IllegalArgumentException("view of channels " + channelOffset + ".." + (channelOffset + channels)
                    + " exceeds the pixel stride " + pixelStride);
        }
    }

    /** A packed view over its own buffer: pixel stride rounded up to a multiple of 8 channels. */
    public static TensorView own(long base, int channels, int height, int width) {
        int stride = padded(channels);
        return new TensorView(base, (long) stride * height * width, stride, 0, channels, height, width);
    }

    /** Channels rounded up to a multiple of 8: 16-byte vectors and tensor-core friendly. */
    public static int padded(int channels) {
        return (channels + 7) & ~7;
    }

    public int pixels() { return height * width; }

    /** Channels [offset, offset + count) of this view. */
    public TensorView slice(int offset, int count) {
        if (offset < 0 || offset + count > channels) {
            throw new IllegalArgumentException("slice " + offset + "+" + count + " of a " + channels + "-channel view");
        }
        return new TensorView(base, imageStride, pixelStride, channelOffset + offset, count, height, width);
    }

    /** Byte address of channel 0 of image 0. */
    public long address() {
        return base + 2L * channelOffset;
    }

    /** 16-byte vector kernels apply: 8-channel groups aligned within each pixel. */
    public boolean vectorizable() {
        return channels % 8 == 0 && channelOffset % 8 == 0 && pixelStride % 8 == 0;
    }

    /** Bytes one image spans in the buffer. */
    public long imageBytes() {
        return 2L * imageStride;
    }

    public boolean sameStorage(TensorView o) {
        return base == o.base && imageStride == o.imageStride && pixelStride == o.pixelStride
                && channelOffset == o.channelOffset && channels == o.channels;
    }
}
