package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_nchw;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.YoloSpec;
import java.nio.FloatBuffer;

/**
 * [yolo] forward as Darknet: logistic on x, y, objectness and classes (not with new_coords, where the previous
 * convolution already applied it), then x, y scaled by scale_x_y around 0.5. w, h stay raw. The head is first
 * reordered into Darknet's layout in FP32 (NCHW: [anchor][entry][y][x]), where the decoder reads it.
 *
 * <p>Training: the head's input is kept in Darknet's layout too (the loss reads both); the loss (the trainer's) writes
 * dLoss/dInput into {@link #lossGradient()} in that layout, and backward moves it into the previous layer's gradient.
 */
final class YoloLayer implements CpuLayer {
    private final YoloSpec spec;
    private final LayerOutput input;
    private final NativeFloats head;         // maxBatch x the head, NCHW FP32
    private final NativeFloats headInput;    // training: the head before the activation, NCHW FP32
    private final NativeFloats lossGradient; // training: dLoss/dInput, NCHW FP32
    private final GradientSink inputSink;    // training: null when the input needs no gradient
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final Dnnl.Primitive[] variants;
    private final Dnnl.Primitive[] backwards;

    /** For inference. */
    YoloLayer(YoloSpec spec, LayerOutput input, int maxBatch, LayerContext context) {
        this(spec, input, false, null, maxBatch, context);
    }

    /** For training ({@code training} true): the loss gradient goes to {@code inputSink}. */
    YoloLayer(YoloSpec spec, LayerOutput input, boolean training, GradientSink inputSink, int maxBatch,
              LayerContext context) {
        this.spec = spec;
        this.input = input;
        this.context = context;
        long size = (long) maxBatch * spec.output().size();
        this.head = new NativeFloats(size);
        this.headInput = training ? new NativeFloats(size) : null;
        this.lossGradient = training ? new NativeFloats(size) : null;
        this.inputSink = inputSink;
        this.variants = new Dnnl.Primitive[maxBatch + 1];
        this.backwards = new Dnnl.Primitive[maxBatch + 1];
    }

    /** [yolo] outputs are read by the decoder, never by another layer. */
    @Override
    public LayerOutput output() { return null; }

    /** Image i's head starts at i x the head's size. */
    FloatBuffer head() { return head.buffer(); }

    /** Training: the head's input of the last forward, NCHW; image i at i x the head's size. */
    FloatBuffer headInput() { return headInput.buffer(); }

    /** Training: where the loss writes dLoss/dInput (NCHW) before {@link #backward}. */
    FloatBuffer lossGradient() { return lossGradient.buffer(); }

    @Override
    public void forward(int n) {
        Dnnl.Primitive toNchw = variants[n];
        if (toNchw == null) {
            toNchw = variants[n] = resources.reorder(input.desc(resources, n), input.pointer(), input.scale(), nchw(n),
                    (headInput != null ? headInput : head).pointer(), 1f, context.scratch());
        }
        toNchw.execute(context.stream());
        Dnnl.check(org.bytedeco.dnnl.global.dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
        FloatBuffer out = head.buffer();
        if (headInput != null) out.put(0, headInput.buffer(), 0, n * spec.output().size());
        int plane = spec.output().plane();
        int entries = spec.entries();
        float scale = spec.scaleXY();
        float shift = -0.5f * (scale - 1);
        for (int b = 0; b < n; b++) {
            for (int a = 0; a < spec.anchorsPerCell(); a++) {
                int base = b * spec.output().size() + a * entries * plane;
                if (!spec.newCoords()) {
                    for (int i = 0; i < 2 * plane; i++) out.put(base + i, Activation.logistic(out.get(base + i)));
                    int obj = base + 4 * plane;
                    for (int i = 0; i < (1 + spec.classes()) * plane; i++) {
                        out.put(obj + i, Activation.logistic(out.get(obj + i)));
                    }
                }
                if (scale != 1f) {
                    for (int i = 0; i < 2 * plane; i++) out.put(base + i, out.get(base + i) * scale + shift);
                }
            }
        }
    }

    private org.bytedeco.dnnl.dnnl_memory_desc nchw(int n) {
        var s = spec.output();
        return resources.desc(new long[] {n, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw);
    }

    @Override
    public void backward(int n) {
        if (lossGradient == null) CpuLayer.super.backward(n);
        if (inputSink == null) return;
        Dnnl.Primitive p = backwards[n];
        if (p == null) {
            p = backwards[n] = inputSink.from(resources, nchw(n), lossGradient.pointer(), 1f,
                    inputSink.gradient().desc(resources, n), context.scratch());
        }
        p.execute(context.stream());
    }

    @Override
    public void close() {
        resources.close();
        head.close();
        if (headInput != null) headInput.close();
        if (lossGradient != null) lossGradient.close();
    }
}
