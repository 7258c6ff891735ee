package io.argus.detector.darknet;

/**
 * Layers of an imported graph computed on the host ({@link HostOps}): reads the outputs of {@code layers} (whole), writes
 * one feature map. Not a Darknet section: it is how an imported graph's operations without a layer kind of their own
 * join the one network description the backends run.
 */
public record HostOpsSpec(int index, int line, int[] layers, Shape[] inputShapes, Shape output, HostOps ops)
        implements LayerSpec {
    public HostOpsSpec {
        layers = layers.clone();
        inputShapes = inputShapes.clone();
    }

    @Override
    public int[] inputs() { return layers.clone(); }

    @Override
    public String kind() { return "host"; }
}
