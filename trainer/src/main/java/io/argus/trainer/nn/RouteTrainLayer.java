package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.RouteSpec;
import java.nio.FloatBuffer;

/** [route]: copies channel slices (group group_id of groups) of earlier outputs side by side; backward adds them back. */
final class RouteTrainLayer implements TrainLayer {
    private final RouteSpec spec;
    private final TrainContext ctx;
    private final NativeFloats[] inputs;
    private final NativeFloats[] inputGradients;
    private final NativeFloats output;
    private final NativeFloats gradient;

    RouteTrainLayer(RouteSpec spec, NativeFloats[] inputs, NativeFloats[] inputGradients, int maxBatch,
                    TrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.inputs = inputs;
        this.inputGradients = inputGradients;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
        this.gradient = new NativeFloats((long) maxBatch * spec.output().size());
    }

    @Override
    public RouteSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return gradient; }

    @Override
    public void forward(int n) {
        ctx.workers().forRange(n, (w, from, to) -> {
            int plane = spec.output().plane();
            for (int b = from; b < to; b++) {
                int dst = b * spec.output().size();
                for (int i = 0; i < inputs.length; i++) {
                    int count = spec.channelCount(i) * plane;
                    int src = b * spec.inputShapes()[i].size() + spec.channelOffset(i) * plane;
                    output.buffer().put(dst, inputs[i].buffer(), src, count);
                    dst += count;
                }
            }
        });
    }

    @Override
    public void backward(int n) {
        ctx.workers().forRange(n, (w, from, to) -> {
            int plane = spec.output().plane();
            FloatBuffer g = gradient.buffer();
            for (int b = from; b < to; b++) {
                int src = b * spec.output().size();
                for (int i = 0; i < inputs.length; i++) {
                    int count = spec.channelCount(i) * plane;
                    if (inputGradients[i] != null) {
                        FloatBuffer dx = inputGradients[i].buffer();
                        int dst = b * spec.inputShapes()[i].size() + spec.channelOffset(i) * plane;
                        for (int j = 0; j < count; j++) dx.put(dst + j, dx.get(dst + j) + g.get(src + j));
                    }
                    src += count;
                }
            }
        });
    }

    @Override
    public void close() {
        output.close();
        gradient.close();
    }
}
