package io.argus.detector.testing;

import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;

/**
 * How the tests that run whole official networks (against OpenCV, Darknet, ONNX Runtime, other precisions, other batch
 * sizes, every implementation) keep their cost down without checking less.
 */
public final class FastNetworks {
    private FastNetworks() {}

    /**
     * Their input, 224 x 160 rather than the cfgs' 416 x 416: a fifth of the pixels, and still every layer kind of every
     * cfg with what each is checked for. Stride 32 leaves a 7 x 5 map, where SPP's 5, 9 and 13 max pools still give
     * three different outputs (at 5 x 5 the 9 and the 13 would both take the whole map). Across the strides the maps'
     * sides (224 ... 14, 7 and 160 ... 10, 5) leave remainders 1, 2 and 3 modulo 4 and odd sides, so our Winograd
     * F(4x4) and F(2x2) meet partial tiles at the edges as at 416 (26, 13), and on a grid that is not square.
     */
    public static final int WIDTH = 224;
    public static final int HEIGHT = 160;

    /**
     * FP32 with oneDNN's first choice of implementation for every convolution, for tests whose subject is not which
     * implementation runs (EveryImplementationTest checks that every one writes the same): nothing is timed. Timing
     * every candidate of every layer shape costs several times the forward passes themselves (at 416 x 416, yolov4's
     * case of the OpenCV test took 49 s tuned and 9 s untuned).
     */
    public static final CpuOptions UNTUNED = new CpuOptions(CpuPrecision.FP32, false, null);
}
