package io.argus.detector.darknet;

/**
 * {@code [route]}: concatenates along channels the outputs of earlier layers; with groups > 1 it takes slice
 * group_id of each input's channels.
 */
public record RouteSpec(int index, int line, int[] layers, Shape[] inputShapes, Shape output, int groups,
                        int groupId) implements LayerSpec {
    @Override
    public int[] inputs() { return layers.clone(); }

    @Override
    public String kind() { return "route"; }

    /** First input channel taken from input i. */
    public int channelOffset(int i) { return inputShapes[i].channels() / groups * groupId; }

    /** Number of channels taken from input i. */
    public int channelCount(int i) { return inputShapes[i].channels() / groups; }
}
