package io.argus.detector.cpu;

import io.argus.detector.darknet.UpsampleSpec;
import java.nio.FloatBuffer;

/** [upsample]: nearest neighbour by an integer stride, times scale. */
final class UpsampleLayer implements CpuLayer {
    private final UpsampleSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;

    UpsampleLayer(UpsampleSpec spec, LayerOutput input, LayerOutput output) {
        this.spec = spec;
        this.input = input;
        this.output = output;
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        FloatBuffer in = input.buffer(n);
        FloatBuffer out = output.buffer(n);
        int inOffset = input.offset(n);
        int outOffset = output.offset(n);
        int s = spec.stride();
        float scale = spec.scale();
        int h = spec.input().height();
        int w = spec.input().width();
        int ow = w * s;
        int channels = n * spec.input().channels();
        for (int c = 0; c < channels; c++) {
            int inBase = inOffset + c * h * w;
            int outBase = outOffset + c * h * s * ow;
            for (int y = 0; y < h * s; y++) {
                int src = inBase + (y / s) * w;
                int dst = outBase + y * ow;
                for (int x = 0; x < ow; x++) out.put(dst + x, scale * in.get(src + x / s));
            }
        }
    }
}
