package io.argus.trainer.cuda;

import io.argus.detector.darknet.Activation;
import io.argus.trainer.loss.IouKind;

/** The integer codes the training kernels use: activations (kernels/common.cuh), IoU kinds (train_box_iou.cuh). */
final class KernelCodes {
    private KernelCodes() {}

    static int activation(Activation a) {
        return switch (a) {
            case LINEAR -> 0;
            case LEAKY -> 1;
            case RELU -> 2;
            case LOGISTIC -> 3;
            case MISH -> 4;
            case SWISH -> 5;
        };
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
