package io.argus.detector.testing;

import io.argus.detector.Box;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Picture;
import io.argus.detector.nn.InferenceBackend;
import io.argus.gpu.CudaException;
import io.argus.testkit.Pace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend that stands in for one GPU in tests of the several-GPU dispatch: every picture gets one detection whose
 * class id is the picture's width (so a test can tell whose result it is), a call takes {@code msPerImage} per
 * picture (sleeping, so it costs no CPU), and from a chosen call on it throws a {@link CudaException}, as a device
 * whose stream broke does. A picture {@link #rejecting rejected} by width throws an IllegalArgumentException instead,
 * as a backend given a picture it cannot read.
 */
public final class StandInBackend implements InferenceBackend {
    private final int device;
    private final int maxBatch;
    private final double msPerImage;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile int failFromCall = Integer.MAX_VALUE;
    private volatile int rejectWidth = -1;
    private volatile double firstCallMsPerImage = -1;

    public StandInBackend(int device, int maxBatch, double msPerImage) {
        this.device = device;
        this.maxBatch = maxBatch;
        this.msPerImage = msPerImage;
    }

    /** Call {@code call} (1 = the first) and every later one throws a CudaException naming the device. */
    public StandInBackend failingFrom(int call) {
        failFromCall = call;
        return this;
    }

    /** The first call takes {@code ms} per picture, as a real engine's first batch that builds its plans does. */
    public StandInBackend warmingUpAt(double ms) {
        firstCallMsPerImage = ms;
        return this;
    }

    /** A batch holding a picture {@code width} wide fails with an IllegalArgumentException (the backend survives). */
    public StandInBackend rejecting(int width) {
        rejectWidth = width;
        return this;
    }

    /** Detect calls made, the failing ones included. */
    public int calls() { return calls.get(); }

    /** The detection a picture of this width gets. */
    public static Detection detectionFor(int width) {
        return new Detection(width, "w" + width, 1f, new Box(0, 0, 1, 1));
    }

    @Override
    public String name() { return "stand-in " + device; }

    @Override
    public int maxBatch() { return maxBatch; }

    @Override
    public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params) {
        int call = calls.incrementAndGet();
        if (call >= failFromCall) {
            throw new CudaException("cudaStreamSynchronize: an illegal memory access was encountered (stand-in device "
                    + device + ")");
        }
        double ms = call == 1 && firstCallMsPerImage >= 0 ? firstCallMsPerImage : msPerImage;
        Pace.holdUninterruptibly(Duration.ofNanos(Math.round(ms * 1e6 * pictures.size())),
                "the inference time of a real engine for these pictures");
        List<List<Detection>> out = new ArrayList<>(pictures.size());
        for (Picture p : pictures) {
            if (p.width() == rejectWidth) throw new IllegalArgumentException("picture of width " + p.width() + " refused");
            out.add(List.of(detectionFor(p.width())));
        }
        return out;
    }

    @Override
    public float[] headOutput(int head, int image) { throw new UnsupportedOperationException("a stand-in"); }

    @Override
    public void close() { }
}
