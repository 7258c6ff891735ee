package io.argus.detector.post;

import io.argus.detector.darknet.YoloSpec;

/**
 * Darknet's get_yolo_box, the one box decode of the CPU: inference's {@link YoloDecoder} and the trainer's YoloLoss
 * both call it, so a detection and the box the loss scores are the same box. (The GPU kernels, yolo_decode.cu and
 * train_yolo_loss.cu, follow it and are tested against it.)
 */
public final class YoloBox {
    private YoloBox() {}

    /**
     * {x, y, w, h} relative to the network input of anchor slot {@code a} (of the head's mask) at cell
     * ({@code col}, {@code row}): x, y from the activated (logistic, scale_x_y) outputs; w, h from the raw ones,
     * exp(t) x anchor, or with new_coords (t x 2)^2 x anchor.
     */
    public static float[] decode(YoloSpec head, int a, int col, int row, float x, float y, float tw, float th,
                                 int netW, int netH) {
        float aw = head.anchorWidth(a);
        float ah = head.anchorHeight(a);
        float w;
        float h;
        if (head.newCoords()) {
            w = tw * tw * 4 * aw / netW;
            h = th * th * 4 * ah / netH;
        } else {
            w = (float) Math.exp(tw) * aw / netW;
            h = (float) Math.exp(th) * ah / netH;
        }
        return new float[] {(col + x) / head.output().width(), (row + y) / head.output().height(), w, h};
    }
}
