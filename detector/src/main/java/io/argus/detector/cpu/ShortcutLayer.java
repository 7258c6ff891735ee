package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.ShortcutSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;

/** [shortcut]: previous output + the output of layer {@code from}, then the activation: one oneDNN binary add. */
final class ShortcutLayer implements CpuLayer {
    private final ShortcutSpec spec;
    private final LayerOutput previous;
    private final LayerOutput from;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;

    ShortcutLayer(ShortcutSpec spec, LayerOutput previous, LayerOutput from, LayerOutput output, int maxBatch,
                  LayerContext context) {
        this.spec = spec;
        this.previous = previous;
        this.from = from;
        this.context = context;
        this.output = output;
        this.variants = new Dnnl.Primitive[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        Dnnl.Primitive p = variants[n];
        if (p == null) p = variants[n] = build(n);
        p.execute(context.stream());
    }

    private Dnnl.Primitive build(int n) {
        dnnl_memory_desc md = output.desc(resources, n);
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_binary_primitive_desc_create(pd, Dnnl.engine(), dnnl_binary_add, md, md, md,
                resources.attr(spec.activation())), "shortcut layer " + spec.index());
        return resources.primitive(pd, context.scratch(), DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST)
                .arg(DNNL_ARG_SRC_0, resources.memory(md, previous.pointer()))
                .arg(DNNL_ARG_SRC_1, resources.memory(md, from.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(md, output.pointer()));
    }

    @Override
    public void close() {
        resources.close();
    }
}
