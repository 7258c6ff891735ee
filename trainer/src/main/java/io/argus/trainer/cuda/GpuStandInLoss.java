package io.argus.trainer.cuda;

import io.argus.gpu.TensorView;
import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.KernelLaunch;

/**
 * The stand-in loss of {@code argus bench train} on one head (kernels/train_standin_loss.cu): mean(x^2) over the
 * head's raw input (real channels), gradient 2 x / count times the loss scale into the previous layer's gradient;
 * the loss adds into loss sum 0 (as "box", so LossParts.total() is the stand-in loss).
 */
final class GpuStandInLoss {
    private final GpuTrainContext ctx;
    private final TensorView x;
    private final KernelLaunch launch;
    private final int pixelsSlot;
    private final int countSlot;
    private final int scaleSlot;

    GpuStandInLoss(YoloSpec spec, TensorView x, TensorView dx, long loss, GpuTrainContext ctx) {
        this.ctx = ctx;
        this.x = x;
        launch = ctx.kernel("train_standin_loss.cu", "standin_loss");
        launch.pointer(x.address());
        launch.pointer(dx.address());
        pixelsSlot = launch.i64(1);
        launch.i32(x.pixelStride());
        launch.i32(x.channels());
        countSlot = launch.f32(1f);
        scaleSlot = launch.f32(1f);
        launch.pointer(loss);
    }

    void loss(int n, float lossScale) {
        long pixels = (long) n * x.pixels();
        launch.setLong(pixelsSlot, pixels).setFloat(countSlot, (float) (1.0 / (pixels * x.channels())))
                .setFloat(scaleSlot, lossScale).launch(ctx.grid(pixels * x.channels()), ctx.stream.handle());
    }
}
