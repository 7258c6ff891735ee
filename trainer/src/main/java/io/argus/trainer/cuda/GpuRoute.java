package io.argus.trainer.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.gpu.KernelLaunch;

/**
 * [route] that builds a tensor (several inputs, or a group of one input's channels) in training
 * (kernels/train_route.cu): forward copies each input's slice into place, backward adds the slices of the route's
 * gradient back into the inputs' gradients. A single input without groups is no layer at all: the network gives the
 * route the input's own output and gradient tensors.
 */
final class GpuRoute implements GpuLayer {
    private static final String FILE = "train_route.cu";

    private final RouteSpec spec;
    private final GpuTrainContext ctx;
    private final Tensor y;
    private final Tensor dy;
    private final KernelLaunch[] forward;
    private final KernelLaunch[] backward;
    private final int[] forwardN;
    private final int[] backwardN;
    private final int[] counts;
    private final boolean[] vector;

    GpuRoute(RouteSpec spec, Tensor[] xs, Tensor[] dxs, Tensor y, Tensor dy, GpuTrainContext ctx) {
        this.spec = spec;
        this.ctx = ctx;
        this.y = y;
        this.dy = dy;
        int k = xs.length;
        forward = new KernelLaunch[k];
        backward = new KernelLaunch[k];
        forwardN = new int[k];
        backwardN = new int[k];
        counts = new int[k];
        vector = new boolean[k];
        int offset = 0;
        for (int i = 0; i < k; i++) {
            int count = spec.channelCount(i);
            int from = spec.channelOffset(i);
            counts[i] = count;
            vector[i] = count % 8 == 0 && from % 8 == 0 && offset % 8 == 0;
            forward[i] = vector[i] ? ctx.kernel(FILE, "route_copy8") : ctx.kernel(FILE, "route_copy1");
            forwardN[i] = args(forward[i], xs[i], from, y, offset, count, 0);
            if (dxs[i] != null) {
                backward[i] = vector[i] ? ctx.kernel(FILE, "route_copy8") : ctx.kernel(FILE, "route_copy1");
                backwardN[i] = args(backward[i], dy, offset, dxs[i], from, count, 1);
            }
            offset += count;
        }
    }

    private static int args(KernelLaunch l, Tensor src, int srcOffset, Tensor dst, int dstOffset, int count, int accumulate) {
        l.pointer(src.address());
        l.i32(src.stride());
        l.i32(srcOffset);
        l.pointer(dst.address());
        l.i32(dst.stride());
        l.i32(dstOffset);
        l.i32(count);
        int n = l.i64(1);
        l.i32(accumulate);
        return n;
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public Tensor output() { return y; }

    @Override
    public Tensor gradient() { return dy; }

    private long work(int i, long pixels) { return pixels * (vector[i] ? counts[i] / 8 : counts[i]); }

    @Override
    public void forward(int n) {
        long pixels = (long) n * y.pixels();
        for (int i = 0; i < forward.length; i++) {
            forward[i].setLong(forwardN[i], pixels).launch(ctx.grid(work(i, pixels)), ctx.stream.handle());
        }
    }

    @Override
    public void backward(int n) {
        long pixels = (long) n * y.pixels();
        for (int i = 0; i < backward.length; i++) {
            if (backward[i] == null) continue;
            backward[i].setLong(backwardN[i], pixels).launch(ctx.grid(work(i, pixels)), ctx.stream.handle());
        }
    }
}
