package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.MaxPoolSpec;
import java.nio.FloatBuffer;

/**
 * [maxpool] with Darknet's window placement (starts at -padding/2, taps outside the image ignored). Forward remembers
 * which input won each window (the first of equal maxima, as Darknet); backward routes the gradient there.
 */
final class MaxPoolTrainLayer implements TrainLayer {
    private final MaxPoolSpec spec;
    private final TrainContext ctx;
    private final NativeFloats input;
    private final NativeFloats inputGradient;
    private final NativeFloats output;
    private final NativeFloats gradient;
    private final int[] winner;

    MaxPoolTrainLayer(MaxPoolSpec spec, NativeFloats input, NativeFloats inputGradient, int maxBatch, TrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.input = input;
        this.inputGradient = inputGradient;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
        this.gradient = new NativeFloats((long) maxBatch * spec.output().size());
        this.winner = new int[maxBatch * spec.output().size()];
    }

    @Override
    public MaxPoolSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return gradient; }

    /** For each output of the last forward, the input index that won its window. */
    int[] winners() { return winner; }

    @Override
    public void forward(int n) {
        ctx.workers().forRange(n * spec.input().channels(), (w, from, to) -> {
            for (int c = from; c < to; c++) forwardPlane(c);
        });
    }

    private void forwardPlane(int c) {
        FloatBuffer in = input.buffer();
        FloatBuffer out = output.buffer();
        int h = spec.input().height();
        int w = spec.input().width();
        int oh = spec.output().height();
        int ow = spec.output().width();
        int size = spec.size();
        int off = spec.offset();
        int inBase = c * h * w;
        int outBase = c * oh * ow;
        for (int y = 0; y < oh; y++) {
            int y0 = Math.max(0, y * spec.strideY() + off);
            int y1 = Math.min(h, y * spec.strideY() + off + size);
            for (int x = 0; x < ow; x++) {
                int x0 = Math.max(0, x * spec.strideX() + off);
                int x1 = Math.min(w, x * spec.strideX() + off + size);
                float max = Float.NEGATIVE_INFINITY;
                int best = -1;
                for (int yy = y0; yy < y1; yy++) {
                    int row = inBase + yy * w;
                    for (int xx = x0; xx < x1; xx++) {
                        float v = in.get(row + xx);
                        if (v > max || best < 0) {
                            max = v;
                            best = row + xx;
                        }
                    }
                }
                out.put(outBase + y * ow + x, max);
                winner[outBase + y * ow + x] = best;
            }
        }
    }

    @Override
    public void backward(int n) {
        if (inputGradient == null) return;
        // windows of one plane may overlap (stride < size), so one task per plane keeps the adds race-free
        ctx.workers().forRange(n * spec.input().channels(), (w, from, to) -> {
            FloatBuffer g = gradient.buffer();
            FloatBuffer dx = inputGradient.buffer();
            int planeOut = spec.output().plane();
            for (int i = from * planeOut; i < to * planeOut; i++) {
                int j = winner[i];
                dx.put(j, dx.get(j) + g.get(i));
            }
        });
    }

    @Override
    public void close() {
        output.close();
        gradient.close();
    }
}
