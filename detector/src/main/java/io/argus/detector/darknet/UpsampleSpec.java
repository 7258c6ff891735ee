package io.argus.detector.darknet;

/** {@code [upsample]}: nearest-neighbour upsampling by an integer stride, times {@code scale}. */
public record UpsampleSpec(int index, int line, Shape input, Shape output, int stride, float scale)
        implements LayerSpec {
    @Override
    public int[] inputs() { return new int[] {index - 1}; }

    @Override
    public String kind() { return "upsample"; }
}
