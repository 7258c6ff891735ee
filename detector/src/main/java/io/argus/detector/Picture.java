package io.argus.detector;

/**
 * A decoded picture a detector can take: {@link BgrImage} (8-bit BGR bytes in host memory, any backend) or
 * {@code cuda.Nv12Surface} (an NV12 picture left on the GPU by NVDEC, the CUDA backend only: it goes straight into
 * the batch tensor without crossing PCIe). Detections are in this picture's pixels.
 */
public interface Picture {
    int width();

    int height();
}
