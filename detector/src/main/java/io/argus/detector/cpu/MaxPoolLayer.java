package io.argus.detector.cpu;

import io.argus.detector.darknet.MaxPoolSpec;
import java.nio.FloatBuffer;

/** [maxpool] with Darknet's window placement (starts at -padding/2; taps outside the image are ignored). */
final class MaxPoolLayer implements CpuLayer {
    private final MaxPoolSpec spec;
    private final NativeFloats input;
    private final NativeFloats output;

    MaxPoolLayer(MaxPoolSpec spec, NativeFloats input, int maxBatch) {
        this.spec = spec;
        this.input = input;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
    }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public void forward(int n) {
        FloatBuffer in = input.buffer();
        FloatBuffer out = output.buffer();
        int h = spec.input().height();
        int w = spec.input().width();
        int oh = spec.output().height();
        int ow = spec.output().width();
        int size = spec.size();
        int off = spec.offset();
        int channels = n * spec.input().channels();
        for (int c = 0; c < channels; c++) {
            int inBase = c * h * w;
            int outBase = c * oh * ow;
            for (int y = 0; y < oh; y++) {
                int y0 = Math.max(0, y * spec.strideY() + off);
                int y1 = Math.min(h, y * spec.strideY() + off + size);
                for (int x = 0; x < ow; x++) {
                    int x0 = Math.max(0, x * spec.strideX() + off);
                    int x1 = Math.min(w, x * spec.strideX() + off + size);
                    float max = Float.NEGATIVE_INFINITY;
                    for (int yy = y0; yy < y1; yy++) {
                        int row = inBase + yy * w;
                        for (int xx = x0; xx < x1; xx++) max = Math.max(max, in.get(row + xx));
                    }
                    out.put(outBase + y * ow + x, max);
                }
            }
        }
    }

    @Override
    public void close() { output.close(); }
}
