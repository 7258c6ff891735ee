package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.UpsampleSpec;
import java.nio.FloatBuffer;

/** [upsample]: nearest neighbour by an integer stride, times scale; backward sums each stride x stride block. */
final class UpsampleTrainLayer implements TrainLayer {
    private final UpsampleSpec spec;
    private final TrainContext ctx;
    private final NativeFloats input;
    private final NativeFloats inputGradient;
    private final NativeFloats output;
    private final NativeFloats gradient;

    UpsampleTrainLayer(UpsampleSpec spec, NativeFloats input, NativeFloats inputGradient, int maxBatch,
                       TrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.input = input;
        this.inputGradient = inputGradient;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
        this.gradient = new NativeFloats((long) maxBatch * spec.output().size());
    }

    @Override
    public UpsampleSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return gradient; }

    @Override
    public void forward(int n) {
        int s = spec.stride();
        float scale = spec.scale();
        int h = spec.input().height();
        int w = spec.input().width();
        int ow = w * s;
        ctx.workers().forRange(n * spec.input().channels(), (wk, from, to) -> {
            FloatBuffer in = input.buffer();
            FloatBuffer out = output.buffer();
            for (int c = from; c < to; c++) {
                int inBase = c * h * w;
                int outBase = c * h * s * ow;
                for (int y = 0; y < h * s; y++) {
                    int src = inBase + (y / s) * w;
                    int dst = outBase + y * ow;
                    for (int x = 0; x < ow; x++) out.put(dst + x, scale * in.get(src + x / s));
                }
            }
        });
    }

    @Override
    public void backward(int n) {
        if (inputGradient == null) return;
        int s = spec.stride();
        float scale = spec.scale();
        int h = spec.input().height();
        int w = spec.input().width();
        int ow = w * s;
        ctx.workers().forRange(n * spec.input().channels(), (wk, from, to) -> {
            FloatBuffer g = gradient.buffer();
            FloatBuffer dx = inputGradient.buffer();
            for (int c = from; c < to; c++) {
                int inBase = c * h * w;
                int outBase = c * h * s * ow;
                for (int y = 0; y < h * s; y++) {
                    int dst = inBase + (y / s) * w;
                    int src = outBase + y * ow;
                    for (int x = 0; x < ow; x++) dx.put(dst + x / s, dx.get(dst + x / s) + scale * g.get(src + x));
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
