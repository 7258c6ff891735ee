package io.argus.gpu;

import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_BACKEND_DESCRIPTOR;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_BOOLEAN;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_DATA_TYPE;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_DOUBLE;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_FLOAT;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_HANDLE;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_INT64;
import static org.bytedeco.cuda.global.cudnn.CUDNN_TYPE_VOID_PTR;
import static org.bytedeco.cuda.global.cudnn.cudnnBackendCreateDescriptor;
import static org.bytedeco.cuda.global.cudnn.cudnnBackendDestroyDescriptor;
import static org.bytedeco.cuda.global.cudnn.cudnnBackendFinalize;
import static org.bytedeco.cuda.global.cudnn.cudnnBackendGetAttribute;
import static org.bytedeco.cuda.global.cudnn.cudnnBackendSetAttribute;

import org.bytedeco.cuda.cudnn.cudnnBackendDescriptor_t;
import org.bytedeco.cuda.cudnn.cudnnContext;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A cuDNN backend (graph API) descriptor with typed attribute setters. Values are copied by cuDNN when set, so the
 * temporary native arrays here may be freed afterwards. Every failure names the descriptor and attribute.
 */
public final class CudnnDescriptor implements AutoCloseable {
    private final cudnnBackendDescriptor_t handle = new cudnnBackendDescriptor_t();
    private final String what;
    private boolean destroyed;

    public CudnnDescriptor(int type, String what) {
        this.what = what;
        Status.cudnn(cudnnBackendCreateDescriptor(type, handle), "cudnnBackendCreateDescriptor " + what);
    }

    public cudnnBackendDescriptor_t handle() { return handle; }

    public long address() { return handle.address(); }

    public String what() { return what; }

    private CudnnDescriptor set(int attribute, int type, long count, Pointer values, String name) {
        int s = cudnnBackendSetAttribute(handle, attribute, type, count, values);
        if (s != 0) throw new CudaException("cuDNN " + what + ": setting " + name + " failed: " + Status.cudnnMessage(s));
        return this;
    }

    public CudnnDescriptor int64(int attribute, String name, long... values) {
        return set(attribute, CUDNN_TYPE_INT64, values.length, new LongPointer(values), name);
    }

    /** An enum-valued attribute (data type, pointwise mode, heuristic mode, ...): a 4-byte C enum. */
    public CudnnDescriptor enumeration(int attribute, int type, String name, int value) {
        return set(attribute, type, 1, new IntPointer(new int[] {value}), name);
    }

    public CudnnDescriptor dataType(int attribute, String name, int dataType) {
        return enumeration(attribute, CUDNN_TYPE_DATA_TYPE, name, dataType);
    }

    public CudnnDescriptor bool(int attribute, String name, boolean value) {
        return set(attribute, CUDNN_TYPE_BOOLEAN, 1, new BytePointer(new byte[] {(byte) (value ? 1 : 0)}), name);
    }

    public CudnnDescriptor float32(int attribute, String name, float value) {
        return set(attribute, CUDNN_TYPE_FLOAT, 1, new FloatPointer(new float[] {value}), name);
    }

    public CudnnDescriptor float64(int attribute, String name, double value) {
        return set(attribute, CUDNN_TYPE_DOUBLE, 1, new DoublePointer(new double[] {value}), name);
    }

    public CudnnDescriptor descriptors(int attribute, String name, CudnnDescriptor... values) {
        long[] addresses = new long[values.length];
        for (int i = 0; i < values.length; i++) addresses[i] = values[i].address();
        return set(attribute, CUDNN_TYPE_BACKEND_DESCRIPTOR, values.length, new LongPointer(addresses), name);
    }

    public CudnnDescriptor cudnnHandle(int attribute, String name, cudnnContext context) {
        return set(attribute, CUDNN_TYPE_HANDLE, 1, new LongPointer(new long[] {context.address()}), name);
    }

    public CudnnDescriptor pointers(int attribute, String name, long... addresses) {
        return set(attribute, CUDNN_TYPE_VOID_PTR, addresses.length, new LongPointer(addresses), name);
    }

    /** Finalizes; throws with cuDNN's reason. */
    public CudnnDescriptor finish() {
        int s = cudnnBackendFinalize(handle);
        if (s != 0) throw new CudaException("cuDNN " + what + ": finalize failed: " + Status.cudnnMessage(s));
        return this;
    }

    /** Finalizes; returns the status instead of throwing (for candidates that may be unsupported). */
    public int tryFinish() {
        return cudnnBackendFinalize(handle);
    }

    public long getInt64(int attribute, String name) {
        LongPointer count = new LongPointer(1);
        LongPointer value = new LongPointer(1);
        int s = cudnnBackendGetAttribute(handle, attribute, CUDNN_TYPE_INT64, 1, count, value);
        if (s != 0) throw new CudaException("cuDNN " + what + ": reading " + name + " failed: " + Status.cudnnMessage(s));
        return value.get();
    }

    /** Reads an attribute holding up to {@code max} enum values. */
    public int[] getEnums(int attribute, int type, int max) {
        LongPointer count = new LongPointer(1);
        IntPointer values = new IntPointer(max);
        if (cudnnBackendGetAttribute(handle, attribute, type, max, count, values) != 0) return new int[0];
        int[] out = new int[(int) Math.min(max, count.get())];
        values.get(out);
        return out;
    }

    /** Reads a descriptor-array attribute into fresh descriptors of the given type; returns how many were filled. */
    public static int getDescriptors(CudnnDescriptor owner, int attribute, CudnnDescriptor[] into) {
        long[] addresses = new long[into.length];
        for (int i = 0; i < into.length; i++) addresses[i] = into[i].address();
        LongPointer count = new LongPointer(1);
        int s = cudnnBackendGetAttribute(owner.handle, attribute, CUDNN_TYPE_BACKEND_DESCRIPTOR, into.length, count,
                new LongPointer(addresses));
        if (s != 0) {
            throw new CudaException("cuDNN " + owner.what + ": reading descriptors failed: " + Status.cudnnMessage(s));
        }
        return (int) count.get();
    }

    /** The number of elements an attribute holds (a count-only query). */
    public static long count(CudnnDescriptor owner, int attribute, int type) {
        LongPointer count = new LongPointer(1);
        int s = cudnnBackendGetAttribute(owner.handle, attribute, type, 0, count, (Pointer) null);
        if (s != 0) throw new CudaException("cuDNN " + owner.what + ": counting failed: " + Status.cudnnMessage(s));
        return count.get();
    }

    @Override
    public void close() {
        if (!destroyed) {
            destroyed = true;
            cudnnBackendDestroyDescriptor(handle);
        }
    }
}
