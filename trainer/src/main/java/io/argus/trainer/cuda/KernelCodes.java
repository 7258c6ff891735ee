package io.argus.trainer.cuda;

import io.argus.detector.darknet.Activation;
import io.argus.trainer.loss.IouKind;

/** The integer codes the training kernels use: IoU kinds (train_box_iou.cuh); activations as the detector's. */
final class KernelCodes {
    private KernelCodes() {}

    static int activation(Activation a) {
        return io.argus.detector.cuda.layers.KernelCodes.activation(a);
    }

    /** The IoU kinds in the order of train_box_iou.cuh's codes (0 to 4). */
    private static final java.util.List<IouKind> IOU_CODES =
            java.util.List.of(IouKind.MSE, IouKind.IOU, IouKind.GIOU, IouKind.DIOU, IouKind.CIOU);

    static int iou(IouKind k) {
        return IOU_CODES.indexOf(k);
    }
}
