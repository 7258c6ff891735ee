package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.ShortcutSpec;
import java.nio.FloatBuffer;

/** [shortcut]: activation(previous + layer {@code from}); backward hands the same gradient to both. */
final class ShortcutTrainLayer implements TrainLayer {
    private final ShortcutSpec spec;
    private final TrainContext ctx;
    private final NativeFloats previous;
    private final NativeFloats from;
    private final NativeFloats previousGradient;
    private final NativeFloats fromGradient;
    private final NativeFloats output;
    private final NativeFloats gradient;
    private final NativeFloats preActivation;   // mish/swish only

    ShortcutTrainLayer(ShortcutSpec spec, NativeFloats previous, NativeFloats previousGradient, NativeFloats from,
                       NativeFloats fromGradient, int maxBatch, TrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.previous = previous;
        this.from = from;
        this.previousGradient = previousGradient;
        this.fromGradient = fromGradient;
        long size = (long) maxBatch * spec.output().size();
        this.output = new NativeFloats(size);
        this.gradient = new NativeFloats(size);
        this.preActivation = Activations.needsPreActivation(spec.activation()) ? new NativeFloats(size) : null;
    }

    @Override
    public ShortcutSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return gradient; }

    @Override
    public void forward(int n) {
        int size = spec.output().size();
        ctx.workers().forRange(n, (w, lo, hi) -> {
            FloatBuffer a = previous.buffer();
            FloatBuffer b = from.buffer();
            FloatBuffer z = (preActivation != null ? preActivation : output).buffer();
            for (int i = lo * size; i < hi * size; i++) z.put(i, a.get(i) + b.get(i));
            Activations.forward(spec.activation(), z, output.buffer(), lo * size, hi * size);
        });
    }

    @Override
    public void backward(int n) {
        int size = spec.output().size();
        ctx.workers().forRange(n, (w, lo, hi) -> {
            FloatBuffer g = gradient.buffer();
            FloatBuffer source = (preActivation != null ? preActivation : output).buffer();
            Activations.backward(spec.activation(), source, g, lo * size, hi * size);
            for (NativeFloats target : new NativeFloats[] {previousGradient, fromGradient}) {
                if (target == null) continue;
                FloatBuffer dx = target.buffer();
                for (int i = lo * size; i < hi * size; i++) dx.put(i, dx.get(i) + g.get(i));
            }
        });
    }

    @Override
    public void close() {
        output.close();
        gradient.close();
        if (preActivation != null) preActivation.close();
    }
}
