package io.argus.trainer.cuda;

import io.argus.detector.darknet.NetworkSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The parity harness's tables (in the spirit of ggml's test-backend-ops): every layer kind x its options as one
 * small network each, the batch sizes, the precisions and one table of tolerances. A case is the layer under test
 * between a stem convolution (its input, {@code channels} wide, so unaligned channel counts are covered) and a 1x1
 * head convolution + [yolo] (whose loss seeds the gradients), so the same network runs on the CPU reference
 * (trainer/nn) and through GpuTrainNetwork, which runs the shared layer classes (io.argus.detector.cuda.layers) and
 * the trainer's convolution. Lives in io.argus.trainer.cuda for the package-private backend accessors.
 */
final class LayerParityCases {
    private LayerParityCases() {}

    static final int[] BATCHES = {1, 7, 32, 64};
    static final Precision[] PRECISIONS = {Precision.MIXED, Precision.FP32};
    static final int SIZE = 16;

    /** One layer under test: kind, options in words, the cfg sections, the index of the layer under test. */
    record Case(String kind, String options, int channels, String sections, int layer, String yoloOptions) {
        Case(String kind, String options, int channels, String sections, int layer) {
            this(kind, options, channels, sections, layer, "");
        }

        String cfg() {
            return "[net]\nwidth=" + SIZE + "\nheight=" + SIZE + "\nchannels=3\n"
                    + "[convolutional]\nbatch_normalize=1\nfilters=" + channels + "\nsize=3\nstride=1\npad=1\n"
                    + "activation=leaky\n" + sections
                    + "[convolutional]\nfilters=21\nsize=1\nstride=1\npad=0\nactivation=linear\n"
                    + "[yolo]\nmask=0,1,2\n" + yoloOptions + GpuLayerGradientTest.ANCHORS;
        }

        NetworkSpec spec() { return GpuTests.spec(kind + "-" + options.replace(' ', '_'), cfg()); }

        @Override
        public String toString() { return kind + " " + options; }
    }

    /** Tolerances, relative L2 (max over the images compared): forward (outputs), backward (input gradients). */
    record Tolerance(double forward, double backward) {}

    /**
     * One row per layer kind and precision. FP32: GPU IEEE FP32 against the CPU in FP32. Mixed: forward against
     * the CPU's FP16 emulation, backward against the CPU in FP32 with twice the emulation's own error on top
     * (batch-norm backward cancels in FP16 on either path; see GpuLayerGradientTest).
     */
    static final Map<String, Map<Precision, Tolerance>> TOLERANCES = Map.of(
            "convolutional", Map.of(Precision.FP32, new Tolerance(1e-4, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)),
            "maxpool", Map.of(Precision.FP32, new Tolerance(1e-5, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)),
            "upsample", Map.of(Precision.FP32, new Tolerance(1e-5, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)),
            "route", Map.of(Precision.FP32, new Tolerance(1e-5, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)),
            "shortcut", Map.of(Precision.FP32, new Tolerance(1e-4, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)),
            // [yolo]: forward = the loss parts, backward = the head gradient the loss writes
            "yolo", Map.of(Precision.FP32, new Tolerance(1e-4, 2e-3), Precision.MIXED, new Tolerance(2e-2, 5e-2)));

    /**
     * In a whole network, FP32 gradients pass through every later layer's backward, each summing in another order
     * than the CPU, and start from the YOLO loss, whose assignment of predictions to truths is discontinuous (a
     * prediction a rounding away from ignore_thresh counts on one side and not on the other): the backward tolerance
     * is {@link #NETWORK_FP32_BACKWARD}. yolov4-tiny at 128x128 on the H100: worst 5.4e-3 in one run, 1.16e-2 in the
     * next (cuDNN's backward engines do not fix their summation order), while every layer alone holds 2e-3. Mixed
     * precision already allows twice the FP16 emulation's own error.
     */
    static final double NETWORK_FP32_BACKWARD = 3e-2;
    /** Copying layers (route, upsample) carry their inputs' accumulated FP32 error: 2.2e-5 seen on the H100. */
    static final double NETWORK_FP32_FORWARD = 1e-4;

    static Tolerance inNetwork(Tolerance layer, Precision p) {
        return p == Precision.FP32 ? new Tolerance(Math.max(layer.forward(), NETWORK_FP32_FORWARD),
                Math.max(layer.backward(), NETWORK_FP32_BACKWARD)) : layer;
    }

    static Tolerance tolerance(String kind, Precision p) {
        Map<Precision, Tolerance> row = TOLERANCES.get(kind);
        if (row == null || row.get(p) == null) throw new IllegalStateException("no tolerance for " + kind + " " + p);
        return row.get(p);
    }

