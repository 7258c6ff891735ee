package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.ShortcutSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;

/**
 * [shortcut]: previous output + the output of layer {@code from}, then the activation: one oneDNN binary add. INT8:
 * the two byte inputs are scaled to real values, added in FP32, and divided by the output's scale (a linear post-op
 * after the activation) into bytes.
 */
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
        dnnl_memory_desc a = previous.desc(resources, n);
        dnnl_memory_desc b = from.desc(resources, n);
        var attr = resources.attr(spec.activation());
        boolean scaled = previous.quantized() || from.quantized() || output.quantized();
        if (scaled) {
            resources.scaled(attr, DNNL_ARG_SRC_0, 0);
            resources.scaled(attr, DNNL_ARG_SRC_1, 0);
            if (output.scale() != 1f) {
                org.bytedeco.dnnl.dnnl_post_ops po = new org.bytedeco.dnnl.dnnl_post_ops();
                Dnnl.check(dnnl_post_ops_create(po), "post_ops_create");
                resources.own(po);
                Dnnl.appendActivation(po, spec.activation());
                Dnnl.check(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 1f / output.scale(), 0f), "shortcut scale");
                Dnnl.check(dnnl_primitive_attr_set_post_ops(attr, po), "set_post_ops");
            }
        }
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_binary_primitive_desc_create(pd, Dnnl.engine(), dnnl_binary_add, a, b, md, attr),
                "shortcut layer " + spec.index());
        Dnnl.Primitive p = scaled
                ? resources.primitive(pd, context.scratch(), DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST,
                        DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1)
                : resources.primitive(pd, context.scratch(), DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST);
        p.arg(DNNL_ARG_SRC_0, resources.memory(a, previous.pointer()))
                .arg(DNNL_ARG_SRC_1, resources.memory(b, from.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(md, output.pointer()));
        if (scaled) {
            p.arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, resources.scales(previous.scale()))
                    .arg(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1, resources.scales(from.scale()));
        }
        return p;
    }

    @Override
    public void close() {
        resources.close();
    }
}
