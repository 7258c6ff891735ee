package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;
import java.util.ArrayList;
import java.util.List;

/**
 * [route] (kernels/route.cu): the concatenation of its inputs' channel slices (groups/group_id pick a slice) lives
 * in this layer's view. An input whose slice already is its place there (inference writes producers into their
 * slot, and a single-input route is a view of its input) costs nothing; the others are copied. Backward (training)
 * adds each slice of the route's gradient back into its input's gradient.
 */
public final class Route implements GpuLayer {
    private static final String FILE = "route.cu";

    /** One copy between a slice of an input and its place in the route; {@code n} is the slot of the batch size. */
    private record Copy(KernelLaunch launch, int n, long itemsPerImage) {
        void run(int batch, GpuDevice device, GpuStream stream) {
            launch.setInt(n, batch).launch(KernelLaunch.grid(batch * itemsPerImage, device), stream.handle());
        }
    }

    private final RouteSpec spec;
    private final TensorView y;
    private final TensorView dy;
    private final GpuDevice device;
    private final List<Copy> forward = new ArrayList<>();
    private final List<Copy> backward = new ArrayList<>();
    private int inPlace;

    /** Inference: forward only. */
    public Route(RouteSpec spec, TensorView[] inputs, TensorView y, DeviceContext ctx) {
        this(spec, inputs, null, y, null, ctx);
    }

    /** Training: {@code dxs[i]} null where input i has no gradient (the network input). */
    public Route(RouteSpec spec, TensorView[] inputs, TensorView[] dxs, TensorView y, TensorView dy,
                 DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.dy = dy;
        this.device = ctx.device();
        int offset = 0;
        for (int i = 0; i < inputs.length; i++) {
            int count = spec.channelCount(i);
            TensorView src = inputs[i].slice(spec.channelOffset(i), count);
            TensorView dst = y.slice(offset, count);
            if (src.sameStorage(dst)) {
                inPlace++;
            } else {
                forward.add(copy(src, dst, false, ctx));
            }
            if (dy != null && dxs != null && dxs[i] != null) {
                TensorView from = dy.slice(offset, count);
                TensorView to = dxs[i].slice(spec.channelOffset(i), count);
                if (!from.sameStorage(to)) backward.add(copy(from, to, true, ctx));
            }
            offset += count;
        }
    }

    private static Copy copy(TensorView src, TensorView dst, boolean accumulate, DeviceContext ctx) {
        int count = src.channels();
        boolean vector = Lanes.vector(count, src, dst);
        KernelLaunch l = KernelLaunch.of(ctx.kernels(), FILE, vector ? "route_copy8" : "route_copy1", dst.type());
        l.view(src);
        l.view(dst);
        l.i32(count);
        l.i32(dst.pixels());
        int n = l.i32(1);
        l.i32(accumulate ? 1 : 0);
        return new Copy(l, n, (long) dst.pixels() * (vector ? count / 8 : count));
    }

    /** The view a single-input route presents in inference: its input, or the selected group of its channels. */
    public static TensorView viewOf(RouteSpec spec, TensorView input) {
        return input.slice(spec.channelOffset(0), spec.channelCount(0));
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    @Override
    public void forward(int n, GpuStream stream) {
        for (Copy c : forward) c.run(n, device, stream);
    }

    @Override
    public void backward(int n, GpuStream stream) {
        for (Copy c : backward) c.run(n, device, stream);
    }

    @Override
    public String describe() {
        if (spec.layers().length == 1 && forward.isEmpty()) {
            return "route view" + (spec.groups() > 1 ? " (group slice)" : "");
        }
        return "route concat: " + inPlace + " in place, " + forward.size() + " copied";
    }
}
