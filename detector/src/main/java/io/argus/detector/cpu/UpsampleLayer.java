package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.UpsampleSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_post_ops;
import org.bytedeco.dnnl.dnnl_primitive_attr;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.javacpp.Pointer;

/**
 * [upsample]: nearest neighbour by an integer stride, times scale: one oneDNN resampling (nearest picks input pixel
 * y / stride for an integer factor, as Darknet) with the scale as a linear post-op when it is not 1. INT8: the
 * output's scale already holds the factor's size (CpuNetwork), so only its sign remains to apply.
 *
 * <p>Training: backward is resampling backward (each input pixel gets the sum of the stride x stride outputs it was
 * copied to), times the scale as the move into the input's gradient applies it.
 */
final class UpsampleLayer implements CpuLayer {
    private final UpsampleSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;
    private final LayerOutput gradient;          // training only
    private final GradientSink inputSink;        // training: null when the input needs no gradient
    private final NativeFloats gradientScratch;
    private final Dnnl.Primitive[][] backwards;
    private final dnnl_primitive_desc[] forwardDescs;

    /** For inference. */
    UpsampleLayer(UpsampleSpec spec, LayerOutput input, LayerOutput output, int maxBatch, LayerContext context) {
        this(spec, input, output, null, null, null, maxBatch, context);
    }

    /** For training: {@code gradient} is dLoss/dOutput; dLoss/dInput goes to {@code inputSink}. */
    UpsampleLayer(UpsampleSpec spec, LayerOutput input, LayerOutput output, LayerOutput gradient, GradientSink inputSink,
                  NativeFloats gradientScratch, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.input = input;
        this.output = output;
        this.context = context;
        this.gradient = gradient;
        this.inputSink = inputSink;
        this.gradientScratch = gradientScratch;
        this.variants = new Dnnl.Primitive[maxBatch + 1];
        this.backwards = new Dnnl.Primitive[maxBatch + 1][];
        this.forwardDescs = new dnnl_primitive_desc[maxBatch + 1];
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
        boolean training = gradient != null;
        dnnl_primitive_attr attr = training ? resources.trainingAttr()
                : resources.attr(io.argus.detector.darknet.Activation.LINEAR);
        float factor = output.quantized() ? Math.signum(spec.scale()) : spec.scale();
        if (factor != 1f) {
            dnnl_post_ops po = new dnnl_post_ops();
            Dnnl.check(dnnl_post_ops_create(po), "post_ops_create");
            resources.own(po);
            Dnnl.check(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, factor, 0f), "upsample scale");
            Dnnl.check(dnnl_primitive_attr_set_post_ops(attr, po), "set_post_ops");
        }
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_resampling_forward_primitive_desc_create(pd, Dnnl.engine(),
                training ? dnnl_forward_training : dnnl_forward_inference,
                dnnl_resampling_nearest, (float[]) null, src, dst, attr), "upsample layer " + spec.index());
        forwardDescs[n] = pd;
        return resources.primitive(pd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST)
                .arg(DNNL_ARG_SRC, resources.memory(src, input.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(dst, output.pointer()));
    }

    @Override
    public void backward(int n) {
        if (gradient == null) CpuLayer.super.backward(n);
        if (inputSink == null) return;
        Dnnl.Primitive[] steps = backwards[n];
        if (steps == null) steps = backwards[n] = buildBackward(n);
        for (Dnnl.Primitive p : steps) if (p != null) p.execute(context.stream());
    }

    private Dnnl.Primitive[] buildBackward(int n) {
        if (forwardDescs[n] == null) forward(n);   // the backward descriptor needs the forward's as its hint
        Dnnl.Resources r = resources;
        dnnl_memory_desc src = input.desc(r, n);
        dnnl_memory_desc dst = output.desc(r, n);
        dnnl_primitive_desc back = new dnnl_primitive_desc();
        Dnnl.check(dnnl_resampling_backward_primitive_desc_create(back, Dnnl.engine(), dnnl_resampling_nearest,
                (float[]) null, src, dst, forwardDescs[n], r.trainingAttr()), "upsample backward layer " + spec.index());
        boolean direct = inputSink.writable() && spec.scale() == 1f;
        Pointer dx = direct ? inputSink.gradient().pointer() : gradientScratch.pointer();
        Dnnl.Primitive sum = r.primitive(back, context.scratch(), DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
                .arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                .arg(DNNL_ARG_DIFF_SRC, r.memory(src, dx));
        Dnnl.Primitive deliver = direct ? null : inputSink.from(r, src, dx, spec.scale(), src, context.scratch());
        return new Dnnl.Primitive[] {sum, deliver};
    }

    @Override
    public void close() { resources.close(); }
}
