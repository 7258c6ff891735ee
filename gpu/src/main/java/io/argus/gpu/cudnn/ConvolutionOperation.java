package io.argus.gpu.cudnn;

/**
 * The three operations of a convolution. Whatever the operation, the tensors keep their roles: the input-shaped one
 * (x, or dx for backward data), the filter-shaped one (W, or dW for backward filter) and the output-shaped one (y,
 * or dy for both backwards), so one variant-pack layout serves all three.
 */
public enum ConvolutionOperation { FORWARD, BACKWARD_DATA, BACKWARD_FILTER }
