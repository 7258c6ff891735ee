package io.argus.detector.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [shortcut]: activation(previous + from). Nothing runs when the convolution before it fused the addition into its
 * cuDNN kernel (then that convolution writes this layer's view).
 */
final class Shortcut implements CudaLayer {
    private final ShortcutSpec spec;
    private final TensorView y;
    private final KernelLaunch launch;
    private final int nSlot;
    private final boolean vector;
    private final GpuDevice device;

    /** A shortcut computed by the convolution before it. */
    Shortcut(ShortcutSpec spec, TensorView y) {
        this.spec = spec;
        this.y = y;
        this.launch = null;
        this.nSlot = -1;
        this.vector = false;
        this.device = null;
    }

    Shortcut(ShortcutSpec spec, TensorView a, TensorView b, TensorView y, DeviceContext ctx) {
        this.spec = spec;
        this.y = y;
        this.device = ctx.device();
        this.vector = a.vectorizable() && b.vectorizable() && y.vectorizable();
        launch = KernelLaunch.of(ctx.kernels(), "shortcut.cu", vector ? "shortcut_vec8" : "shortcut_scalar");
        launch.view(a);
        launch.view(b);
        launch.view(y);
        launch.i32(spec.output().channels());
        launch.i32(spec.output().plane());
        nSlot = launch.i32(1);
        launch.i32(KernelCodes.activation(spec.activation()));
    }

    boolean fused() { return launch == null; }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public void forward(int n, GpuStream stream) {
        if (launch == null) return;
        launch.setInt(nSlot, n);
        long items = (long) n * spec.output().plane() * (vector ? spec.output().channels() / 8 : spec.output().channels());
        launch.launch(KernelLaunch.grid(items, device), 1, KernelLaunch.BLOCK, stream.handle());
    }

    @Override
    public String describe() {
        return launch == null ? "shortcut fused into the convolution" : "shortcut kernel" + (vector ? " vec8" : "");
    }
}