    private static String conv(int filters, int size, int stride, boolean bn, String act) {
        return "[convolutional]\n" + (bn ? "batch_normalize=1\n" : "") + "filters=" + filters + "\nsize=" + size
                + "\nstride=" + stride + "\npad=" + (size / 2 > 0 ? 1 : 0) + "\nactivation=" + act + "\n";
    }

    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        // [convolutional] (the adapter point for the convolution rewrite: only these sections name its options)
        for (String act : new String[] {"leaky", "linear", "mish", "swish", "logistic", "relu"}) {
            out.add(new Case("convolutional", "3x3 s1 bn " + act, 16, conv(16, 3, 1, true, act), 1));
        }
        out.add(new Case("convolutional", "3x3 s2 bn leaky", 16, conv(16, 3, 2, true, "leaky"), 1));
        out.add(new Case("convolutional", "1x1 s1 no-bn leaky", 16, conv(24, 1, 1, false, "leaky"), 1));
        out.add(new Case("convolutional", "3x3 s1 no-bn linear unaligned", 13, conv(11, 3, 1, false, "linear"), 1));
        out.add(new Case("convolutional", "3x3 s2 no-bn mish", 16, conv(16, 3, 2, false, "mish"), 1));
        out.add(new Case("convolutional", "3x3 groups 2 bn leaky", 16,
                "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\ngroups=2\nactivation=leaky\n", 1));
        // [maxpool]
        for (int[] m : new int[][] {{2, 2}, {2, 1}, {3, 2}, {3, 1}, {5, 1}}) {
            out.add(new Case("maxpool", "size " + m[0] + " stride " + m[1], 16,
                    "[maxpool]\nsize=" + m[0] + "\nstride=" + m[1] + "\n", 1));
        }
        out.add(new Case("maxpool", "size 2 stride 2 unaligned", 13, "[maxpool]\nsize=2\nstride=2\n", 1));
        out.add(new Case("maxpool", "size 3 stride 2 padding 0", 16, "[maxpool]\nsize=3\nstride=2\npadding=0\n", 1));
        // [upsample]
        out.add(new Case("upsample", "stride 2", 16, "[upsample]\nstride=2\n", 1));
        out.add(new Case("upsample", "stride 2 unaligned", 13, "[upsample]\nstride=2\n", 1));
        out.add(new Case("upsample", "stride 3 scale 0.5", 16, "[upsample]\nstride=3\nscale=0.5\n", 1));
        // [route]
        out.add(new Case("route", "concat 2", 16, conv(16, 1, 1, false, "leaky") + "[route]\nlayers=-1,-2\n", 2));
        out.add(new Case("route", "concat 2 unaligned", 13, conv(16, 1, 1, false, "leaky") + "[route]\nlayers=-1,-2\n", 2));
        out.add(new Case("route", "concat 3", 16, conv(8, 1, 1, false, "leaky") + conv(16, 3, 1, false, "leaky")
                + "[route]\nlayers=-1,-2,-3\n", 3));
        out.add(new Case("route", "groups 2 id 1", 16, "[route]\nlayers=-1\ngroups=2\ngroup_id=1\n", 1));
        out.add(new Case("route", "groups 2 id 0 unaligned", 24, "[route]\nlayers=-1\ngroups=2\ngroup_id=0\n", 1));
        // [shortcut]
        out.add(new Case("shortcut", "from -2 linear", 16, conv(16, 3, 1, false, "leaky")
                + "[shortcut]\nfrom=-2\nactivation=linear\n", 2));
        out.add(new Case("shortcut", "from -2 leaky", 16, conv(16, 3, 1, false, "leaky")
                + "[shortcut]\nfrom=-2\nactivation=leaky\n", 2));
        out.add(new Case("shortcut", "from -2 logistic unaligned", 13, conv(13, 3, 1, false, "leaky")
                + "[shortcut]\nfrom=-2\nactivation=logistic\n", 2));
        out.add(new Case("shortcut", "from -1 (itself)", 16, "[shortcut]\nfrom=-1\nactivation=linear\n", 1));
        // [yolo]: the layer under test is the head (index 2), its forward the loss, its backward the head gradient
        for (String yolo : new String[] {"mse", "ciou", "giou"}) {
            out.add(new Case("yolo", "iou_loss " + yolo, 16, "", 2, "iou_loss=" + yolo + "\n"));
        }
        out.add(new Case("yolo", "scale_x_y 1.05 iou_thresh 0.2", 16, "", 2, "scale_x_y=1.05\niou_thresh=0.2\n"));
        return out;
    }
}
