package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemsetAsync;

import io.argus.detector.darknet.ModelWeights;
import io.argus.gpu.DeviceMemory;
import io.argus.gpu.DevicePointer;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.Status;
import io.argus.gpu.Transfers;
import io.argus.trainer.optim.SgdStep;
import java.nio.ByteBuffer;

/**
 * The trainable state of a network on the GPU, laid out by {@link ParameterArena}: FP32 masters, gradients,
 * momentum and (once started) the EMA shadow; the working copy the convolutions read (FP16 in mixed precision; the
 * masters themselves in FP32); the per-pass weight gradient cuDNN writes; the rolling batch-norm statistics. Two
 * kernels act on all of it in one launch each: {@code accumulate_check} after every backward (adds the pass's
 * weight gradient into the FP32 gradients and raises one flag if any gradient is Inf or NaN) and {@code sgd_step}
 * (Darknet's SGD on every tensor, the working copy refreshed, the EMA moved, the largest update found).
 */
final class GpuParameters implements AutoCloseable {
    private static final String FILE = "train_optimizer.cu";

    private final GpuTrainContext ctx;
    private final ParameterArena arena;
    private final long master;
    private final long gradient;
    private final long velocity;
    private final long working;
    private final long pass;
    private final long statistics;
    private final GpuBuffer flags;       // int overflow, uint largest |update| bits
    private final GpuBuffer flagsHost;   // pinned
    private long shadow;
    private boolean emaStarted;
    private final KernelLaunch accumulate;
    private final KernelLaunch sgd;
    private final int sgdUnscale, sgdRate, sgdMomentum, sgdDecay, sgdEmaMode, sgdAlpha, sgdOneMinus, sgdShadow;

    GpuParameters(ParameterArena arena, ModelWeights initial, GpuTrainContext ctx) {
        this.ctx = ctx;
        this.arena = arena;
        DeviceMemory mem = ctx.memory;
        long total = arena.total();
        long w = arena.weightValues();
        this.master = mem.allocate(4 * total, "parameter masters").address();
        this.gradient = mem.allocate(4 * total, "parameter gradients").address();
        this.velocity = mem.allocate(4 * total, "momentum").address();
        this.pass = mem.allocate(w * ctx.precision.bytes(), "per-pass weight gradients").address();
        this.working = ctx.precision == Precision.MIXED
                ? mem.allocate(w * ctx.precision.bytes(), "FP16 working weights").address() : master;
        this.statistics = mem.allocate(4 * Math.max(1, arena.statisticsValues()), "batch-norm statistics").address();
        this.flags = mem.allocate(16, "overflow flag and largest update");
        this.flagsHost = GpuBuffer.pinned(16, "overflow flag readback");
        ctx.master = master;
        ctx.gradient = gradient;
        ctx.working = working;
        ctx.passGradient = pass;
        ctx.statistics = statistics;

        accumulate = ctx.kernel(FILE, "accumulate_check");
        accumulate.pointer(pass);
        accumulate.pointer(gradient);
        accumulate.i64(w);
        accumulate.i64(total);
        accumulate.pointer(flags.address());

        sgd = ctx.kernel(FILE, "sgd_step");
        sgd.pointer(master);
        sgd.pointer(velocity);
        sgd.pointer(gradient);
        sgd.pointer(ctx.precision == Precision.MIXED ? working : 0);
        sgdShadow = sgd.pointer(0);
        sgd.i64(w);
        sgd.i64(total);
        sgdUnscale = sgd.f32(1f);
        sgdRate = sgd.f32(0f);
        sgdMomentum = sgd.f32(0f);
        sgdDecay = sgd.f32(0f);
        sgdEmaMode = sgd.i32(0);
        sgdAlpha = sgd.f32(0f);
        sgdOneMinus = sgd.f32(0f);
        sgd.pointer(flags.address() + 4);
        load(initial);
    }

    ParameterArena arena() { return arena; }

    /** Replaces masters and rolling statistics (momentum cleared, EMA restarted) and refreshes the working copy. */
    void load(ModelWeights weights) {
        float[][] host = arena.fromDarknet(weights);
        ctx.stream.synchronize();
        Transfers.upload(master, host[0]);
        if (host[1].length > 0) Transfers.upload(statistics, host[1]);
        Transfers.upload(velocity, new float[(int) arena.total()]);
        Transfers.upload(gradient, new float[(int) arena.total()]);
        emaStarted = false;
        refreshWorkingCopy();
    }

    /** In mixed precision, rounds the masters' weights into the FP16 working copy (FP32 reads the masters). */
    private void refreshWorkingCopy() {
        if (ctx.precision != Precision.MIXED) return;
        KernelLaunch refresh = ctx.kernel(FILE, "refresh_working");
        refresh.pointer(master);
        refresh.pointer(working);
        refresh.i64(arena.weightValues());
        refresh.launch(ctx.grid(arena.weightValues()), ctx.stream.handle());
        ctx.stream.synchronize();
    }

