package io.argus.detector.cuda;

import io.argus.detector.cuda.layers.GpuLayer;

/**
 * A layer only the inference network has (the FP16 convolution with its fused epilogues); the other kinds are the
 * shared {@link io.argus.detector.cuda.layers} classes the trainer runs too.
 */
interface CudaLayer extends GpuLayer {
}
