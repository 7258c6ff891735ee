package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.MaxPoolSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;

/**
 * [maxpool] as one oneDNN max-pooling primitive per batch size. Darknet's window starts at -padding/2 and ignores
 * taps outside the image: that is pooling with left/top padding padding/2 and whatever right/bottom padding the last
 * window needs, padded taps never winning (oneDNN's max pooling excludes padding).
 */
final class MaxPoolLayer implements CpuLayer {
    private final MaxPoolSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;

    MaxPoolLayer(MaxPoolSpec spec, LayerOutput input, LayerOutput output, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.input = input;
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
        var in = spec.input();
        var out = spec.output();
        long left = -spec.offset();
        long size = spec.size();
        long padBottom = Math.max(0, (out.height() - 1L) * spec.strideY() + size - in.height() - left);
        long padRight = Math.max(0, (out.width() - 1L) * spec.strideX() + size - in.width() - left);
        dnnl_memory_desc src = input.desc(resources, n);
        dnnl_memory_desc dst = output.desc(resources, n);
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_pooling_forward_primitive_desc_create(pd, Dnnl.engine(), dnnl_forward_inference,
                dnnl_pooling_max, src, dst, new long[] {spec.strideY(), spec.strideX()}, new long[] {size, size},
                new long[] {0, 0}, new long[] {left, left}, new long[] {padBottom, padRight},
                resources.attr(io.argus.detector.darknet.Activation.LINEAR)),
                "maxpool layer " + spec.index());
        return resources.primitive(pd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST)
                .arg(DNNL_ARG_SRC, resources.memory(src, input.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(dst, output.pointer()));
    }

    @Override
    public void close() {
        resources.close();
    }
}
