package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [maxpool] (kernels/maxpool.cu), Darknet's window, the first of equal maxima wins (see the kernel file). Forward
 * runs 8 channels per thread where the views allow 16-byte access; backward (training) gathers each input pixel's
 * share from the windows it won.
 */
public final class MaxPool implements GpuLayer {
    private static final String FILE = "maxpool.cu";

    private final MaxPoolSpec spec;
    private final TensorView y;
    private final TensorView dy;
    private final GpuDevice device;
    private final int lanes;
    private final boolean vector;
    private final KernelLaunch forward;
    private final int forwardN;
    private final KernelLaunch backward;
    private final int backwardN;

    /** Inference: forward only. */
    public MaxPool(MaxPoolSpec spec, TensorView x, TensorView y, DeviceContext ctx) {
        this(spec, x, null, y, null, ctx);
    }

    /** Training: dx may be null (the network input has no gradient), then backward does nothing. */
    public MaxPool(MaxPoolSpec spec, TensorView x, TensorView dx, TensorView y, TensorView dy, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.dy = dy;
        this.device = ctx.device();
        this.lanes = Lanes.of(x, y, dx, dy);
        this.vector = Lanes.vector(lanes, x, y);
        forward = KernelLaunch.of(ctx.kernels(), FILE, vector ? "maxpool_forward8" : "maxpool_forward1", y.type());
        forward.view(x);
        forward.view(y);
        forwardN = geometry(forward);
        if (dx != null && dy != null) {
            if (!Lanes.vector(lanes, x, dx, dy)) {
                throw new IllegalArgumentException("layer " + spec.index() + " (maxpool): backward needs whole "
                        + "8-channel groups, got " + lanes + " channels at offsets " + dx.channelOffset() + "/"
                        + dy.channelOffset());
            }
            backward = KernelLaunch.of(ctx.kernels(), FILE, "maxpool_backward8", y.type());
            backward.view(x);
            backward.view(dy);
            backward.view(dx);
            backwardN = geometry(backward);
        } else {
            backward = null;
            backwardN = -1;
        }
    }

    /** The arguments after the views (channels, sizes, window, n); returns the slot of n. */
    private int geometry(KernelLaunch l) {
        l.i32(lanes);
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
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    @Override
    public void forward(int n, GpuStream stream) {
        long items = (long) n * spec.output().plane() * (vector ? lanes / 8 : lanes);
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
        return "maxpool " + spec.size() + "/" + spec.strideX() + (vector ? " vec8" : " scalar");
    }
}
