package io.argus.tools.trainer;

import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;
import io.argus.trainer.cuda.HeadLoss;

/**
 * The loss {@link CudaTrainBench} times the network with, in place of the YOLO loss: the mean of the squared head
 * inputs (real channels), summed over the [yolo] heads (kernels/bench/standin_loss.cu). It needs no truths, so a
 * fixed random batch exercises the whole forward and backward; the PyTorch peer (scripts/gpu/torch_train_peer.py)
 * runs the same loss. Gradient 2 x / count times the loss scale into each head's input gradient; the loss goes into
 * the box sum, so LossParts.total() is the stand-in loss.
 */
final class StandInLoss implements HeadLoss {
    /** Packaged by the trainer (not the product's kernel set) under io/argus/gpu/kernels/bench. */
    static final String FILE = "bench/standin_loss.cu";
    static final String KERNEL = "standin_loss";

    @Override
    public Pass attach(Head head) {
        TensorView x = head.input();
        TensorView dx = head.gradient();
        if (!x.packed() || !dx.packed()) {   // the kernel walks pixels of all images as one run
            throw new IllegalArgumentException("head " + head.spec().index() + ": input or gradient is not packed");
        }
        KernelLaunch launch = KernelLaunch.of(head.kernels(), FILE, KERNEL, x.type());
        launch.pointer(x.address());
        launch.pointer(dx.address());
        int pixelsSlot = launch.i64(1);
        launch.i32(x.pixelStride());
        launch.i32(x.channels());
        int countSlot = launch.f32(1f);
        int scaleSlot = launch.f32(1f);
        launch.pointer(head.lossSum());
        return (n, lossScale) -> {
            long pixels = (long) n * x.pixels();
            launch.setLong(pixelsSlot, pixels).setFloat(countSlot, (float) (1.0 / (pixels * x.channels())))
                    .setFloat(scaleSlot, lossScale)
                    .launch(KernelLaunch.grid(pixels * x.channels(), head.device()), head.stream().handle());
        };
    }
}
