package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [yolo] forward (kernels/yolo.cu): the head convolution's output (half or float) to FP32 in Darknet's layout with
 * Darknet's activations, as the CPU's YoloLayer. The FP32 buffer feeds inference's GPU decode and, for tests and the
 * CPU fallback, {@link #address()}. Training's gradient of this layer is the loss's (trainer GpuYoloLoss reads the
 * raw head input and applies the same activation), so there is no backward here.
 */
public final class Yolo implements GpuLayer {
    private static final String FILE = "yolo.cu";

    private final YoloSpec spec;
    private final GpuBuffer out;
    private final KernelLaunch launch;
    private final int nSlot;

    public Yolo(YoloSpec spec, TensorView x, int maxBatch, DeviceContext ctx) {
        this.spec = spec;
        this.out = GpuBuffer.device(4L * maxBatch * spec.output().size(), "output of [yolo] layer " + spec.index());
        launch = KernelLaunch.of(ctx.kernels(), FILE, "yolo_activate", x.type());
        launch.view(x);
        launch.pointer(out.address());
        launch.i32(spec.anchorsPerCell());
        launch.i32(spec.entries());
        launch.i32(spec.output().plane());
        launch.i32(spec.newCoords() ? 1 : 0);
        launch.f32(spec.scaleXY());
        nSlot = launch.i32(1);
    }

    public YoloSpec yolo() { return spec; }

    /** Device address of image 0's FP32 output; image i starts {@code spec.output().size()} floats later. */
    public long address() { return out.address(); }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return null; }

    /** yolo.cu's tile: 32 pixels x 32 channels a block. */
    private static final int TILE = 32;

    @Override
    public void forward(int n, GpuStream stream) {
        int pixelTiles = (spec.output().plane() + TILE - 1) / TILE;
        int channelTiles = (spec.anchorsPerCell() * spec.entries() + TILE - 1) / TILE;
        launch.setInt(nSlot, n).launch(pixelTiles, n * channelTiles, KernelLaunch.BLOCK, stream.handle());
    }

    @Override
    public String describe() {
        return "yolo activate -> FP32";
    }

    @Override
    public void close() { out.close(); }
}
