package io.argus.detector.cuda;

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
 * [route]. One input: a view of it (a channel slice with groups), nothing runs. Several: the concatenation lives in
 * this layer's view; inputs already written into their place cost nothing, the others are copied (route.cu).
 */
final class Route implements CudaLayer {
    private final RouteSpec spec;
    private final TensorView y;
    private final List<KernelLaunch> copies = new ArrayList<>();
    private final List<long[]> copyItems = new ArrayList<>();   // {nSlot, items per image}
    private final GpuDevice device;
    private int inPlace;

    Route(RouteSpec spec, TensorView[] inputs, TensorView y, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.device = ctx.device();
        if (BufferPlan.isView(spec)) return;
        int offset = 0;
        for (int i = 0; i < inputs.length; i++) {
            int count = spec.channelCount(i);
            TensorView src = inputs[i].slice(spec.channelOffset(i), count);
            TensorView dst = y.slice(offset, count);
            offset += count;
            if (src.sameStorage(dst)) {
                inPlace++;
                continue;
            }
            boolean vector = src.vectorizable() && dst.vectorizable();
            KernelLaunch copy = KernelLaunch.of(ctx.kernels(), "route.cu", vector ? "copy_channels_vec8" : "copy_channels_scalar");
            copy.view(src);
            copy.view(dst);
            copy.i32(count);
            copy.i32(y.pixels());
            int nSlot = copy.i32(1);
            copies.add(copy);
            copyItems.add(new long[] {nSlot, (long) y.pixels() * (vector ? count / 8 : count)});
        }
    }

    /** The view a single-input route presents: its input, or the selected group of its channels. */
    static TensorView viewOf(RouteSpec spec, TensorView input) {
        return input.slice(spec.channelOffset(0), spec.channelCount(0));
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void forward(int n, GpuStream stream) {
        for (int i = 0; i < copies.size(); i++) {
            KernelLaunch c = copies.get(i);
            c.setInt((int) copyItems.get(i)[0], n);
            c.launch(KernelLaunch.grid(n * copyItems.get(i)[1], device), 1, KernelLaunch.BLOCK, stream.handle());
        }
    }

    @Override
    public String describe() {
        if (BufferPlan.isView(spec)) return "route view" + (spec.groups() > 1 ? " (group slice)" : "");
        return "route concat: " + inPlace + " in place, " + copies.size() + " copied";
    }
}
