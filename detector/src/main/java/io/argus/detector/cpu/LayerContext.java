package io.argus.detector.cpu;

import org.bytedeco.dnnl.dnnl_stream;

/**
 * What every layer of one CPU network shares: the oneDNN stream its primitives run on one after the other, the one
 * scratch buffer, the precision of the activations, the tuner that picks convolution implementations, whether our
 * Winograd convolution may be one of them, and what the Winograd layers share.
 */
record LayerContext(dnnl_stream stream, Scratchpad scratch, CpuPrecision precision, ConvolutionTuner tuner,
                    WinogradPolicy winograd, WinogradWorkspace winogradWorkspace) {}