    /**
     * Resumes a checkpoint after {@link #load} of its weights: the momentum arena takes {@code momentum}; with
     * {@code masters} (the EMA ran), the masters loaded (which were the EMA) become the EMA's shadow, {@code masters}
     * the masters, and the next step moves the average instead of starting it. Arrays in the arena's layout.
     */
    void restore(float[] momentum, float[] masters) {
        if (momentum.length != arena.total() || masters != null && masters.length != arena.total()) {
            throw new IllegalArgumentException("optimizer state of " + momentum.length + " values, the arena holds "
                    + arena.total());
        }
        ctx.stream.synchronize();
        Transfers.upload(velocity, momentum);
        if (masters != null) {
            if (shadow == 0) shadow = ctx.memory.allocate(4 * arena.total(), "EMA of the weights").address();
            Transfers.upload(shadow, Transfers.downloadFloats(master, arena.total()));
            Transfers.upload(master, masters);
            emaStarted = true;
            refreshWorkingCopy();
        }
    }

    /** After a backward pass: accumulate its weight gradient, flag non-finite gradients. */
    void accumulateAndCheck() {
        accumulate.launch(ctx.grid(arena.total()), ctx.stream.handle());
    }

    /** Whether any gradient since the last step or discard was Inf or NaN (waits for the device). */
    boolean overflowed() {
        readFlags();
        return flagsHost.host().getInt(0) != 0;
    }

    private void readFlags() {
        Status.cuda(cudaMemcpyAsync(DevicePointer.at(flagsHost.address()), DevicePointer.at(flags.address()), 16,
                cudaMemcpyDeviceToHost, ctx.stream.handle()), "cudaMemcpyAsync flags");
        ctx.stream.synchronize();
    }

    private void clearFlags() {
        Status.cuda(cudaMemsetAsync(DevicePointer.at(flags.address()), 0, 16, ctx.stream.handle()),
                "cudaMemsetAsync flags");
    }

    /** One SGD step on every tensor (clears the gradients); returns the largest absolute update. */
    float step(SgdStep s, float lossScale) {
        clearFlags();
        int emaMode = 0;
        if (s.emaAlpha() > 0) {
            if (shadow == 0) shadow = ctx.memory.allocate(4 * arena.total(), "EMA of the weights").address();
            emaMode = emaStarted ? 2 : 1;
            emaStarted = true;
        }
        sgd.setLong(sgdShadow, shadow)
                .setFloat(sgdUnscale, 1f / lossScale)
                .setFloat(sgdRate, s.learningRate() / s.batch())
                .setFloat(sgdMomentum, s.momentum())
                .setFloat(sgdDecay, s.decay() * s.batch())
                .setInt(sgdEmaMode, emaMode)
                .setFloat(sgdAlpha, s.emaAlpha())
                .setFloat(sgdOneMinus, 1 - s.emaAlpha())
                .launch(ctx.grid(arena.total()), ctx.stream.handle());
        readFlags();
        return Float.intBitsToFloat(flagsHost.host().getInt(4));
    }

    /** Drops the accumulated gradients and the overflow flag (a skipped step). */
    void discard() {
        Status.cuda(cudaMemsetAsync(DevicePointer.at(gradient), 0, 4 * arena.total(), ctx.stream.handle()),
                "cudaMemsetAsync gradients");
        clearFlags();
        ctx.stream.synchronize();
    }

    boolean emaStarted() { return emaStarted; }

    /** Masters (or the EMA when {@code ema} and started) and rolling statistics, as host arrays. */
    float[][] download(boolean ema) {
        ctx.stream.synchronize();
        long from = ema && emaStarted ? shadow : master;
        float[] values = Transfers.downloadFloats(from, arena.total());
        float[] stats = arena.statisticsValues() == 0 ? new float[0]
                : Transfers.downloadFloats(statistics, arena.statisticsValues());
        return new float[][] {values, stats};
    }

    float[] gradients() {
        ctx.stream.synchronize();
        return Transfers.downloadFloats(gradient, arena.total());
    }

    float[] velocities() {
        ctx.stream.synchronize();
        return Transfers.downloadFloats(velocity, arena.total());
    }

    /** The working copy of the weights as floats ([0, W); the masters themselves in FP32). */
    float[] workingCopy() {
        ctx.stream.synchronize();
        return Transfers.download(working, arena.weightValues(), ctx.precision.storage());
    }

    /** Writes gradients (tests: drive the step and the check with known values). */
    void setGradients(float[] values) {
        ctx.stream.synchronize();
        Transfers.upload(gradient, values);
    }

    ByteBuffer flagsView() { return flagsHost.host(); }

    /** The device's overflow flag (an int, then the largest update's bits), for a data-parallel rank's check. */
    long flagsAddress() { return flags.address(); }

    @Override
    public void close() {
        flagsHost.close();
    }
}
