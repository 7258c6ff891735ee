package io.argus.detector.cpu;

import io.argus.detector.darknet.RouteSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;

/**
 * [route]: channel slices of earlier outputs next to each other. In channels last a slice is a strided view, so each
 * input is one oneDNN reorder from (its group of) the input's channels into its channels of this output. INT8: an
 * input at another scale than the output's is rescaled by its reorder.
 *
 * <p>Training: backward is the same views the other way round, each slice of this layer's gradient moved into (its
 * group of) its input's gradient.
 */
final class RouteLayer implements CpuLayer {
    private final RouteSpec spec;
    private final LayerOutput[] inputs;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[][] variants;
    private final LayerOutput gradient;          // training only
    private final GradientSink[] inputSinks;     // training: per input, null where it needs no gradient
    private final Dnnl.Primitive[][] backwards;

    /** For inference. */
    RouteLayer(RouteSpec spec, LayerOutput[] inputs, LayerOutput output, int maxBatch, LayerContext context) {
        this(spec, inputs, output, null, null, maxBatch, context);
    }

    /** For training: {@code gradient} is dLoss/dOutput; each input's share goes to its sink. */
    RouteLayer(RouteSpec spec, LayerOutput[] inputs, LayerOutput output, LayerOutput gradient, GradientSink[] inputSinks,
               int maxBatch, LayerContext context) {
        this.spec = spec;
        this.inputs = inputs;
        this.output = output;
        this.context = context;
        this.gradient = gradient;
        this.inputSinks = inputSinks;
        this.variants = new Dnnl.Primitive[maxBatch + 1][];
        this.backwards = new Dnnl.Primitive[maxBatch + 1][];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        if (inputs.length == 1 && output == inputs[0]) return;   // the network gave it its input's buffer
        Dnnl.Primitive[] copies = variants[n];
        if (copies == null) copies = variants[n] = build(n);
        for (Dnnl.Primitive p : copies) p.execute(context.stream());
    }

    private Dnnl.Primitive[] build(int n) {
        Dnnl.Primitive[] copies = new Dnnl.Primitive[inputs.length];
        dnnl_memory_desc whole = output.desc(resources, n);
        long at = 0;
        for (int i = 0; i < inputs.length; i++) {
            long[] dims = sliceDims(i, n);
            dnnl_memory_desc from = resources.submemory(inputs[i].desc(resources, n), dims, new long[] {0, spec.channelOffset(i), 0, 0});
            dnnl_memory_desc to = resources.submemory(whole, dims, new long[] {0, at, 0, 0});
            copies[i] = resources.reorder(from, inputs[i].pointer(), inputs[i].scale(), to, output.pointer(), output.scale(),
                    context.scratch());
            at += dims[1];
        }
        return copies;
    }

    private long[] sliceDims(int i, int n) {
        var shape = inputs[i].shape();
        return new long[] {n, spec.channelCount(i), shape.height(), shape.width()};
    }

    @Override
    public void backward(int n) {
        if (gradient == null) CpuLayer.super.backward(n);
        Dnnl.Primitive[] moves = backwards[n];
        if (moves == null) moves = backwards[n] = buildBackward(n);
        for (Dnnl.Primitive p : moves) if (p != null) p.execute(context.stream());
    }

    private Dnnl.Primitive[] buildBackward(int n) {
        Dnnl.Primitive[] moves = new Dnnl.Primitive[inputs.length];
        dnnl_memory_desc whole = gradient.desc(resources, n);
        long at = 0;
        for (int i = 0; i < inputs.length; i++) {
            long[] dims = sliceDims(i, n);
            GradientSink sink = inputSinks[i];
            if (sink != null) {
                dnnl_memory_desc from = resources.submemory(whole, dims, new long[] {0, at, 0, 0});
                dnnl_memory_desc to = resources.submemory(sink.gradient().desc(resources, n), dims,
                        new long[] {0, spec.channelOffset(i), 0, 0});
                moves[i] = sink.from(resources, from, gradient.pointer(), 1f, to, context.scratch());
            }
            at += dims[1];
        }
        return moves;
    }

    @Override
    public void close() { resources.close(); }
}
