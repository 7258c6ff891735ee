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
import org.bytedeco.dnnl.dnnl_stream;
import org.bytedeco.dnnl.global.dnnl;

/**
 * A network instantiated on the CPU in FP32 for up to {@code maxBatch} images: every buffer allocated here, once
 * (oneDNN primitives per batch size on first use); {@link #forward(int)} then runs the layers in cfg order.
 * For one image, layers concatenated whole by a [route] write into the route's buffer (no copy).
 */
public final class CpuNetwork implements AutoCloseable {
    private final NetworkSpec spec;
    private final int maxBatch;
    private final LayerOutput input;
    private final dnnl_stream stream;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Scratchpad scratch = new Scratchpad();
    private final List<LayerOutput> outputs = new ArrayList<>();
    private final List<CpuLayer> layers = new ArrayList<>();
    private int lastBatch;

    public CpuNetwork(NetworkSpec spec, ModelWeights weights, int maxBatch) {
        if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
        this.spec = spec;
        this.maxBatch = maxBatch;
        this.input = new LayerOutput((long) maxBatch * spec.inputShape().size());
        this.stream = resources.stream();
        for (LayerSpec l : spec.layers()) outputs.add(new LayerOutput((long) maxBatch * l.output().size()));
        planRoutesInPlace();
        for (LayerSpec l : spec.layers()) layers.add(create(l, weights));
    }

    /**
     * A [route] without groups concatenates whole outputs: each input produced by a convolution, max pool, upsample
     * or shortcut, used whole by no other route, writes its single-image result straight into its slice.
     */
    private void planRoutesInPlace() {
        boolean[] aliased = new boolean[spec.layers().size()];
        for (LayerSpec l : spec.layers()) {
            if (!(l instanceof RouteSpec r) || r.groups() != 1) continue;
            long offset = 0;
            for (int i = 0; i < r.layers().length; i++) {
                int from = r.layers()[i];
                LayerSpec producer = spec.layers().get(from);
                boolean writable = producer instanceof ConvolutionalSpec || producer instanceof MaxPoolSpec
                        || producer instanceof UpsampleSpec || producer instanceof ShortcutSpec;
                if (writable && !aliased[from] && occurrences(r.layers(), from) == 1) {
                    outputs.get(from).aliasInto(outputs.get(r.index()), offset);
                    aliased[from] = true;
                }
                offset += (long) r.channelCount(i) * r.output().plane();
            }
        }
    }

    private static int occurrences(int[] a, int v) {
        int c = 0;
        for (int x : a) if (x == v) c++;
        return c;
    }

    private LayerOutput out(int index) {
        return index < 0 ? input : outputs.get(index);
    }

    private CpuLayer create(LayerSpec l, ModelWeights weights) {
        LayerOutput prev = out(l.index() - 1);
        LayerOutput mine = outputs.get(l.index());
        return switch (l) {
            case ConvolutionalSpec c ->
                    new ConvolutionalLayer(c, weights.conv(c.index()), prev, mine, maxBatch, stream, scratch);
            case MaxPoolSpec m -> new MaxPoolLayer(m, prev, mine, maxBatch, stream, scratch);
            case RouteSpec r -> {
                LayerOutput[] ins = new LayerOutput[r.layers().length];
                for (int i = 0; i < ins.length; i++) ins[i] = out(r.layers()[i]);
                yield new RouteLayer(r, ins, mine);
            }
            case ShortcutSpec s -> new ShortcutLayer(s, prev, out(s.from()), mine, maxBatch, stream, scratch);
            case UpsampleSpec u -> new UpsampleLayer(u, prev, mine);
            case YoloSpec y -> new YoloLayer(y, prev, mine);
        };
    }

    public NetworkSpec spec() { return spec; }

    public int maxBatch() { return maxBatch; }

    /** The batch input, NCHW planar RGB in [0,1]; image i starts at i x inputShape().size(). */
    public FloatBuffer input() { return input.own().buffer(); }

    public void forward(int n) {
        check(n);
        for (int i = 0; i < layers.size(); i++) layers.get(i).forward(n);   // index loop: no Iterator per frame
        Dnnl.check(dnnl.dnnl_stream_wait(stream), "stream_wait");
        lastBatch = n;
    }

    /**
     * Runs the network once layer by layer and returns each layer's wall time in nanoseconds (for profiling: where
     * does the time go). Same results as {@link #forward(int)}.
     */
    public long[] forwardTimed(int n) {
        check(n);
        long[] ns = new long[layers.size()];
        for (int i = 0; i < layers.size(); i++) {
            long t = System.nanoTime();
            layers.get(i).forward(n);
            Dnnl.check(dnnl.dnnl_stream_wait(stream), "stream_wait");
            ns[i] = System.nanoTime() - t;
        }
        lastBatch = n;
        return ns;
    }

    private void check(int n) {
        if (n <= 0 || n > maxBatch) throw new IllegalArgumentException("batch " + n + " outside 1.." + maxBatch);
    }

    /**
     * Output of layer {@code index} after {@code forward(n)}: image i starts at {@code outputOffset(index, n)} + i x
     * the layer's output size.
     */
    public FloatBuffer output(int index, int n) { return outputs.get(index).buffer(n); }

    public int outputOffset(int index, int n) { return outputs.get(index).offset(n); }

    /**
     * A copy of layer {@code index}'s output for image {@code image} of the last forward pass, wherever it lives (for
     * tests and tools; allocates).
     */
    public float[] outputImage(int index, int image) {
        if (image < 0 || image >= lastBatch) throw new IndexOutOfBoundsException("image " + image + " of " + lastBatch);
        int size = spec.layers().get(index).output().size();
        float[] out = new float[size];
        outputs.get(index).buffer(lastBatch).get(outputs.get(index).offset(lastBatch) + image * size, out);
        return out;
    }

    /** Output of a layer that no route writes in place ([yolo] heads, for one): image i at i x output size. */
    public FloatBuffer output(int index) {
        LayerSpec l = spec.layers().get(index);
        if (outputs.get(index).aliasedAt(1)) {
            throw new IllegalStateException("layer " + index + " (" + l.kind() + ") lives in a route's buffer for one "
                    + "image: use output(index, n) and outputOffset(index, n)");
        }
        return outputs.get(index).own().buffer();
    }

    @Override
    public void close() {
        for (CpuLayer l : layers) l.close();
        for (LayerOutput o : outputs) o.close();
        input.close();
        scratch.close();
        resources.close();
    }
}
