package io.argus.trainer.cuda;

import io.argus.detector.darknet.Shape;

/**
 * A batch of feature maps on the GPU: NHWC, {@code channels} real channels in pixels {@code stride} values apart
 * (channels rounded up to a multiple of 8; the padding holds zeros), images packed one after another, each value
 * {@code bytes} wide. {@code address} is where image 0 starts.
 */
record Tensor(long address, int channels, int stride, int height, int width, int bytes) {
    Tensor {
        if (stride % 8 != 0 || stride < channels) {
            throw new IllegalArgumentException("stride " + stride + " for " + channels + " channels");
        }
    }

    static int padded(int channels) {
        return (channels + 7) & ~7;
    }

    static long bytesFor(Shape s, int maxBatch, int bytes) {
        return (long) maxBatch * s.height() * s.width() * padded(s.channels()) * bytes;
    }

    int pixels() { return height * width; }

    /** Values per image (padding included). */
    long imageValues() { return (long) pixels() * stride; }

    /** Bytes of {@code n} images. */
    long bytes(int n) { return n * imageValues() * bytes; }
}
