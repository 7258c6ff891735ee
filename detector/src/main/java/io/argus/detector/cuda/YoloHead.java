package io.argus.detector.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [yolo]: the head convolution's FP16 output to FP32 in Darknet's layout with Darknet's activations (yolo.cu). The
 * FP32 buffer feeds the GPU decode and, for tests and the CPU fallback, {@code headOutput}.
 */
final class YoloHead implements CudaLayer {
    private final YoloSpec spec;
    private final GpuBuffer out;
    private final KernelLaunch launch;
    private final int nSlot;
    private final GpuDevice device;

    YoloHead(YoloSpec spec, TensorView x, int maxBatch, DeviceContext ctx) {
        this.spec = spec;
        this.device = ctx.device();
        this.out = GpuBuffer.device(4L * maxBatch * spec.output().size(), "output of [yolo] layer " + spec.index());
        launch = KernelLaunch.of(ctx.kernels(), "yolo.cu", "yolo_activate");
        launch.view(x);
        launch.pointer(out.address());
        launch.i32(spec.anchorsPerCell());
        launch.i32(spec.entries());
        launch.i32(spec.output().plane());
        launch.i32(spec.newCoords() ? 1 : 0);
        launch.f32(spec.scaleXY());
        nSlot = launch.i32(1);
    }

    YoloSpec yolo() { return spec; }

    /** Device address of image 0's FP32 output; image i starts {@code spec.output().size()} floats later. */
    long address() { return out.address(); }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return null; }

    @Override
    public void forward(int n, GpuStream stream) {
        launch.setInt(nSlot, n);
        launch.launch(KernelLaunch.grid((long) n * spec.output().size(), device), 1, KernelLaunch.BLOCK,
                stream.handle());
    }

    @Override
    public String describe() {
        return "yolo activate -> FP32";
    }

    @Override
    public void close() { out.close(); }
}
