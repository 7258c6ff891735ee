package io.argus.trainer.nn;

import io.argus.detector.cpu.NativeFloats;
import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.YoloSpec;
import io.argus.trainer.loss.LossParts;
import io.argus.trainer.loss.Truth;
import io.argus.trainer.loss.YoloLoss;
import java.nio.FloatBuffer;
import java.util.List;

/**
 * [yolo] in training: the same activation as inference (logistic on x, y, objectness and classes unless new_coords,
 * then scale_x_y on x, y), then {@link YoloLoss} per image, whose gradient by the head's input backward hands to
 * the previous layer.
 */
final class YoloTrainLayer implements TrainLayer {
    private final YoloSpec spec;
    private final TrainContext ctx;
    private final NativeFloats input;
    private final NativeFloats inputGradient;
    private final NativeFloats output;
    private final NativeFloats lossGradient;
    private final YoloLoss loss;

    YoloTrainLayer(YoloSpec spec, NativeFloats input, NativeFloats inputGradient, int maxBatch, int netW, int netH,
                   TrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.input = input;
        this.inputGradient = inputGradient;
        this.output = new NativeFloats((long) maxBatch * spec.output().size());
        this.lossGradient = new NativeFloats((long) maxBatch * spec.output().size());
        this.loss = new YoloLoss(spec, netW, netH);
    }

    @Override
    public YoloSpec spec() { return spec; }

    @Override
    public NativeFloats output() { return output; }

    @Override
    public NativeFloats gradient() { return null; }

    /** dLoss/dInput of the last {@link #computeLoss}, times the loss scale. */
    NativeFloats lossGradient() { return lossGradient; }

    @Override
    public void forward(int n) {
        int size = spec.output().size();
        int plane = spec.output().plane();
        int entries = spec.entries();
        float scale = spec.scaleXY();
        float shift = -0.5f * (scale - 1);
        ctx.workers().forRange(n, (w, from, to) -> {
            FloatBuffer in = input.buffer();
            FloatBuffer out = output.buffer();
            out.put(from * size, in, from * size, (to - from) * size);
            for (int b = from; b < to; b++) {
                for (int a = 0; a < spec.anchorsPerCell(); a++) {
                    int base = b * size + a * entries * plane;
                    if (!spec.newCoords()) {
                        for (int i = base; i < base + 2 * plane; i++) out.put(i, Activation.logistic(out.get(i)));
                        int obj = base + 4 * plane;
                        for (int i = obj; i < obj + (1 + spec.classes()) * plane; i++) {
                            out.put(i, Activation.logistic(out.get(i)));
                        }
                    }
                    if (scale != 1f) {
                        for (int i = base; i < base + 2 * plane; i++) out.put(i, out.get(i) * scale + shift);
                    }
                }
            }
        });
    }

    /** The loss of the first n images against their truths; the gradient is kept for {@link #backward}. */
    LossParts computeLoss(int n, List<List<Truth>> truths, float lossScale) {
        int size = spec.output().size();
        LossParts[] parts = new LossParts[n];
        ctx.workers().forRange(n, (w, from, to) -> {
            for (int b = from; b < to; b++) {
                parts[b] = loss.image(output.buffer(), input.buffer(), b * size, truths.get(b), lossGradient.buffer(),
                        lossScale);
            }
        });
        LossParts sum = LossParts.ZERO;
        for (LossParts p : parts) sum = sum.plus(p);
        return sum;
    }

    @Override
    public void backward(int n) {
        if (inputGradient == null) return;
        int size = spec.output().size();
        ctx.workers().forRange(n, (w, from, to) -> {
            FloatBuffer g = lossGradient.buffer();
            FloatBuffer dx = inputGradient.buffer();
            for (int i = from * size; i < to * size; i++) dx.put(i, dx.get(i) + g.get(i));
        });
    }

    @Override
    public void close() {
        output.close();
        lossGradient.close();
    }
}
