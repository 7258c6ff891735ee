package io.argus.trainer.cuda;

import io.argus.detector.cuda.layers.GpuLayer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.Transfers;
import io.argus.trainer.loss.IouKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * [yolo] in training on the GPU: no forward of its own (the loss kernels read the head's raw input and apply the
 * logistic and the box decoding themselves); the loss (kernels/train_yolo_loss.cu, three launches) writes dLoss/dx
 * times the loss scale into the previous layer's gradient and adds its parts to the network's loss sums. Its targets
 * live in the network's per-pass scratch, cleared before each pass.
 */
final class GpuYoloLoss implements GpuLayer {
    private static final String FILE = "train_yolo_loss.cu";

    static final int MAX_ANCHORS = 16;
    /** Bytes of the kernels' YoloHead struct: 12 ints, 10 floats, 2 x 16 anchor floats, 16 mask ints. */
    static final int HEAD_BYTES = (12 + 10 + 2 * MAX_ANCHORS + MAX_ANCHORS) * 4;

    private final YoloSpec spec;
    private final GpuTrainContext ctx;
    private final long cellsPerImage;
    private final KernelLaunch predictions;
    private final KernelLaunch truths;
    private final KernelLaunch finish;
    private final int[] predictionSlots;
    private final int[] truthSlots;
    private final int finishN;
    private final int finishScale;

    /**
     * @param head    device memory of HEAD_BYTES for this head's constants (written here)
     * @param scratch per-pass scratch of {@link #scratchBytes} bytes (cleared before each pass)
     * @param loss    the network's 5 loss sums (doubles)
     */
    GpuYoloLoss(YoloSpec spec, TensorView x, TensorView dx, int netW, int netH, int maxBatch, long head, long scratch,
                long loss, GpuTrainContext ctx) {
        if (spec.anchors().length / 2 > MAX_ANCHORS) {
            throw new IllegalArgumentException("layer " + spec.index() + " ([yolo], line " + spec.line() + "): "
                    + spec.anchors().length / 2 + " anchors, the CUDA trainer takes at most " + MAX_ANCHORS);
        }
        if (dx == null) {
            throw new IllegalArgumentException("layer " + spec.index() + " ([yolo], line " + spec.line()
                    + ") reads the network input: nothing to train");
        }
        this.spec = spec;
        this.ctx = ctx;
        this.cellsPerImage = (long) spec.output().width() * spec.output().height();
        Transfers.upload(head, headBytes(spec, x.pixelStride(), netW, netH));
        long anchorsCells = (long) maxBatch * spec.anchorsPerCell() * cellsPerImage;
        long objTarget = scratch;
        long objWeight = objTarget + 4 * anchorsCells;
        long classBits = objWeight + 4 * anchorsCells;
        long boxGrad = classBits + 4 * anchorsCells * words(spec);
        predictions = ctx.kernel(FILE, "yolo_assign_predictions");
        predictionSlots = assignArgs(predictions, x, head, objTarget, objWeight, classBits, boxGrad, loss);
        truths = ctx.kernel(FILE, "yolo_assign_truths");
        truthSlots = assignArgs(truths, x, head, objTarget, objWeight, classBits, boxGrad, loss);
        finish = ctx.kernel(FILE, "yolo_finish");
        finish.pointer(x.address());
        finish.pointer(dx.address());
        finish.pointer(head);
        finishN = finish.i32(1);
        finish.pointer(objTarget);
        finish.pointer(objWeight);
        finish.pointer(classBits);
        finish.pointer(boxGrad);
        finishScale = finish.f32(1f);
        finish.pointer(loss);
    }

    /** Slots of {truths, counts, maxTruths, n}. */
    private static int[] assignArgs(KernelLaunch l, TensorView x, long head, long objTarget, long objWeight, long classBits,
                                    long boxGrad, long loss) {
        l.pointer(x.address());
        l.pointer(head);
        int t = l.pointer(0);
        int c = l.pointer(0);
        int m = l.i32(0);
        int n = l.i32(0);
        l.pointer(objTarget);
        l.pointer(objWeight);
        l.pointer(classBits);
        l.pointer(boxGrad);
        l.pointer(loss);
        return new int[] {t, c, m, n};
    }

    static int words(YoloSpec spec) { return (spec.classes() + 31) / 32; }

    /** Per-pass scratch of one head for maxBatch images. */
    static long scratchBytes(YoloSpec spec, int maxBatch) {
        long ac = (long) maxBatch * spec.anchorsPerCell() * spec.output().width() * spec.output().height();
        return 4 * ac * (2 + words(spec) + 4);
    }

    /** The YoloHead struct of kernels/train_yolo_loss.cu, little-endian. */
    static byte[] headBytes(YoloSpec spec, int stride, int netW, int netH) {
        var t = spec.training();
        ByteBuffer b = ByteBuffer.allocate(HEAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(spec.output().width()).putInt(spec.output().height()).putInt(spec.anchorsPerCell())
                .putInt(spec.classes()).putInt(stride).putInt(spec.anchors().length / 2).putInt(netW).putInt(netH)
                .putInt(spec.newCoords() ? 1 : 0).putInt(KernelCodes.iou(IouKind.parse(t.iouLoss())))
                .putInt(t.objectnessSmooth() ? 1 : 0).putInt(words(spec));
        b.putFloat(spec.scaleXY()).putFloat(t.ignoreThresh()).putFloat(t.truthThresh()).putFloat(t.iouThresh())
                .putFloat(t.iouNormalizer()).putFloat(t.clsNormalizer()).putFloat(t.objNormalizer())
                .putFloat(t.maxDelta()).putFloat(t.labelSmoothEps()).putFloat(0f);
        for (int i = 0; i < 2 * MAX_ANCHORS; i++) b.putFloat(i < spec.anchors().length ? spec.anchors()[i] : 0f);
        for (int i = 0; i < MAX_ANCHORS; i++) b.putInt(i < spec.mask().length ? spec.mask()[i] : 0);
        return b.array();
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return null; }

    @Override
    public void forward(int n, GpuStream stream) {}

    /** Enqueues the loss of the first n images against the uploaded truths. */
    void loss(int n, long truthsAddress, long countsAddress, int maxTruths, float lossScale) {
        long anchorsCells = n * spec.anchorsPerCell() * cellsPerImage;
        set(predictions, predictionSlots, truthsAddress, countsAddress, maxTruths, n);
        set(truths, truthSlots, truthsAddress, countsAddress, maxTruths, n);
        predictions.launch(ctx.grid(anchorsCells), ctx.stream.handle());
        truths.launch(ctx.grid((long) n * maxTruths), ctx.stream.handle());
        finish.setInt(finishN, n).setFloat(finishScale, lossScale).launch(ctx.grid(anchorsCells), ctx.stream.handle());
    }

    private static void set(KernelLaunch l, int[] s, long truths, long counts, int maxTruths, int n) {
        l.setLong(s[0], truths).setLong(s[1], counts).setInt(s[2], maxTruths).setInt(s[3], n);
    }

    @Override
    public void backward(int n, GpuStream stream) {}
}
