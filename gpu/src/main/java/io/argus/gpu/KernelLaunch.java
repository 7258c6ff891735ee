package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cuLaunchKernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * One prepared kernel call: arguments laid out once in native memory (8 bytes per slot, each pointed to by an
 * entry of the void** array cuLaunchKernel reads; JavaCPP's PointerPointer overload passes that array itself, the
 * Pointer overload would pass its address), so a launch only rewrites the slots that change (the batch size, a loss
 * scale) and goes. The driver copies argument values at launch (and at graph capture), so reusing the slots is safe.
 */
public final class KernelLaunch {
    public static final int BLOCK = 256;
    /** Blocks per multiprocessor of a grid-stride loop: enough to keep every SM full, no more. */
    static final int BLOCKS_PER_SM = 32;
    /** Blocks per multiprocessor of a per-channel reduction (their rows of partial sums are then summed). */
    public static final int REDUCTION_BLOCKS_PER_SM = 4;
    private static final int MAX_ARGS = 32;

    private final CUfunc_st function;
    private final String name;
    private final BytePointer values;
    private final ByteBuffer slots;
    private final PointerPointer<Pointer> argv;   // void** kernelParams: slot addresses
    private int count;

    private KernelLaunch(CUfunc_st function, String name) {
        this.function = function;
        this.name = name;
        this.values = new BytePointer(8L * MAX_ARGS);
        this.slots = values.asByteBuffer().order(ByteOrder.nativeOrder());
        this.argv = new PointerPointer<>(MAX_ARGS);
        LongPointer addresses = new LongPointer(argv);   // the same memory, written as raw addresses
        for (int i = 0; i < MAX_ARGS; i++) addresses.put(i, values.address() + 8L * i);
    }

    /** A plain (extern "C") kernel of a file. */
    public static KernelLaunch of(KernelLibrary kernels, String file, String name) {
        return new KernelLaunch(kernels.function(file, name), file + ":" + name);
    }

    /** The instance of a kernel templated over the element type (name + the type's suffix). */
    public static KernelLaunch of(KernelLibrary kernels, String file, String name, ElementType type) {
        return of(kernels, file, name + type.suffix());
    }

    private int next() {
        if (count >= MAX_ARGS) throw new IllegalStateException(name + ": too many arguments");
        slots.putLong(8 * count, 0L);
        return count++;
    }

    /** Appends a pointer argument (0 for a null pointer); returns its slot. */
    public int pointer(long address) {
        int i = next();
        slots.putLong(8 * i, address);
        return i;
    }

    public int i64(long v) {
        int i = next();
        slots.putLong(8 * i, v);
        return i;
    }

    public int i32(int v) {
        int i = next();
        slots.putInt(8 * i, v);
        return i;
    }

    public int f32(float v) {
        int i = next();
        slots.putFloat(8 * i, v);
        return i;
    }

    /** The four arguments of an NHWC view: data, image stride, pixel stride, channel offset (elements). */
    public void view(TensorView v) {
        pointer(v.base());
        i64(v.imageStride());
        i32(v.pixelStride());
        i32(v.channelOffset());
    }

    public KernelLaunch setInt(int slot, int v) {
        slots.putInt(8 * slot, v);
        return this;
    }

    public KernelLaunch setLong(int slot, long v) {
        slots.putLong(8 * slot, v);
        return this;
    }

    public KernelLaunch setFloat(int slot, float v) {
        slots.putFloat(8 * slot, v);
        return this;
    }

    public KernelLaunch setPointer(int slot, long address) {
        slots.putLong(8 * slot, address);
        return this;
    }

    /** A one-dimensional launch of {@link #BLOCK}-thread blocks. */
    public void launch(int grid, CUstream_st stream) {
        launch(grid, 1, BLOCK, stream);
    }

    public void launch(int gridX, int gridY, int block, CUstream_st stream) {
        Status.driver(cuLaunchKernel(function, Math.max(1, gridX), Math.max(1, gridY), 1, block, 1, 1, 0, stream,
                argv, (PointerPointer<?>) null), "launch " + name);
    }

    /** Grid for a grid-stride loop over {@code total} items: enough blocks to fill the device, no more. */
    public static int grid(long total, GpuDevice device) {
        long blocks = (total + BLOCK - 1) / BLOCK;
        return (int) Math.max(1, Math.min(blocks, (long) BLOCKS_PER_SM * device.multiprocessors()));
    }

    /** Blocks for a per-channel reduction over {@code lanes} (pixel, group) pairs: a few per SM, 8+ pixels a lane. */
    public static int reductionGrid(long lanes, GpuDevice device) {
        long blocks = (lanes + 8L * BLOCK - 1) / (8L * BLOCK);
        return (int) Math.max(1, Math.min(blocks, (long) REDUCTION_BLOCKS_PER_SM * device.multiprocessors()));
    }
}
