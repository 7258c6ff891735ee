package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import org.bytedeco.dnnl.dnnl_memory;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.dnnl.dnnl_stream;

/**
 * [convolutional] on the CPU: one oneDNN direct convolution (JIT AVX-512/AVX2, all cores) per batch size, over NCHW
 * buffers, with batch norm folded into the weights and bias + activation fused as a post-op, so each output element
 * is written once. Weights are reordered once into the layout the kernel prefers.
 */
final class ConvolutionalLayer implements CpuLayer {
    private final ConvolutionalSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final NativeFloats weights;   // Darknet order: [filters][c/groups][ky][kx], BN folded
    private final NativeFloats bias;
    private final dnnl_stream stream;
    private final Scratchpad scratch;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Variant[] variants;     // per batch size, built on first use
    private final java.util.List<NativeFloats> reordered = new java.util.ArrayList<>();

    /** The primitive for one batch size with its memories bound. */
    private record Variant(Dnnl.Primitive conv) {}

    ConvolutionalLayer(ConvolutionalSpec spec, ConvWeights params, LayerOutput input, LayerOutput output,
                       int maxBatch, dnnl_stream stream, Scratchpad scratch) {
        this.spec = spec;
        this.input = input;
        this.stream = stream;
        this.scratch = scratch;
        this.output = output;
        float[][] folded = params.folded();
        this.weights = new NativeFloats(folded[0].length);
        this.weights.copyFrom(folded[0]);
        this.bias = new NativeFloats(folded[1].length);
        this.bias.copyFrom(folded[1]);
        this.variants = new Variant[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        Variant v = variants[n];
        if (v == null) v = variants[n] = build(n);
        v.conv().execute(stream);
    }

    private Variant build(int n) {
        var in = spec.input();
        var out = spec.output();
        int g = spec.groups();
        long k = spec.size();
        dnnl_memory_desc src = resources.desc(new long[] {n, in.channels(), in.height(), in.width()}, dnnl_nchw);
        dnnl_memory_desc dst = resources.desc(new long[] {n, out.channels(), out.height(), out.width()}, dnnl_nchw);
        dnnl_memory_desc userWeights = g == 1
                ? resources.desc(new long[] {spec.filters(), spec.groupChannels(), k, k}, dnnl_oihw)
                : resources.desc(new long[] {g, spec.filters() / g, spec.groupChannels(), k, k}, dnnl_goihw);
        long[] wdims = g == 1 ? new long[] {spec.filters(), spec.groupChannels(), k, k}
                : new long[] {g, spec.filters() / g, spec.groupChannels(), k, k};
        dnnl_memory_desc anyWeights = resources.desc(wdims, dnnl_format_tag_any);
        dnnl_memory_desc b = resources.desc(new long[] {spec.filters()}, dnnl_x);
        long pad = spec.pad();
        // Darknet pads symmetrically; the right/bottom pad only matters up to what the last window reaches
        long padR = Math.max(0, (out.height() - 1L) * spec.strideY() + k - in.height() - pad);
        long padB = Math.max(0, (out.width() - 1L) * spec.strideX() + k - in.width() - pad);
        dnnl_primitive_desc pd = new dnnl_primitive_desc();
        Dnnl.check(dnnl_convolution_forward_primitive_desc_create(pd, Dnnl.engine(), dnnl_forward_inference,
                dnnl_convolution_direct, src, anyWeights, b, dst, new long[] {spec.strideY(), spec.strideX()},
                new long[] {0, 0}, new long[] {pad, pad}, new long[] {padR, padB},
                resources.attr(spec.activation())), "convolution layer " + spec.index());
        Dnnl.Primitive conv = resources.primitive(pd, scratch, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST);
        dnnl_memory_desc kernelWeights = conv.query(dnnl_query_weights_md);
        dnnl_memory wmem = resources.memory(userWeights, weights.pointer());
        if (dnnl_memory_desc_equal(kernelWeights, userWeights) == 0) {
            NativeFloats blocked = new NativeFloats(dnnl_memory_desc_get_size(kernelWeights) / 4);
            reordered.add(blocked);
            dnnl_memory to = resources.memory(kernelWeights, blocked.pointer());
            dnnl_primitive_desc rpd = new dnnl_primitive_desc();
            Dnnl.check(dnnl_reorder_primitive_desc_create(rpd, userWeights, Dnnl.engine(), kernelWeights,
                    Dnnl.engine(), resources.attr(io.argus.detector.darknet.Activation.LINEAR)), "weights reorder");
            Dnnl.Primitive reorder = resources.primitive(rpd, scratch, DNNL_ARG_FROM, DNNL_ARG_TO);
            reorder.arg(DNNL_ARG_FROM, wmem).arg(DNNL_ARG_TO, to).execute(stream);
            Dnnl.check(dnnl_stream_wait(stream), "stream_wait");
            wmem = to;
        }
        conv.arg(DNNL_ARG_SRC, resources.memory(src, input.pointer(n)))
                .arg(DNNL_ARG_WEIGHTS, wmem)
                .arg(DNNL_ARG_BIAS, resources.memory(b, bias.pointer()))
                .arg(DNNL_ARG_DST, resources.memory(dst, output.pointer(n)));
        return new Variant(conv);
    }

    @Override
    public void close() {
        resources.close();
        for (NativeFloats r : reordered) r.close();
        weights.close();
        bias.close();
    }
}
