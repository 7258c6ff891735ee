package io.argus.detector.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/** [maxpool]: our kernel (maxpool.cu), 8 channels per thread where the views allow 16-byte access. */
final class MaxPool implements CudaLayer {
    private final MaxPoolSpec spec;
    private final TensorView y;
    private final KernelLaunch launch;
    private final int nSlot;
    private final boolean vector;
    private final GpuDevice device;

    MaxPool(MaxPoolSpec spec, TensorView x, TensorView y, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.device = ctx.device();
        this.vector = x.vectorizable() && y.vectorizable();
        launch = KernelLaunch.of(ctx.kernels(), "maxpool.cu", vector ? "maxpool_vec8" : "maxpool_scalar");
        launch.view(x);
        launch.view(y);
        launch.i32(spec.input().channels());
        launch.i32(spec.input().height());
        launch.i32(spec.input().width());
        launch.i32(spec.output().height());
        launch.i32(spec.output().width());
        launch.i32(spec.size());
        launch.i32(spec.strideY());
        launch.i32(spec.strideX());
        launch.i32(spec.offset());
        nSlot = launch.i32(1);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void forward(int n, GpuStream stream) {
        launch.setInt(nSlot, n);
        long items = (long) n * spec.output().plane() * (vector ? spec.input().channels() / 8 : spec.input().channels());
        launch.launch(KernelLaunch.grid(items, device), 1, KernelLaunch.BLOCK, stream.handle());
    }

    @Override
    public String describe() {
        return "maxpool " + spec.size() + "/" + spec.strideX() + (vector ? " vec8" : " scalar");
    }
}
