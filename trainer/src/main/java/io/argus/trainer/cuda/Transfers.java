package io.argus.trainer.cuda;

import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import io.argus.detector.cuda.Status;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.ShortPointer;

/** Synchronous host <-> device copies of Java arrays: set-up, checkpoints and tests, not the per-pass path. */
final class Transfers {
    private Transfers() {}

    static void upload(long device, byte[] bytes) {
        try (BytePointer host = new BytePointer(bytes)) {
            Status.cuda(cudaMemcpy(DevicePointer.at(device), host, bytes.length, cudaMemcpyHostToDevice),
                    "cudaMemcpy to device");
        }
    }

    static void upload(long device, float[] values) {
        try (FloatPointer host = new FloatPointer(values)) {
            Status.cuda(cudaMemcpy(DevicePointer.at(device), host, 4L * values.length, cudaMemcpyHostToDevice),
                    "cudaMemcpy to device");
        }
    }

    static float[] downloadFloats(long device, long count) {
        try (FloatPointer host = new FloatPointer(count)) {
            Status.cuda(cudaMemcpy(host, DevicePointer.at(device), 4L * count, cudaMemcpyDeviceToHost),
                    "cudaMemcpy to host");
            float[] out = new float[(int) count];
            host.get(out);
            return out;
        }
    }

    /** Values of the storage type as floats. */
    static float[] downloadStored(long device, long count, Precision p) {
        if (p == Precision.FP32) return downloadFloats(device, count);
        try (ShortPointer host = new ShortPointer(count)) {
            Status.cuda(cudaMemcpy(host, DevicePointer.at(device), 2L * count, cudaMemcpyDeviceToHost),
                    "cudaMemcpy to host");
            short[] h = new short[(int) count];
            host.get(h);
            float[] out = new float[h.length];
            for (int i = 0; i < h.length; i++) out[i] = Float.float16ToFloat(h[i]);
            return out;
        }
    }

    /** Uploads floats as the storage type. */
    static void uploadStored(long device, float[] values, Precision p) {
        if (p == Precision.FP32) {
            upload(device, values);
            return;
        }
        short[] h = new short[values.length];
        for (int i = 0; i < h.length; i++) h[i] = Float.floatToFloat16(values[i]);
        try (ShortPointer host = new ShortPointer(h)) {
            Status.cuda(cudaMemcpy(DevicePointer.at(device), host, 2L * h.length, cudaMemcpyHostToDevice),
                    "cudaMemcpy to device");
        }
    }
}
