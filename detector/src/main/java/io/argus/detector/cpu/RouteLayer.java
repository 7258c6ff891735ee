package io.argus.detector.cpu;

import io.argus.detector.darknet.RouteSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;

/**
 * [route]: channel slices of earlier outputs next to each other. In channels last a slice is a strided view, so each
 * input is one oneDNN reorder from (its group of) the input's channels into its channels of this output. INT8: an
 * input at another scale than the output's is rescaled by its reorder.
 */
final class RouteLayer implements CpuLayer {
    private final RouteSpec spec;
    private final LayerOutput[] inputs;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[][] variants;

    RouteLayer(RouteSpec spec, LayerOutput[] inputs, LayerOutput output, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.inputs = inputs;
        this.output = output;
        this.context = context;
        this.variants = new Dnnl.Primitive[maxBatch + 1][];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        Dnnl.Primitive[] copies = variants[n];
        if (copies == null) copies = variants[n] = build(n);
        for (Dnnl.Primitive p : copies) p.execute(context.stream());
    }

    private Dnnl.Primitive[] build(int n) {
        Dnnl.Primitive[] copies = new Dnnl.Primitive[inputs.length];
        dnnl_memory_desc whole = output.desc(resources, n);
        long at = 0;
        for (int i = 0; i < inputs.length; i++) {
            var shape = inputs[i].shape();
            long channels = spec.channelCount(i);
            long[] dims = {n, channels, shape.height(), shape.width()};
            dnnl_memory_desc from = resources.submemory(inputs[i].desc(resources, n), dims, new long[] {0, spec.channelOffset(i), 0, 0});
            dnnl_memory_desc to = resources.submemory(whole, dims, new long[] {0, at, 0, 0});
            copies[i] = resources.reorder(from, inputs[i].pointer(), inputs[i].scale(), to, output.pointer(), output.scale(),
                    context.scratch());
            at += channels;
        }
        return copies;
    }

    @Override
    public void close() { resources.close(); }
}
