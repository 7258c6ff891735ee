package io.argus.gpu;

import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.ShortPointer;

/** Synchronous host <-> device copies of Java arrays: set-up, checkpoints, tests and readback; not the hot path. */
public final class Transfers {
    private Transfers() {}

    public static void upload(long device, byte[] values) {
        try (BytePointer host = new BytePointer(values)) {
            toDevice(device, host, values.length);
        }
    }

    public static void upload(long device, short[] values) {
        try (ShortPointer host = new ShortPointer(values)) {
            toDevice(device, host, 2L * values.length);
        }
    }

    public static void upload(long device, float[] values) {
        try (FloatPointer host = new FloatPointer(values)) {
            toDevice(device, host, 4L * values.length);
        }
    }

    /** Uploads floats as {@code type} (converted to FP16 for HALF); FP8 values carry a scale: {@link Fp8#encode}. */
    public static void upload(long device, float[] values, ElementType type) {
        switch (type) {
            case FLOAT -> upload(device, values);
            case HALF -> upload(device, toHalves(values));
            case FP8_E4M3 -> throw new IllegalArgumentException("FP8 values carry a scale: upload Fp8.encode(v, scale)");
        }
    }

    public static short[] downloadHalves(long device, long count) {
        try (ShortPointer host = new ShortPointer(count)) {
            toHost(host, device, 2L * count);
            short[] out = new short[(int) count];
            host.get(out);
            return out;
        }
    }

    public static float[] downloadFloats(long device, long count) {
        try (FloatPointer host = new FloatPointer(count)) {
            toHost(host, device, 4L * count);
            float[] out = new float[(int) count];
            host.get(out);
            return out;
        }
    }

    public static int[] downloadInts(long device, long count) {
        try (IntPointer host = new IntPointer(count)) {
            toHost(host, device, 4L * count);
            int[] out = new int[(int) count];
            host.get(out);
            return out;
        }
    }

    /** {@code count} values of {@code type} as floats. */
    public static float[] download(long device, long count, ElementType type) {
        if (type == ElementType.FLOAT) return downloadFloats(device, count);
        if (type == ElementType.FP8_E4M3) throw new IllegalArgumentException("FP8 values carry a scale: decode with Fp8");
        short[] h = downloadHalves(device, count);
        float[] out = new float[h.length];
        for (int i = 0; i < h.length; i++) out[i] = Float.float16ToFloat(h[i]);
        return out;
    }

    public static short[] toHalves(float[] values) {
        short[] out = new short[values.length];
        for (int i = 0; i < values.length; i++) out[i] = Float.floatToFloat16(values[i]);
        return out;
    }

    private static void toDevice(long device, Pointer host, long bytes) {
        Status.cuda(cudaMemcpy(DevicePointer.at(device), host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
    }

    private static void toHost(Pointer host, long device, long bytes) {
        Status.cuda(cudaMemcpy(host, DevicePointer.at(device), bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    }
}
