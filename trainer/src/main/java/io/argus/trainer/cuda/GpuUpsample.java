package io.argus.trainer.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.gpu.KernelLaunch;

/** [upsample] in training (kernels/train_upsample.cu): nearest neighbour times scale; backward sums the blocks. */
final class GpuUpsample implements GpuLayer {
    private static final String FILE = "train_upsample.cu";

    private final UpsampleSpec spec;
    private final GpuTrainContext ctx;
    private final Tensor y;
    private final Tensor dy;
    private final KernelLaunch forward;
    private final KernelLaunch backward;
    private final int forwardN;
    private final int backwardN;

    GpuUpsample(UpsampleSpec spec, Tensor x, Tensor dx, Tensor y, Tensor dy, GpuTrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.y = y;
        this.dy = dy;
        forward = ctx.kernel(FILE, "upsample_forward");
        forward.pointer(x.address());
        forward.pointer(y.address());
        forwardN = geometry(forward, x);
        if (dx != null) {
            backward = ctx.kernel(FILE, "upsample_backward");
            backward.pointer(dy.address());
            backward.pointer(dx.address());
            backwardN = geometry(backward, x);
        } else {
            backward = null;
            backwardN = -1;
        }
    }

    private int geometry(KernelLaunch l, Tensor x) {
        l.i32(x.stride());
        l.i32(spec.input().height());
        l.i32(spec.input().width());
        l.i32(spec.stride());
        l.f32(spec.scale());
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
