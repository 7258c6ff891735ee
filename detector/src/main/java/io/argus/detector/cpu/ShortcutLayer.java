package io.argus.detector.cpu;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ShortcutSpec;
import java.nio.FloatBuffer;

/** [shortcut]: previous output + the output of layer {@code from}, then the activation. */
final class ShortcutLayer implements CpuLayer {
    private final ShortcutSpec spec;
    private final NativeFloats previous;
    private final NativeFloats from;
    private final NativeFloats output;

    ShortcutLayer(ShortcutSpec spec, NativeFloats previous, NativeFloats from, int maxBatch) {
        this.spec = spec;
        this.previous = previous;
        this.from = from;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
    }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public void forward(int n) {
        FloatBuffer a = previous.buffer();
        FloatBuffer b = from.buffer();
        FloatBuffer out = output.buffer();
        int total = n * spec.output().size();
        Activation act = spec.activation();
        if (act == Activation.LINEAR) {
            for (int i = 0; i < total; i++) out.put(i, a.get(i) + b.get(i));
        } else {
            for (int i = 0; i < total; i++) out.put(i, act.apply(a.get(i) + b.get(i)));
        }
    }

    @Override
    public void close() { output.close(); }
}
