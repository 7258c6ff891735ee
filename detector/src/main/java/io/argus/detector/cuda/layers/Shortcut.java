package io.argus.detector.cuda.layers;

import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;

/**
 * [shortcut] (kernels/shortcut.cu): act(previous + from), equal shapes. In inference nothing runs when the
 * convolution before it fused the addition into its cuDNN kernel (then that convolution writes this layer's view).
 * Backward (training) turns dy into dL/d(sum) in place and adds it into both inputs' gradients.
 */
public final class Shortcut implements GpuLayer {
    private static final String FILE = "shortcut.cu";

    private final ShortcutSpec spec;
    private final TensorView y;
    private final TensorView dy;
    private final GpuDevice device;
    private final int lanes;
    private final boolean vector;
    private final KernelLaunch forward;
    private final int forwardN;
    private final KernelLaunch backward;
    private final int backwardN;

    /** Inference: a shortcut computed by the convolution before it (into {@code y}). */
    public static Shortcut fused(ShortcutSpec spec, TensorView y) {
        return new Shortcut(spec, y);
    }

    private Shortcut(ShortcutSpec spec, TensorView y) {
        this.spec = spec;
        this.y = y;
        this.dy = null;
        this.device = null;
        this.lanes = 0;
        this.vector = false;
        this.forward = null;
        this.forwardN = -1;
        this.backward = null;
        this.backwardN = -1;
    }

    /** Inference: forward only. */
    public Shortcut(ShortcutSpec spec, TensorView a, TensorView b, TensorView y, DeviceContext ctx) {
        this(spec, a, null, b, null, y, null, ctx);
    }

    /** Training: da / db null where that input has no gradient; both the same view when from = previous. */
    public Shortcut(ShortcutSpec spec, TensorView a, TensorView da, TensorView b, TensorView db, TensorView y,
                    TensorView dy, DeviceContext ctx) {
        if (dy != null && (a.pixelStride() != y.pixelStride() || b.pixelStride() != y.pixelStride()
                || a.pixels() != y.pixels() || b.pixels() != y.pixels() || a.channels() != b.channels())) {
            throw new IllegalArgumentException("layer " + spec.index() + " (shortcut, line " + spec.line()
                    + "): inputs of different shapes; the CUDA trainer adds equal shapes only");
        }
        this.spec = spec;
        this.y = y;
        this.dy = dy;
        this.device = ctx.device();
        this.lanes = Lanes.of(y, a, b, da, db, dy);
        this.vector = Lanes.vector(lanes, a, b, y);
        int act = KernelCodes.activation(spec.activation());
        forward = KernelLaunch.of(ctx.kernels(), FILE, vector ? "shortcut_forward8" : "shortcut_forward1", y.type());
        forward.view(a);
        forward.view(b);
        forward.view(y);
        forward.i32(lanes);
        forward.i32(spec.output().channels());
        forward.i32(y.pixels());
        forwardN = forward.i32(1);
        forward.i32(act);
        if (dy != null) {
            if (!Lanes.vector(lanes, a, b, dy, da, db)) {
                throw new IllegalArgumentException("layer " + spec.index() + " (shortcut): backward needs whole "
                        + "8-channel groups, got " + lanes + " channels");
            }
            backward = KernelLaunch.of(ctx.kernels(), FILE, "shortcut_backward8", y.type());
            backward.view(a);
            backward.view(b);
            backward.view(dy);
            nullableView(backward, da);
            nullableView(backward, db);
            backward.i32(lanes);
            backward.i32(spec.output().channels());
            backward.i32(y.pixels());
            backwardN = backward.i32(1);
            backward.i32(act);
        } else {
            backward = null;
            backwardN = -1;
        }
    }

    private static void nullableView(KernelLaunch l, TensorView v) {
        if (v != null) {
            l.view(v);
        } else {
            l.pointer(0);
            l.i64(0);
            l.i32(0);
            l.i32(0);
        }
    }

    /** Whether the convolution before computes this layer (inference's fused epilogue). */
    public boolean fused() { return forward == null; }

    @Override
    public LayerSpec spec() { return spec; }

    @Override
    public TensorView output() { return y; }

    @Override
    public TensorView gradient() { return dy; }

    @Override
    public void forward(int n, GpuStream stream) {
        if (forward == null) return;
        long items = (long) n * y.pixels() * (vector ? lanes / 8 : lanes);
        forward.setInt(forwardN, n).launch(KernelLaunch.grid(items, device), stream.handle());
    }

    @Override
    public void backward(int n, GpuStream stream) {
        if (backward == null) return;
        long items = (long) n * y.pixels() * (lanes / 8);
        backward.setInt(backwardN, n).launch(KernelLaunch.grid(items, device), stream.handle());
    }

    @Override
    public String describe() {
        return forward == null ? "shortcut fused into the convolution" : "shortcut kernel" + (vector ? " vec8" : "");
    }
}
