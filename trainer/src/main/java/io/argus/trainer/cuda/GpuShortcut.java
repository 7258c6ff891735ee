package io.argus.trainer.cuda;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.gpu.KernelLaunch;

/** [shortcut] in training (kernels/train_shortcut.cu): act(previous + from); backward feeds both inputs. */
final class GpuShortcut implements GpuLayer {
    private static final String FILE = "train_shortcut.cu";

    private final ShortcutSpec spec;
    private final GpuTrainContext ctx;
    private final Tensor y;
    private final Tensor dy;
    private final KernelLaunch forward;
    private final KernelLaunch backward;
    private final int forwardN;
    private final int backwardN;

    GpuShortcut(ShortcutSpec spec, Tensor a, Tensor da, Tensor b, Tensor db, Tensor y, Tensor dy,
                GpuTrainContext ctx) {
        if (a.stride() != y.stride() || b.stride() != y.stride() || a.pixels() != y.pixels()
                || b.pixels() != y.pixels() || a.channels() != b.channels()) {
            throw new IllegalArgumentException("layer " + spec.index() + " (shortcut, line " + spec.line()
                    + "): inputs of different shapes; the CUDA trainer adds equal shapes only");
        }
        this.spec = spec;
        this.ctx = ctx;
        this.y = y;
        this.dy = dy;
        int act = KernelCodes.activation(spec.activation());
        forward = ctx.kernel(FILE, "shortcut_forward");
        forward.pointer(a.address());
        forward.pointer(b.address());
        forward.pointer(y.address());
        forwardN = forward.i64(1);
        forward.i32(y.stride());
        forward.i32(y.channels());
        forward.i32(act);
        backward = ctx.kernel(FILE, "shortcut_backward");
        backward.pointer(a.address());
        backward.pointer(b.address());
        backward.pointer(dy.address());
        backward.pointer(da == null ? 0 : da.address());
        backward.pointer(db == null ? 0 : db.address());
        backwardN = backward.i64(1);
        backward.i32(y.stride());
        backward.i32(y.channels());
        backward.i32(act);
    }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public Tensor output() { return y; }

    @Override
    public Tensor gradient() { return dy; }

    @Override
    public void forward(int n) {
        long pixels = (long) n * y.pixels();
        forward.setLong(forwardN, pixels).launch(ctx.grid(pixels * (y.stride() / 8)), ctx.stream.handle());
    }

    @Override
    public void backward(int n) {
        long pixels = (long) n * y.pixels();
        backward.setLong(backwardN, pixels).launch(ctx.grid(pixels * (y.stride() / 8)), ctx.stream.handle());
    }
}
