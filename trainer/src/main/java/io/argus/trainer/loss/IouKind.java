package io.argus.trainer.loss;

import java.util.Locale;

/** The box losses of [yolo] iou_loss: Darknet's MSE on the raw outputs, or 1 - IoU, GIoU, DIoU, CIoU. */
public enum IouKind {
    MSE, IOU, GIOU, DIOU, CIOU;

    public static IouKind parse(String word) {
        try {
            return valueOf(word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("iou_loss: expected one of mse, iou, giou, diou, ciou, found " + word);
        }
    }
}
