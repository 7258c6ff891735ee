package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.*;

import io.argus.detector.darknet.MaxPoolSpec;
import org.bytedeco.dnnl.dnnl_memory_desc;
import org.bytedeco.dnnl.dnnl_primitive_desc;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * [maxpool] as one oneDNN max-pooling primitive per batch size. Darknet's window starts at -padding/2 and ignores
 * taps outside the image: that is pooling with left/top padding padding/2 and whatever right/bottom padding the last
 * window needs, padded taps never winning (oneDNN's max pooling excludes padding).
 *
 * <p>Training: forward training keeps which tap won each window (oneDNN's workspace); backward (pooling backward)
 * routes each output's gradient to its winner, summing where windows overlap (stride &lt; size).
 */
final class MaxPoolLayer implements CpuLayer {
    private final MaxPoolSpec spec;
    private final LayerOutput input;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Variant[] variants;
    private final LayerOutput gradient;           // training only
    private final GradientSink inputSink;         // training: null when the input needs no gradient
    private final NativeFloats gradientScratch;

    /** For inference. */
    MaxPoolLayer(MaxPoolSpec spec, LayerOutput input, LayerOutput output, int maxBatch, LayerContext context) {
        this(spec, input, output, null, null, null, maxBatch, context);
    }

    /** For training: {@code gradient} is dLoss/dOutput; dLoss/dInput goes to {@code inputSink}. */
    MaxPoolLayer(MaxPoolSpec spec, LayerOutput input, LayerOutput output, LayerOutput gradient, GradientSink inputSink,
                 NativeFloats gradientScratch, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.input = input;
        this.context = context;
        this.output = output;
        this.gradient = gradient;
        this.inputSink = inputSink;
        this.gradientScratch = gradientScratch;
        this.variants = new Variant[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        variant(n).forward.execute(context.stream());
    }

    @Override
    public void backward(int n) {
        if (gradient == null) CpuLayer.super.backward(n);
        Variant v = variant(n);
        if (v.backward == null) return;
        v.backward.execute(context.stream());
        if (v.deliver != null) v.deliver.execute(context.stream());
    }

    /** A digest of which taps won the windows in the last training forward of {@code n} images (for tests). */
    int winnersDigest(int n) {
        Variant v = variant(n);
        Dnnl.check(dnnl_stream_wait(context.stream()), "stream_wait");
        BytePointer b = new BytePointer(v.workspace);
        b.capacity(v.workspaceBytes).limit(v.workspaceBytes);
        byte[] bytes = new byte[(int) v.workspaceBytes];
        b.get(bytes);
        return java.util.Arrays.hashCode(bytes);
    }

    private Variant variant(int n) {
        Variant v = variants[n];
        if (v == null) v = variants[n] = new Variant(n);
        return v;
    }

    private final class Variant {
        final Dnnl.Primitive forward;
        final Pointer workspace;
        final long workspaceBytes;
        final Dnnl.Primitive backward;
        final Dnnl.Primitive deliver;

        Variant(int n) {
            Dnnl.Resources r = resources;
            boolean training = gradient != null;
            var in = spec.input();
            var out = spec.output();
            long left = -spec.offset();
            long size = spec.size();
            long padBottom = Math.max(0, (out.height() - 1L) * spec.strideY() + size - in.height() - left);
            long padRight = Math.max(0, (out.width() - 1L) * spec.strideX() + size - in.width() - left);
            long[] strides = {spec.strideY(), spec.strideX()};
            long[] kernel = {size, size};
            long[] dilation = {0, 0};
            long[] padL = {left, left};
            long[] padR = {padBottom, padRight};
            dnnl_memory_desc src = input.desc(r, n);
            dnnl_memory_desc dst = output.desc(r, n);
            dnnl_primitive_desc pd = new dnnl_primitive_desc();
            Dnnl.check(dnnl_pooling_forward_primitive_desc_create(pd, Dnnl.engine(),
                    training ? dnnl_forward_training : dnnl_forward_inference, dnnl_pooling_max, src, dst, strides,
                    kernel, dilation, padL, padR, training ? r.trainingAttr() : r.attr(io.argus.detector.darknet.Activation.LINEAR)),
                    "maxpool layer " + spec.index());
            if (!training) {
                forward = r.primitive(pd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST)
                        .arg(DNNL_ARG_SRC, r.memory(src, input.pointer()))
                        .arg(DNNL_ARG_DST, r.memory(dst, output.pointer()));
                workspace = null;
                workspaceBytes = 0;
                backward = null;
                deliver = null;
                return;
            }
            forward = r.primitive(pd, context.scratch(), DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_WORKSPACE);
            dnnl_memory_desc ws = forward.query(dnnl_query_workspace_md);
            workspaceBytes = dnnl_memory_desc_get_size(ws);
            workspace = r.bytes(Math.max(1, workspaceBytes));
            forward.arg(DNNL_ARG_SRC, r.memory(src, input.pointer()))
                    .arg(DNNL_ARG_DST, r.memory(dst, output.pointer()))
                    .arg(DNNL_ARG_WORKSPACE, r.memory(ws, workspace));
            if (inputSink == null) {
                backward = null;
                deliver = null;
                return;
            }
            dnnl_primitive_desc back = new dnnl_primitive_desc();
            Dnnl.check(dnnl_pooling_backward_primitive_desc_create(back, Dnnl.engine(), dnnl_pooling_max, src, dst,
                    strides, kernel, dilation, padL, padR, pd, r.trainingAttr()), "maxpool backward layer " + spec.index());
            Pointer dx = inputSink.writable() ? inputSink.gradient().pointer() : gradientScratch.pointer();
            backward = r.primitive(back, context.scratch(), DNNL_ARG_DIFF_DST, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC)
                    .arg(DNNL_ARG_DIFF_DST, r.memory(dst, gradient.pointer()))
                    .arg(DNNL_ARG_WORKSPACE, r.memory(ws, workspace))
                    .arg(DNNL_ARG_DIFF_SRC, r.memory(src, dx));
            deliver = inputSink.writable() ? null : inputSink.from(r, src, dx, 1f, src, context.scratch());
        }
    }

    @Override
    public void close() {
        resources.close();
    }
}
