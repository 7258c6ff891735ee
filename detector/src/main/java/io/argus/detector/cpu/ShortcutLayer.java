package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ShortcutSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;

/**
 * [shortcut]: previous output + the output of layer {@code from}, then the activation: one oneDNN binary add. INT8:
 * the two byte inputs are scaled to real values, added in FP32, and divided by the output's scale (a linear post-op
 * after the activation) into bytes.
 *
 * <p>Training: the add, then the activation as its own eltwise (forward training, its input kept for mish and swish);
 * backward is eltwise backward, then the same gradient handed to both inputs.
 */
final class ShortcutLayer implements CpuLayer {
    private final ShortcutSpec spec;
    private final LayerOutput previous;
    private final LayerOutput from;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;
    private final LayerOutput gradient;            // training only
    private final GradientSink previousSink;       // training: null where an input needs no gradient
    private final GradientSink fromSink;
    private final LayerOutput activationInput;     // training with mish or swish
    private final Training[] trainings;

    /** For inference. */
    ShortcutLayer(ShortcutSpec spec, LayerOutput previous, LayerOutput from, LayerOutput output, int maxBatch,
                  LayerContext context) {
        this(spec, previous, from, output, null, null, null, maxBatch, context);
    }

    /** For training: {@code gradient} is dLoss/dOutput; both inputs get it (after the activation's derivative). */
    ShortcutLayer(ShortcutSpec spec, LayerOutput previous, LayerOutput from, LayerOutput output, LayerOutput gradient,
                  GradientSink previousSink, GradientSink fromSink, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.previous = previous;
        this.from = from;
        this.context = context;
        this.output = output;
        this.variants = new Dnnl.Primitive[maxBatch + 1];
        this.gradient = gradient;
        this.previousSink = previousSink;
        this.fromSink = fromSink;
        this.activationInput = gradient != null && ConvolutionalLayer.Training.needsActivationInput(spec.activation())
                ? new LayerOutput(spec.output(), maxBatch, CpuPrecision.FP32) : null;
        this.trainings = new Training[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        if (gradient != null) {
            training(n).forward();
            return;
        }
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
    public void backward(int n) {
        if (gradient == null) CpuLayer.super.backward(n);
        training(n).backward();
    }

    private Training training(int n) {
        Training t = trainings[n];
        if (t == null) t = trainings[n] = new Training(n);
        return t;
    }

    /** One batch size's training primitives: add, activation, and backward. */
    private final class Training {
        final Dnnl.Primitive add;
        final Dnnl.Primitive activation;
        final Dnnl.Primitive activationBackward;
        final Dnnl.Primitive toPrevious;
        final Dnnl.Primitive toFrom;

        Training(int n) {
            Dnnl.Resources r = resources;
            dnnl_memory_desc md = output.desc(r, n);
            Activation act = spec.activation();
            boolean linear = act == Activation.LINEAR;
            LayerOutput sum = linear || activationInput == null ? output : activationInput;
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            Dnnl.check(dnnl_binary_primitive_desc_create(pd, Dnnl.engine(), dnnl_binary_add, previous.desc(r, n),
                    from.desc(r, n), md, r.trainingAttr()), "shortcut layer " + spec.index());
            add = r.primitive(pd, context.scratch(), DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST)
                    .arg(DNNL_ARG_SRC_0, r.memory(previous.desc(r, n), previous.pointer()))
                    .arg(DNNL_ARG_SRC_1, r.memory(from.desc(r, n), from.pointer()))
                    .arg(DNNL_ARG_DST, r.memory(md, sum.pointer()));
            if (linear) {
                activation = null;
                activationBackward = null;
            } else {
                boolean fromInput = activationInput != null;
                int algorithm = fromInput ? Dnnl.eltwiseAlgorithm(act)
                        : act == Activation.LOGISTIC ? dnnl_eltwise_logistic_use_dst_for_bwd : dnnl_eltwise_relu_use_dst_for_bwd;
                float alpha = Dnnl.eltwiseAlpha(act);
                dnnl_primitive_desc fwd = new dnnl_primitive_desc();
                Dnnl.check(dnnl_eltwise_forward_primitive_desc_create(fwd, Dnnl.engine(), dnnl_forward_training, algorithm,
                        md, md, alpha, 0f, r.trainingAttr()), "shortcut activation layer " + spec.index());
                activation = r.primitive(fwd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST)
                        .arg(DNNL_ARG_SRC, r.memory(md, sum.pointer()))
                        .arg(DNNL_ARG_DST, r.memory(md, output.pointer()));
                dnnl_primitive_desc back = new dnnl_primitive_desc();
                Dnnl.check(dnnl_eltwise_backward_primitive_desc_create(back, Dnnl.engine(), algorithm, md, md, md, alpha,
                        0f, fwd, r.trainingAttr()), "shortcut activation backward layer " + spec.index());
                int data = fromInput ? DNNL_ARG_SRC : DNNL_ARG_DST;
                activationBackward = r.primitive(back, context.scratch(), data, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
                        .arg(data, r.memory(md, (fromInput ? activationInput : output).pointer()))
                        .arg(DNNL_ARG_DIFF_DST, r.memory(md, gradient.pointer()))
                        .arg(DNNL_ARG_DIFF_SRC, r.memory(md, gradient.pointer()));
            }
            toPrevious = previousSink == null ? null
                    : previousSink.from(r, md, gradient.pointer(), 1f, previousSink.gradient().desc(r, n), context.scratch());
            toFrom = fromSink == null ? null
                    : fromSink.from(r, md, gradient.pointer(), 1f, fromSink.gradient().desc(r, n), context.scratch());
        }

        void forward() {
            add.execute(context.stream());
            if (activation != null) activation.execute(context.stream());
        }

        void backward() {
            if (activationBackward != null) activationBackward.execute(context.stream());
            if (toPrevious != null) toPrevious.execute(context.stream());
            if (toFrom != null) toFrom.execute(context.stream());
        }
    }

    @Override
    public void close() {
        resources.close();
        if (activationInput != null) activationInput.close();
    }
}
