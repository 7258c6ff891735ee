package io.argus.detector.cpu;

import static org.bytedeco.dnnl.global.dnnl.dnnl_f32;
import static org.bytedeco.dnnl.global.dnnl.dnnl_nchw;

import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.Shape;
import java.nio.FloatBuffer;
import org.bytedeco.dnnl.global.dnnl;

/**
 * Operations of an imported graph that have no layer kind ({@link HostOpsSpec}): its inputs are brought to FP32 NCHW
 * (one oneDNN reorder each, from whatever layout and precision the network keeps), the {@link io.argus.detector.darknet.HostOps}
 * run image by image on the calling thread, and the result is reordered into the network's layout. Scratch arrays are
 * made once, so frames allocate only what the operations themselves do.
 */
final class HostOpsLayer implements CpuLayer {
    private final HostOpsSpec spec;
    private final LayerOutput[] inputs;
    private final LayerOutput output;
    private final LayerContext context;
    private final Dnnl.Resources resources = new Dnnl.Resources();
    private final NativeFloats[] inputsNchw;
    private final NativeFloats outputNchw;
    private final Dnnl.Primitive[][] bringIn;
    private final Dnnl.Primitive[] bringOut;
    private final float[][] imageInputs;
    private final float[] imageOutput;

    HostOpsLayer(HostOpsSpec spec, LayerOutput[] inputs, LayerOutput output, int maxBatch, LayerContext context) {
        this.spec = spec;
        this.inputs = inputs.clone();
        this.output = output;
        this.context = context;
        this.inputsNchw = new NativeFloats[inputs.length];
        this.imageInputs = new float[inputs.length][];
        for (int i = 0; i < inputs.length; i++) {
            inputsNchw[i] = new NativeFloats((long) maxBatch * inputs[i].shape().size());
            imageInputs[i] = new float[inputs[i].shape().size()];
        }
        this.outputNchw = new NativeFloats((long) maxBatch * spec.output().size());
        this.imageOutput = new float[spec.output().size()];
        this.bringIn = new Dnnl.Primitive[maxBatch + 1][];
        this.bringOut = new Dnnl.Primitive[maxBatch + 1];
    }

    @Override
    public LayerOutput output() { return output; }

    @Override
    public void forward(int n) {
        if (bringIn[n] == null) build(n);
        for (Dnnl.Primitive p : bringIn[n]) p.execute(context.stream());
        Dnnl.check(dnnl.dnnl_stream_wait(context.stream()), "stream_wait");
        int outSize = imageOutput.length;
        for (int image = 0; image < n; image++) {
            for (int i = 0; i < inputs.length; i++) {
                FloatBuffer b = inputsNchw[i].buffer();
                b.get(image * imageInputs[i].length, imageInputs[i]);
            }
            try {
                spec.ops().apply(imageInputs, imageOutput);
            } catch (RuntimeException e) {
                throw new IllegalStateException("layer " + spec.index() + " (" + spec.ops().describe() + "): "
                        + e.getMessage(), e);
            }
            outputNchw.buffer().put(image * outSize, imageOutput);
        }
        bringOut[n].execute(context.stream());
    }

    private void build(int n) {
        Dnnl.Primitive[] in = new Dnnl.Primitive[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            LayerOutput o = inputs[i];
            in[i] = resources.reorder(o.desc(resources, n), o.pointer(), o.scale(), nchw(o.shape(), n),
                    inputsNchw[i].pointer(), 1f, context.scratch());
        }
        bringIn[n] = in;
        bringOut[n] = resources.reorder(nchw(spec.output(), n), outputNchw.pointer(), 1f, output.desc(resources, n),
                output.pointer(), output.scale(), context.scratch());
    }

    private org.bytedeco.dnnl.dnnl_memory_desc nchw(Shape s, int n) {
        return resources.desc(new long[] {n, s.channels(), s.height(), s.width()}, dnnl_f32, dnnl_nchw);
    }

    @Override
    public void close() {
        resources.close();
        for (NativeFloats f : inputsNchw) f.close();
        outputNchw.close();
    }
}
