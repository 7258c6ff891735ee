package io.argus.trainer.cuda;

import io.argus.detector.darknet.Activation;
import io.argus.trainer.loss.IouKind;

/** The integer codes the training kernels use: IoU kinds (train_box_iou.cuh); activations as the detector's. */
final class KernelCodes {
    private KernelCodes() {}

    static int activation(Activation a) {
        return io.argus.detector.cuda.KernelCodes.activation(a);
    }

    static int iou(IouKind k) {
        return switch (k) {
            case MSE -> 0;
            case IOU -> 1;
            case GIOU -> 2;
            case DIOU -> 3;
            case CIOU -> 4;
        };
    }
}
