package io.argus.detector.cpu;

import java.nio.FloatBuffer;

/**
 * What a training network's convolution reads and writes of its parameters, all owned by the trainer: the working
 * copy of the weights it convolves with (Darknet's order [filters][c/groups][ky][kx], FP32), the biases and batch-norm
 * scales (read at every forward), the gradients it adds into (weights in Darknet's order), and the rolling batch-norm
 * statistics it moves towards each batch's. {@code scales}, {@code scaleGradient} and the rolling statistics are null
 * without batch_normalize.
 */
public record ConvolutionParameters(NativeFloats weights, float[] biases, float[] scales, NativeFloats weightGradient,
                                    FloatBuffer biasGradient, FloatBuffer scaleGradient, float[] rollingMean,
                                    float[] rollingVariance) {}
