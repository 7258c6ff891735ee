package io.argus.detector.cpu;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A network instantiated on the CPU in FP32 for up to {@code maxBatch} images: every buffer allocated here, once;
 * {@link #forward(int)} then runs the layers in cfg order over the input tensor.
 */
public final class CpuNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final NativeFloats input;
    private final org.bytedeco.dnnl.dnnl_stream stream;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final List<CpuLayer> layers = new ArrayList<>();

    public CpuNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.input = new NativeFloats((long) maxBatch * spec.inputShape().size());
        this.stream = resources.stream();
        for (LayerSpec l : spec.layers()) layers.add(create(l, weights));
    }

    private NativeFloats out(int index) {
        return index < 0 ? input : layers.get(index).output();
    }

    private CpuLayer create(LayerSpec l, ModelWeights weights) {
        NativeFloats prev = out(l.index() - 1);
        return switch (l) {
            case ConvolutionalSpec c -> new ConvolutionalLayer(c, weights.conv(c.index()), prev, maxBatch, stream);
            case MaxPoolSpec m -> new MaxPoolLayer(m, prev, maxBatch, stream);
            case RouteSpec r -> {
                NativeFloats[] ins = new NativeFloats[r.layers().length];
                for (int i = 0; i < ins.length; i++) ins[i] = out(r.layers()[i]);
                yield new RouteLayer(r, ins, maxBatch);
            }
            case ShortcutSpec s -> new ShortcutLayer(s, prev, out(s.from()), maxBatch, stream);
            case UpsampleSpec u -> new UpsampleLayer(u, prev, maxBatch);
            case YoloSpec y -> new YoloLayer(y, prev, maxBatch);
        };
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    /** The batch input, NCHW planar RGB in [0,1]; image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return input.buffer(); }

    public void forward(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
        for (int i = 0; i < layers.size(); i++) layers.get(i).forward(n);   // index loop: no Iterator per frame
        Dnnl.check(org.bytedeco.dnnl.global.dnnl.dnnl_stream_wait(stream), "stream_wait");
    }

    /**
     * Runs the network once layer by layer and returns each layer's wall time in nanoseconds (for profiling: where
     * does the time go). Same results as {@link #forward(int)}.
     */
    public long[] forwardTimed(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
        long[] ns = new long[layers.size()];
        for (int i = 0; i < layers.size(); i++) {
            long t = System.nanoTime();
            layers.get(i).forward(n);
            Dnnl.check(org.bytedeco.dnnl.global.dnnl.dnnl_stream_wait(stream), "stream_wait");
            ns[i] = System.nanoTime() - t;
        }
        return ns;
    }

    /** Output of layer {@code index} for the whole batch (image i at i x output size). */
    public FloatBuffer output(int index) { return layers.get(index).output().buffer(); }

    @Override
    public void close() {
        for (CpuLayer l : layers) l.close();
        input.close();
        resources.close();
    }
}
