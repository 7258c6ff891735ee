package io.argus.detector.cpu;

import org.bytedeco.dnnl.dnnl_stream;

/**
 * What every layer of one CPU network shares: the oneDNN stream its primitives run on one after the other, the one
 * scratch buffer, the precision of the activations, and the tuner that picks convolution implementations.
 */
record LayerContext(dnnl_stream stream, Scratchpad scratch, CpuPrecision precision, ConvolutionTuner tuner) {}
