package io.argus.detector.darknet;

/**
 * {@code [maxpool]} with Darknet's padding rule: padding defaults to size-1 and the window starts at -padding/2,
 * so size 2 stride 1 keeps the spatial size and looks one pixel right/down (clipped at the border).
 */
public record MaxPoolSpec(int index, int line, Shape input, Shape output, int size, int strideX, int strideY,
                          int padding) implements LayerSpec {
    @Override
    public int[] inputs() { return new int[] {index - 1}; }

    @Override
    public String kind() { return "maxpool"; }

    /** Offset of the window's first column/row relative to out * stride (C integer division, as Darknet). */
    public int offset() { return -padding / 2; }
}
