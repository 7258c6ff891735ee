package io.argus.tools.detector;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.YoloSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What the roofline allows a network's forward on a GPU: per layer, its arithmetic at the GPU's peak and its memory
 * traffic at the GPU's bandwidth, whichever takes longer, summed over the layers (each layer waits for the one before).
 * Traffic is what the layer must read and write once: a convolution its input, weights and output (batch
 * normalization, bias and activation fused, as our CUDA convolutions run them), pooling, upsampling and shortcuts
 * their inputs and output, a [yolo] head its input; a [route] nothing (our CUDA network lays routes out in place). Real
 * channels, {@code bytesPerValue} per value (2 for FP16). A bound, not a model of the kernels: tiles, caches and
 * launches only add to it.
 */
public final class Roofline {
    private Roofline() {}

    /** One layer: its FLOPs and bytes for the whole batch and the time each takes at the peak (ms). */
    public record Layer(int index, String what, double flops, double bytes, double computeMs, double memoryMs) {
        public double boundMs() { return Math.max(computeMs, memoryMs); }

        public boolean memoryBound() { return memoryMs > computeMs; }
    }

    /** Every layer's bound and the totals for {@code batch} images. */
    public record Result(List<Layer> layers, int batch, double peakTflops, double bandwidthTbs) {
        public double flops() { return layers.stream().mapToDouble(Layer::flops).sum(); }

        public double bytes() { return layers.stream().mapToDouble(Layer::bytes).sum(); }

        /** The sum of the layers' bounds, ms per batch. */
        public double boundMs() { return layers.stream().mapToDouble(Layer::boundMs).sum(); }

        /** The whole batch's arithmetic at the peak, ms (the bound if no layer were memory-bound). */
        public double computeMs() { return flops() / (peakTflops * 1e9); }

        /** The whole batch's traffic at the bandwidth, ms. */
        public double memoryMs() { return bytes() / (bandwidthTbs * 1e9); }

        public double imagesPerSecond() { return batch * 1000.0 / boundMs(); }
    }

    /**
     * The roofline of {@code spec}'s forward for {@code batch} images at {@code peakTflops} (dense, the storage
     * precision's tensor-core peak) and {@code bandwidthTbs} (memory, TB/s).
     */
    public static Result of(NetworkSpec spec, int batch, double peakTflops, double bandwidthTbs, int bytesPerValue) {
        if (batch < 1) throw new IllegalArgumentException("batch: expected at least 1, found " + batch);
        if (!(peakTflops > 0) || !(bandwidthTbs > 0)) {
            throw new IllegalArgumentException("peak " + peakTflops + " TFLOP/s and bandwidth " + bandwidthTbs
                    + " TB/s: expected both above 0");
        }
        if (bytesPerValue < 1) throw new IllegalArgumentException("bytes per value: expected at least 1");
        List<Layer> out = new ArrayList<>();
        for (LayerSpec l : spec.layers()) {
            double flops = 0;
            double values;
            switch (l) {
                case ConvolutionalSpec c -> {
                    flops = (double) batch * c.flops();
                    values = (double) batch * (c.input().size() + c.output().size()) + c.weightCount();
                }
                case RouteSpec r -> values = 0;
                case YoloSpec y -> values = (double) batch * inputValues(spec, l);
                default -> values = (double) batch * (inputValues(spec, l) + l.output().size());
            }
            double bytes = values * bytesPerValue;
            out.add(new Layer(l.index(), l.kind(), flops, bytes, flops / (peakTflops * 1e9), bytes / (bandwidthTbs * 1e9)));
        }
        return new Result(out, batch, peakTflops, bandwidthTbs);
    }

    private static long inputValues(NetworkSpec spec, LayerSpec l) {
        long v = 0;
        for (int from : l.inputs()) v += from < 0 ? spec.inputShape().size() : spec.layers().get(from).output().size();
        return v;
    }
}
