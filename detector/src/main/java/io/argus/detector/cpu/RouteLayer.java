package io.argus.detector.cpu;

import io.argus.detector.darknet.RouteSpec;

/** [route]: copies channel slices of earlier outputs next to each other. */
final class RouteLayer implements CpuLayer {
    private final RouteSpec spec;
    private final NativeFloats[] inputs;
    private final NativeFloats output;

    RouteLayer(RouteSpec spec, NativeFloats[] inputs, int maxBatch) {
        this.spec = spec;
        this.inputs = inputs;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
    }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public void forward(int n) {
        int plane = spec.output().plane();
        int outSize = spec.output().size();
        for (int b = 0; b < n; b++) {
            int dst = b * outSize;
            for (int i = 0; i < inputs.length; i++) {
                int count = spec.channelCount(i) * plane;
                int src = b * spec.inputShapes()[i].size() + spec.channelOffset(i) * plane;
                output.buffer().put(dst, inputs[i].buffer(), src, count);
                dst += count;
            }
        }
    }

    @Override
    public void close() { output.close(); }
}
