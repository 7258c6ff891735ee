package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cuLaunchKernel;

import io.argus.detector.cuda.Status;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * One prepared kernel call: the arguments laid out once in native memory (an 8-byte slot each; cuLaunchKernel reads
 * the void** array of slot addresses), so a launch rewrites only the slots that change (batch size, loss scale).
 * The driver copies argument values at launch, so reusing the slots is safe.
 */
final class Launch {
    static final int BLOCK = 256;
    /** Blocks per multiprocessor of a per-channel reduction (their rows of partial sums are then summed in double). */
    static final int REDUCTION_BLOCKS_PER_SM = 4;
    private static final int MAX_ARGS = 24;

    private final CUfunc_st function;
    private final String name;
    private final BytePointer values = new BytePointer(8L * MAX_ARGS);
    private final ByteBuffer slots = values.asByteBuffer().order(ByteOrder.nativeOrder());
    private final PointerPointer<Pointer> argv = new PointerPointer<>(MAX_ARGS);
    private int count;

    private Launch(CUfunc_st function, String name) {
        this.function = function;
        this.name = name;
        LongPointer addresses = new LongPointer(argv);
        for (int i = 0; i < MAX_ARGS; i++) addresses.put(i, values.address() + 8L * i);
    }

    /** A kernel instantiated for a storage type (name + _h or _f). */
    static Launch of(TrainKernels k, String file, String name, Precision p) {
        return plain(k, file, name + p.suffix());
    }

    /** A kernel without storage-type instances. */
    static Launch plain(TrainKernels k, String file, String name) {
        return new Launch(k.function(file, name), file + ":" + name);
    }

    private int next() {
        if (count >= MAX_ARGS) throw new IllegalStateException(name + ": too many arguments");
        slots.putLong(8 * count, 0L);
        return count++;
    }

    /** Appends a pointer argument (0 for a null pointer); returns its slot. */
    int ptr(long address) {
        int i = next();
        slots.putLong(8 * i, address);
        return i;
    }

    int i64(long v) {
        int i = next();
        slots.putLong(8 * i, v);
        return i;
    }

    int i32(int v) {
        int i = next();
        slots.putInt(8 * i, v);
        return i;
    }

    int f32(float v) {
        int i = next();
        slots.putFloat(8 * i, v);
        return i;
    }

    Launch setInt(int slot, int v) {
        slots.putInt(8 * slot, v);
        return this;
    }

    Launch setLong(int slot, long v) {
        slots.putLong(8 * slot, v);
        return this;
    }

    Launch setFloat(int slot, float v) {
        slots.putFloat(8 * slot, v);
        return this;
    }

    void launch(int grid, CUstream_st stream) {
        Status.driver(cuLaunchKernel(function, Math.max(1, grid), 1, 1, BLOCK, 1, 1, 0, stream, argv,
                (PointerPointer<?>) null), "launch " + name);
    }

    /** Blocks for a grid-stride loop over {@code total} items: enough to fill the device, no more. */
    static int grid(long total, int multiprocessors) {
        long blocks = (total + BLOCK - 1) / BLOCK;
        return (int) Math.max(1, Math.min(blocks, 16L * multiprocessors));
    }

    /** Blocks for a per-channel reduction over {@code lanes} (pixel, group) pairs: a few per SM, 8+ pixels a lane. */
    static int reductionGrid(long lanes, int multiprocessors) {
        long blocks = (lanes + 8L * BLOCK - 1) / (8L * BLOCK);
        return (int) Math.max(1, Math.min(blocks, (long) REDUCTION_BLOCKS_PER_SM * multiprocessors));
    }
}
