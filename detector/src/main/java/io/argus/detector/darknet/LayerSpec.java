package io.argus.detector.darknet;

/**
 * One layer of a network, with shapes resolved. Formats only: the math lives in the backends.
 * {@link #inputs()} names the layers whose outputs this one reads; -1 is the network input. Darknet cfgs and imported
 * ONNX graphs both become a list of these ({@link NetworkSpec}), so every backend and precision serves both.
 */
public sealed interface LayerSpec
        permits ConvolutionalSpec, HostOpsSpec, MaxPoolSpec, RouteSpec, ShortcutSpec, UpsampleSpec, YoloSpec {
    /** Position in the cfg, counting from 0 after [net]. */
    int index();

    /** Line of the section header in the cfg. */
    int line();

    int[] inputs();

    Shape output();

    /** Section name as in the cfg, e.g. "convolutional". */
    String kind();
}
