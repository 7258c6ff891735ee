package io.argus.trainer.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.gpu.KernelLaunch;

/** [maxpool] in training (kernels/train_maxpool.cu): backward gathers each input's share from the windows it won. */
final class GpuMaxPool implements GpuLayer {
    private static final String FILE = "train_maxpool.cu";

    private final MaxPoolSpec spec;
    private final GpuTrainContext ctx;
    private final Tensor y;
    private final Tensor dy;
    private final KernelLaunch forward;
    private final KernelLaunch backward;
    private final int forwardN;
    private final int backwardN;

    GpuMaxPool(MaxPoolSpec spec, Tensor x, Tensor dx, Tensor y, Tensor dy, GpuTrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.y = y;
        this.dy = dy;
        forward = ctx.kernel(FILE, "maxpool_forward");
        forward.pointer(x.address());
        forward.pointer(y.address());
        forwardN = geometry(forward, x);
        if (dx != null) {
            backward = ctx.kernel(FILE, "maxpool_backward");
            backward.pointer(x.address());
            backward.pointer(dy.address());
            backward.pointer(dx.address());
            backwardN = geometry(backward, x);
        } else {
            backward = null;
            backwardN = -1;
        }
    }

    /** The shared arguments (S, h, w, oh, ow, size, strides, offset, n); returns the slot of n. */
    private int geometry(KernelLaunch l, Tensor x) {
        l.i32(x.stride());
        l.i32(spec.input().height());
        l.i32(spec.input().width());
        l.i32(spec.output().height());
        l.i32(spec.output().width());
        l.i32(spec.size());
        l.i32(spec.strideY());
        l.i32(spec.strideX());
        l.i32(spec.offset());
        return l.i32(1);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public Tensor output() { return y; }

    @Override
    public Tensor gradient() { return dy; }

    @Override
    public void forward(int n) {
        forward.setInt(forwardN, n).launch(ctx.grid((long) n * y.pixels() * (y.stride() / 8)), ctx.stream.handle());
    }

    @Override
    public void backward(int n) {
        if (backward == null) return;
        long inputPixels = (long) spec.input().height() * spec.input().width();
        backward.setInt(backwardN, n).launch(ctx.grid(n * inputPixels * (y.stride() / 8)), ctx.stream.handle());
    }
}
