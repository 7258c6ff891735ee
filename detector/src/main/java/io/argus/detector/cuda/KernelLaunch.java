package io.argus.detector.cuda;

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
 * Pointer overload would pass its address), so a launch only rewrites the slots that change (the batch size) and goes.
 * The driver copies argument values at launch (and at graph capture), so reusing the slots is safe.
 */
final class KernelLaunch {
    static final int BLOCK = 256;

    private final CUfunc_st function;
    private final String name;
    private final BytePointer values;
    private final ByteBuffer slots;
    private final PointerPointer<Pointer> argv;   // void** kernelParams: slot addresses
    private int count;

    KernelLaunch(KernelLibrary kernels, String file, String name, int maxArgs) {
        this.function = kernels.function(file, name);
        this.name = file + ":" + name;
        this.values = new BytePointer(8L * maxArgs);
        this.slots = values.asByteBuffer().order(ByteOrder.nativeOrder());
        this.argv = new PointerPointer<>(maxArgs);
        LongPointer addresses = new LongPointer(argv);   // the same memory, written as raw addresses
        for (int i = 0; i < maxArgs; i++) addresses.put(i, values.address() + 8L * i);
    }

    private int next() {
        if (8 * (count + 1) > slots.capacity()) throw new IllegalStateException(name + ": too many arguments");
        return count++;
    }

    /** Appends a device pointer argument; returns its slot. */
    int pointer(long address) {
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
        slots.putLong(8 * i, 0L);
        slots.putInt(8 * i, v);
        return i;
    }

    int f32(float v) {
        int i = next();
        slots.putLong(8 * i, 0L);
        slots.putFloat(8 * i, v);
        return i;
    }

    /** The four arguments of an NHWC view: data, image stride, pixel stride, channel offset (elements). */
    void view(TensorView v) {
        pointer(v.base());
        i64(v.imageStride());
        i32(v.pixelStride());
        i32(v.channelOffset());
    }

    void setInt(int slot, int v) {
        slots.putInt(8 * slot, v);
    }

    void setFloat(int slot, float v) {
        slots.putFloat(8 * slot, v);
    }

    void setPointer(int slot, long address) {
        slots.putLong(8 * slot, address);
    }

    void launch(int gridX, int gridY, int block, CUstream_st stream) {
        Status.driver(cuLaunchKernel(function, Math.max(1, gridX), Math.max(1, gridY), 1, block, 1, 1, 0, stream,
                argv, (PointerPointer<?>) null), "launch " + name);
    }

    /** Grid for a grid-stride loop over {@code total} items: enough blocks to fill the device, no more. */
    static int grid(long total, GpuDevice device) {
        long blocks = (total + BLOCK - 1) / BLOCK;
        return (int) Math.max(1, Math.min(blocks, 32L * device.multiprocessors()));
    }
}
