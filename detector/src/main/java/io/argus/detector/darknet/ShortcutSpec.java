package io.argus.detector.darknet;

/** {@code [shortcut]}: element-wise sum of the previous layer and layer {@code from}, then an activation. */
public record ShortcutSpec(int index, int line, int from, Shape output, Activation activation) implements LayerSpec {
    @Override
    public int[] inputs() { return new int[] {index - 1, from}; }

    @Override
    public String kind() { return "shortcut"; }
}
