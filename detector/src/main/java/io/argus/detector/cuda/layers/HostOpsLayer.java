package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;

/**
 * An imported graph's nodes that run on the host between GPU layers ({@link HostOpsSpec}: a YOLOX stem's pixel
 * slicing, YOLO11's attention): the stream is drained, each input comes down as FP32 planar (C x H x W) per image,
 * {@link io.argus.detector.darknet.HostOps} computes the output, which goes up as FP16 NHWC. Correct, not fast:
 * every forward waits for the GPU here and moves whole feature maps both ways by synchronous copies, and a network
 * holding such a layer cannot be captured as a CUDA graph (the network runs it layer by layer). Inference only.
 */
public final class HostOpsLayer implements GpuLayer {
    private final HostOpsSpec spec;
    private final TensorView[] inputs;
    private final TensorView y;

    public HostOpsLayer(HostOpsSpec spec, TensorView[] inputs, TensorView y) {
        if (!y.packed()) {
            throw new IllegalArgumentException("layer " + spec.index() + " (host): its output must own its buffer");
        }
        this.spec = spec;
        this.inputs = inputs.clone();
        this.y = y;
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void forward(int n, GpuStream stream) {
        stream.synchronize();
        short[][] in = new short[inputs.length][];
        for (int k = 0; k < inputs.length; k++) in[k] = Transfers.downloadHalves(inputs[k].base(), n * inputs[k].imageStride());
        float[][] planar = new float[inputs.length][];
        for (int k = 0; k < inputs.length; k++) planar[k] = new float[inputs[k].channels() * inputs[k].pixels()];
        float[] out = new float[y.channels() * y.pixels()];
        short[] up = new short[(int) (n * y.imageStride())];   // padded channels stay 0
        for (int b = 0; b < n; b++) {
            for (int k = 0; k < inputs.length; k++) toPlanar(in[k], b, inputs[k], planar[k]);
            spec.ops().apply(planar, out);
            int plane = y.pixels();
            long base = b * y.imageStride();
            for (int c = 0; c < y.channels(); c++) {
                for (int p = 0; p < plane; p++) {
                    up[(int) (base + (long) p * y.pixelStride() + c)] = Float.floatToFloat16(out[c * plane + p]);
                }
            }
        }
        Transfers.upload(y.base(), up);
    }

    /** Image b of an NHWC FP16 view (its channels only) as planar FP32. */
    static void toPlanar(short[] halves, int b, TensorView v, float[] out) {
        int plane = v.pixels();
        long base = b * v.imageStride() + v.channelOffset();
        for (int c = 0; c < v.channels(); c++) {
            for (int p = 0; p < plane; p++) {
                out[c * plane + p] = Float.float16ToFloat(halves[(int) (base + (long) p * v.pixelStride() + c)]);
            }
        }
    }

    @Override
    public String describe() {
        return "on the host (download, " + spec.ops().describe() + ", upload; no CUDA graph)";
    }
}
