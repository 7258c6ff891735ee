package io.argus.detector.darknet;

/**
 * {@code [route]}: concatenates along channels a channel range of each of earlier layers' outputs. Darknet's form takes
 * every input whole, or with groups > 1 slice group_id of each input's channels; an imported ONNX graph's Concat of
 * Split or Slice outputs gives each input its own range ({@link #ofRanges}).
 */
public record RouteSpec(int index, int line, int[] layers, Shape[] inputShapes, Shape output, int groups,
                        int groupId, int[] offsets, int[] counts) implements LayerSpec {
    public RouteSpec {
        layers = layers.clone();
        inputShapes = inputShapes.clone();
        offsets = offsets.clone();
        counts = counts.clone();
        if (offsets.length != layers.length || counts.length != layers.length) {
            throw new IllegalArgumentException("route " + index + ": " + layers.length + " inputs but " + offsets.length
                    + " offsets and " + counts.length + " counts");
        }
        for (int i = 0; i < layers.length; i++) {
            if (offsets[i] < 0 || counts[i] <= 0 || offsets[i] + counts[i] > inputShapes[i].channels()) {
                throw new IllegalArgumentException("route " + index + ": channels " + offsets[i] + ".."
                        + (offsets[i] + counts[i]) + " of input " + i + " outside its " + inputShapes[i].channels());
            }
        }
    }

    /** Darknet's form: group {@code groupId} of {@code groups} equal channel slices of every input. */
    public RouteSpec(int index, int line, int[] layers, Shape[] inputShapes, Shape output, int groups, int groupId) {
        this(index, line, layers, inputShapes, output, groups, groupId, darknetOffsets(inputShapes, groups, groupId),
                darknetCounts(inputShapes, groups));
    }

    /** Channels {@code offsets[i] .. offsets[i] + counts[i]} of each input, in order. */
    public static RouteSpec ofRanges(int index, int line, int[] layers, Shape[] inputShapes, int[] offsets,
                                     int[] counts) {
        int channels = 0;
        for (int c : counts) channels += c;
        Shape output = new Shape(channels, inputShapes[0].height(), inputShapes[0].width());
        return new RouteSpec(index, line, layers, inputShapes, output, 1, 0, offsets, counts);
    }

    private static int[] darknetOffsets(Shape[] inputs, int groups, int groupId) {
        int[] o = new int[inputs.length];
        for (int i = 0; i < o.length; i++) o[i] = inputs[i].channels() / groups * groupId;
        return o;
    }

    private static int[] darknetCounts(Shape[] inputs, int groups) {
        int[] c = new int[inputs.length];
        for (int i = 0; i < c.length; i++) c[i] = inputs[i].channels() / groups;
        return c;
    }

    @Override
    public int[] inputs() { return layers.clone(); }

    @Override
    public String kind() { return "route"; }

    /** First input channel taken from input i. */
    public int channelOffset(int i) { return offsets[i]; }

    /** Number of channels taken from input i. */
    public int channelCount(int i) { return counts[i]; }

    /** Whether every input is taken whole (a plain concatenation, or with one input the input itself). */
    public boolean whole() {
        for (int i = 0; i < layers.length; i++) if (offsets[i] != 0 || counts[i] != inputShapes[i].channels()) return false;
        return true;
    }
}
