package io.argus.detector.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.ShortPointer;

/** Synchronous host <-> device copies of Java arrays (set-up, tests and readback; not the hot path). */
final class Transfers {
    private Transfers() {}

    static void upload(long device, short[] values) {
        ShortPointer host = new ShortPointer(values);
        Status.cuda(cudaMemcpy(RawPointer.at(device), host, 2L * values.length, cudaMemcpyHostToDevice),
                "cudaMemcpy to device");
        host.close();
    }

    static void upload(long device, float[] values) {
        FloatPointer host = new FloatPointer(values);
        Status.cuda(cudaMemcpy(RawPointer.at(device), host, 4L * values.length, cudaMemcpyHostToDevice),
                "cudaMemcpy to device");
        host.close();
    }

    static short[] downloadHalves(long device, int count) {
        ShortPointer host = new ShortPointer(count);
        Status.cuda(cudaMemcpy(host, RawPointer.at(device), 2L * count, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        short[] out = new short[count];
        host.get(out);
        host.close();
        return out;
    }

    static float[] downloadFloats(long device, int count) {
        FloatPointer host = new FloatPointer(count);
        Status.cuda(cudaMemcpy(host, RawPointer.at(device), 4L * count, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        float[] out = new float[count];
        host.get(out);
        host.close();
        return out;
    }

    static int[] downloadInts(long device, int count) {
        IntPointer host = new IntPointer(count);
        Status.cuda(cudaMemcpy(host, RawPointer.at(device), 4L * count, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
        int[] out = new int[count];
        host.get(out);
        host.close();
        return out;
    }

    static short[] toHalves(float[] values) {
        short[] out = new short[values.length];
        for (int i = 0; i < values.length; i++) out[i] = Float.floatToFloat16(values[i]);
        return out;
    }
}
