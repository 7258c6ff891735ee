package io.argus.detector.cpu;

import io.argus.detector.darknet.RouteSpec;

/**
 * [route]: channel slices of earlier outputs next to each other. Inputs that wrote straight into this buffer (single
 * image, see {@link LayerOutput}) need no copy; the rest are copied.
 */
final class RouteLayer implements CpuLayer {
    private final RouteSpec spec;
    private final LayerOutput[] inputs;
    private final LayerOutput output;

    RouteLayer(RouteSpec spec, LayerOutput[] inputs, LayerOutput output) {
        this.spec = spec;
        this.inputs = inputs;
        this.output = output;
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        int plane = spec.output().plane();
        int outSize = spec.output().size();
        for (int b = 0; b < n; b++) {
            int dst = b * outSize;
            for (int i = 0; i < inputs.length; i++) {
                int count = spec.channelCount(i) * plane;
                if (!inputs[i].livesIn(output, n)) {
                    int src = inputs[i].offset(n) + b * spec.inputShapes()[i].size() + spec.channelOffset(i) * plane;
                    output.buffer(n).put(dst, inputs[i].buffer(n), src, count);
                }
                dst += count;
            }
        }
    }
}
