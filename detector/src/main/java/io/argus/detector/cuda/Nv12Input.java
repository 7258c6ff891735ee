package io.argus.detector.cuda;

import io.argus.detector.post.InputGeometry;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * Decoded NV12 surfaces (frames NVDEC left on the GPU) into the network input: one kernel per batch slot
 * (kernels/nv12.cu) converts YUV to RGB with the stream's matrix and range, resizes or letterboxes as Darknet does,
 * divides by 255 and writes FP16 NHWC into that slot of the batch tensor. No pixel crosses PCIe. The result equals
 * the BGR path ({@link FrameInput}) fed with {@code Nv12Image.toBgr} of the same picture.
 *
 * <p>The kernel reads the surface when it runs, not when {@link #stage} returns: the caller keeps the surface (the
 * decoder's frame reference) until {@code stream} has passed this point (an event or a synchronize).
 */
public final class Nv12Input {
    private final DeviceContext ctx;
    private final TensorView input;
    private final boolean letterbox;
    private final KernelLaunch launch;
    private final int first;   // slot of the first argument (luma); the rest follow in the kernel's order
    private final int slotArg;

    /** Writes into {@code input} (the network's FP16 input tensor, 3 channels used) of a network of that size. */
    public Nv12Input(DeviceContext ctx, TensorView input, boolean letterbox) {
        if (input.channels() < 3) throw new IllegalArgumentException("network input of " + input.channels() + " channels");
        this.ctx = ctx;
        this.input = input;
        this.letterbox = letterbox;
        this.launch = KernelLaunch.of(ctx.kernels(), "nv12.cu", "nv12_letterbox_rgb_fp16");
        first = launch.pointer(0);                 // luma
        launch.pointer(0);                         // chroma
        for (int i = 0; i < 8; i++) launch.i32(0); // pitches, size, resized size, offset
        for (int i = 0; i < 6; i++) launch.i32(0); // colour coefficients
        launch.pointer(input.base());
        launch.i64(input.imageStride());
        launch.i32(input.pixelStride());
        launch.i32(input.channelOffset());
        slotArg = launch.i32(0);
        launch.i32(input.width());
        launch.i32(input.height());
    }

    /** Enqueues the conversion of {@code frame} into batch slot {@code slot} on {@code stream}; returns where it landed. */
    public InputGeometry stage(Nv12Surface frame, int slot, GpuStream stream) {
        int netW = input.width();
        int netH = input.height();
        InputGeometry g = InputGeometry.of(netW, netH, frame.width(), frame.height(), letterbox);
        int a = first;
        launch.setPointer(a++, frame.luma());
        launch.setPointer(a++, frame.chroma());
        launch.setInt(a++, frame.lumaPitch());
        launch.setInt(a++, frame.chromaPitch());
        launch.setInt(a++, frame.width());
        launch.setInt(a++, frame.height());
        launch.setInt(a++, g.resizedWidth());
        launch.setInt(a++, g.resizedHeight());
        launch.setInt(a++, g.offsetX());
        launch.setInt(a++, g.offsetY());
        for (int k : frame.colour().coefficients()) launch.setInt(a++, k);
        launch.setInt(slotArg, slot);
        launch.launch(KernelLaunch.grid((long) netW * netH, ctx.device()), stream.handle());
        return g;
    }
}
