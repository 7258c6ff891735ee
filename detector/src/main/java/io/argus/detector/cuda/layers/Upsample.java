package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [upsample] (kernels/upsample.cu): nearest neighbour times scale. Stride 2 reads each input vector once and writes
 * its 2x2 block; other strides one output each. Backward (training) sums each block of the gradient.
 */
public final class Upsample implements GpuLayer {
    private static final String FILE = "upsample.cu";

    private final UpsampleSpec spec;
    private final TensorView y;
    private final TensorView dy;
    private final GpuDevice device;
    private final int lanes;
    private final boolean vector;
    private final boolean twice;
    private final KernelLaunch forward;
    private final int forwardN;
    private final KernelLaunch backward;
    private final int backwardN;

    /** Inference: forward only. */
    public Upsample(UpsampleSpec spec, TensorView x, TensorView y, DeviceContext ctx) {
        this(spec, x, null, y, null, ctx);
    }

    /** Training: dx may be null (the network input has no gradient), then backward does nothing. */
    public Upsample(UpsampleSpec spec, TensorView x, TensorView dx, TensorView y, TensorView dy, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.dy = dy;
        this.device = ctx.device();
        this.lanes = Lanes.of(x, y, dx, dy);
        this.vector = Lanes.vector(lanes, x, y);
        this.twice = vector && spec.stride() == 2;
        forward = twice ? KernelLaunch.of(ctx.kernels(), FILE, "upsample2x_forward8", y.type())
                : KernelLaunch.of(ctx.kernels(), FILE, vector ? "upsample_forward8" : "upsample_forward1", y.type());
        forward.view(x);
        forward.view(y);
        forwardN = geometry(forward);
        if (dx != null && dy != null) {
            if (!Lanes.vector(lanes, dx, dy)) {
                throw new IllegalArgumentException("layer " + spec.index() + " (upsample): backward needs whole "
                        + "8-channel groups, got " + lanes + " channels");
            }
            backward = KernelLaunch.of(ctx.kernels(), FILE, "upsample_backward8", y.type());
            backward.view(dy);
            backward.view(dx);
            backwardN = geometry(backward);
        } else {
            backward = null;
            backwardN = -1;
        }
    }

    private int geometry(KernelLaunch l) {
        l.i32(lanes);
        l.i32(spec.input().height());
        l.i32(spec.input().width());
        l.i32(spec.stride());
        l.f32(spec.scale());
        return l.i32(1);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    @Override
    public void forward(int n, GpuStream stream) {
        int groups = vector ? lanes / 8 : lanes;
        long items = (long) n * groups * (twice ? spec.input().plane() : spec.output().plane());
        forward.setInt(forwardN, n).launch(KernelLaunch.grid(items, device), stream.handle());
    }

    @Override
    public void backward(int n, GpuStream stream) {
        if (backward == null) return;
        long items = (long) n * spec.input().plane() * (lanes / 8);
        backward.setInt(backwardN, n).launch(KernelLaunch.grid(items, device), stream.handle());
    }

    @Override
    public String describe() {
        return "upsample x" + spec.stride() + (twice ? " 2x2 vec8" : vector ? " vec8" : " scalar");
    }
}
