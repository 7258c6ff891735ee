package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.UpsampleSpec;
import org.bytedeco.dnnl.dnnl_post_ops;
import org.bytedeco.dnnl.dnnl_primitive_attr;
import org.bytedeco.dnnl.dnnl_primitive_desc;

/**
 * [upsample]: nearest neighbour by an integer stride, times scale: one oneDNN resampling (nearest picks input pixel
 * y / stride for an integer factor, as Darknet) with the scale as a linear post-op when it is not 1. INT8: the
 * output's scale already holds the factor's size (CpuNetwork), so only its sign remains to apply.
 */
final class UpsampleLayer implements CpuLayer {
    private final UpsampleSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;

    UpsampleLayer(UpsampleSpec spec, LayerOutput input, LayerOutput output, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.input = input;
        this.output = output;
        this.context = context;
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
        var src = input.desc(resources, n);
        var dst = output.desc(resources, n);
        dnnl_primitive_attr attr = resources.attr(io.argus.detector.darknet.Activation.LINEAR);
        float factor = output.quantized() ? Math.signum(spec.scale()) : spec.scale();
        if (factor != 1f) {
            dnnl_post_ops po = new dnnl_post_ops();
            Dnnl.check(dnnl_post_ops_create(po), "post_ops_create");
            resources.own(po);
            Dnnl.check(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, factor, 0f), "upsample scale");
            Dnnl.check(dnnl_primitive_attr_set_post_ops(attr, po), "set_post_ops");
        }
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_resampling_forward_primitive_desc_create(pd, Dnnl.engine(), dnnl_forward_inference,
                dnnl_resampling_nearest, (float[]) null, src, dst, attr), "upsample layer " + spec.index());
        return resources.primitive(pd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST)
                .arg(DNNL_ARG_SRC, resources.memory(src, input.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(dst, output.pointer()));
    }

    @Override
    public void close() { resources.close(); }
}
