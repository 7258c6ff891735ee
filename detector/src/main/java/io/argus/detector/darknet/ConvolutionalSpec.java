package io.argus.detector.darknet;

/** {@code [convolutional]}: grouped 2-D convolution, optional batch norm, then an activation. */
public record ConvolutionalSpec(int index, int line, Shape input, Shape output, int filters, int size,
                                int strideX, int strideY, int pad, int groups, Activation activation,
                                boolean batchNormalize) implements LayerSpec {
    @Override
    public int[] inputs() { return new int[] {index - 1}; }

    @Override
    public String kind() { return "convolutional"; }

    /** Input channels seen by one group. */
    public int groupChannels() { return input.channels() / groups; }

    /** Number of weights (Darknet's nweights): filters x (c / groups) x size x size. */
    public int weightCount() { return filters * groupChannels() * size * size; }

    /** Multiply-adds x 2 for one image. */
    public long flops() {
        return 2L * weightCount() * output.plane();
    }
}
