package io.argus.detector.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/** [upsample]: stride 2 reads each input vector once and writes its 2x2 block; other strides one output each. */
final class Upsample implements CudaLayer {
    private final UpsampleSpec spec;
    private final TensorView y;
    private final KernelLaunch launch;
    private final int nSlot;
    private final boolean vector;
    private final boolean twice;
    private final GpuDevice device;

    Upsample(UpsampleSpec spec, TensorView x, TensorView y, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.device = ctx.device();
        this.vector = x.vectorizable() && y.vectorizable();
        this.twice = vector && spec.stride() == 2;
        String name = twice ? "upsample2x_vec8" : vector ? "upsample_vec8" : "upsample_scalar";
        launch = KernelLaunch.of(ctx.kernels(), "upsample.cu", name);
        launch.view(x);
        launch.view(y);
        launch.i32(spec.input().channels());
        launch.i32(spec.input().height());
        launch.i32(spec.input().width());
        if (!twice) launch.i32(spec.stride());
        launch.f32(spec.scale());
        nSlot = launch.i32(1);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void forward(int n, GpuStream stream) {
        launch.setInt(nSlot, n);
        int groups = vector ? spec.input().channels() / 8 : spec.input().channels();
        long items = (long) n * groups * (twice ? spec.input().plane() : spec.output().plane());
        launch.launch(KernelLaunch.grid(items, device), 1, KernelLaunch.BLOCK, stream.handle());
    }

    @Override
    public String describe() {
        return "upsample x" + spec.stride() + (twice ? " 2x2 vec8" : vector ? " vec8" : " scalar");
    }
}
