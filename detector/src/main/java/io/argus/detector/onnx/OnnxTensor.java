package io.argus.detector.onnx;

import io.argus.detector.onnx.proto.Onnx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * A tensor whose values are known at load: an initializer (weights), a {@code Constant}, or the output of a node
 * folded at load (the shape arithmetic exporters emit). Immutable. Values of a floating type are held as float
 * ({@link #floats()}; FLOAT16, BFLOAT16 and DOUBLE are converted), of an integer or boolean type as long
 * ({@link #longs()}), row-major.
 */
public final class OnnxTensor {
    private final String name;
    private final OnnxType type;
    private final long[] shape;
    private final float[] floats;
    private final long[] longs;

    private OnnxTensor(String name, OnnxType type, long[] shape, float[] floats, long[] longs) {
        this.name = name;
        this.type = type;
        this.shape = shape;
        this.floats = floats;
        this.longs = longs;
    }

    static OnnxTensor ofFloats(String name, OnnxType type, long[] shape, float[] values) {
        return new OnnxTensor(name, type, shape.clone(), values, null);
    }

    static OnnxTensor ofLongs(String name, OnnxType type, long[] shape, long[] values) {
        return new OnnxTensor(name, type, shape.clone(), null, values);
    }

    public String name() { return name; }

    public OnnxType type() { return type; }

    /** The dims (a copy); {@code []} for a scalar. */
    public long[] shape() { return shape.clone(); }

    public int size() { return floats != null ? floats.length : longs.length; }

    /** The values of a floating tensor, read-only. */
    public FloatBuffer floats() {
        if (floats == null) throw new IllegalStateException(name + " is " + type + ", not floating");
        return FloatBuffer.wrap(floats).asReadOnlyBuffer();
    }

    /** The values of an integer or boolean tensor (a copy). */
    public long[] longs() {
        if (longs == null) throw new IllegalStateException(name + " is " + type + ", not an integer type");
        return longs.clone();
    }

    /** Value i as a double, whatever the type (folding's arithmetic). */
    double value(int i) { return floats != null ? floats[i] : longs[i]; }

    /** Value i as a long (indices, shapes, axes); a floating value is truncated. */
    long longValue(int i) { return floats != null ? (long) floats[i] : longs[i]; }

    /** The same values under another name (Identity, Reshape and the like fold to this). */
    OnnxTensor renamed(String newName, long[] newShape) {
        return new OnnxTensor(newName, type, newShape.clone(), floats, longs);
    }

    @Override
    public String toString() {
        return name + " " + type + " " + Arrays.toString(shape);
    }

    /**
     * Reads a TensorProto: {@code raw_data} (fixed width, little-endian) when present, else the typed repeated field
     * of its type. Throws IllegalArgumentException (the caller names the file) for what it cannot read.
     */
    static OnnxTensor read(Onnx.TensorProto t, String name) {
        OnnxType type = OnnxType.of(t.getDataType());
        if (type == null || !type.numeric()) {
            throw new IllegalArgumentException("tensor '" + name + "' has data type " + describe(t.getDataType())
                    + ": expected a number or boolean type (FLOAT, FLOAT16, DOUBLE, INT8..INT64, UINT8..UINT64, BOOL)");
        }
        if (t.getDataLocation() == Onnx.TensorProto.DataLocation.EXTERNAL || t.getExternalDataCount() > 0) {
            throw new IllegalArgumentException("tensor '" + name + "' keeps its data in an external file: expected"
                    + " the data inside the model (save the model with onnx.save(model, path,"
                    + " save_as_external_data=False); files over 2 GB need external data and are not supported)");
        }
        long[] shape = t.getDimsList().stream().mapToLong(Long::longValue).toArray();
        long count = 1;
        for (long d : shape) {
            if (d < 0) throw new IllegalArgumentException("tensor '" + name + "' has dims " + Arrays.toString(shape));
            if (d != 0 && count > Integer.MAX_VALUE / d) {
                throw new IllegalArgumentException("tensor '" + name + "' has dims " + Arrays.toString(shape)
                        + ": more than 2^31 - 1 elements");
            }
            count *= d;
        }
        int n = (int) count;
        if (!t.getRawData().isEmpty()) {
            ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            if (raw.remaining() != (long) n * type.bytes) {
                throw new IllegalArgumentException("tensor '" + name + "' has " + raw.remaining() + " bytes of raw_data:"
                        + " expected " + (long) n * type.bytes + " (" + n + " x " + type + " of " + type.bytes + " bytes)");
            }
            return type.floating() ? ofFloats(name, type, shape, rawFloats(raw, type, n))
                    : ofLongs(name, type, shape, rawLongs(raw, type, n));
        }
        int found = switch (type) {
            case FLOAT -> t.getFloatDataCount();
            case DOUBLE -> t.getDoubleDataCount();
            case INT64 -> t.getInt64DataCount();
            case UINT32, UINT64 -> t.getUint64DataCount();
            default -> t.getInt32DataCount();
        };
        if (found != n) {
            throw new IllegalArgumentException("tensor '" + name + "' has " + found + " values: expected " + n
                    + " for dims " + Arrays.toString(shape));
        }
        if (type.floating()) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = switch (type) {
                    case FLOAT -> t.getFloatData(i);
                    case DOUBLE -> (float) t.getDoubleData(i);
                    case FLOAT16 -> Float.float16ToFloat((short) t.getInt32Data(i));
                    default -> Float.intBitsToFloat(t.getInt32Data(i) << 16); // BFLOAT16
                };
            }
            return ofFloats(name, type, shape, v);
        }
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = switch (type) {
                case INT64 -> t.getInt64Data(i);
                case UINT32, UINT64 -> t.getUint64Data(i);
                default -> t.getInt32Data(i);
            };
        }
        return ofLongs(name, type, shape, v);
    }

    private static float[] rawFloats(ByteBuffer raw, OnnxType type, int n) {
        float[] v = new float[n];
        switch (type) {
            case FLOAT -> raw.asFloatBuffer().get(v);
            case DOUBLE -> { for (int i = 0; i < n; i++) v[i] = (float) raw.getDouble(i * 8); }
            case FLOAT16 -> { for (int i = 0; i < n; i++) v[i] = Float.float16ToFloat(raw.getShort(i * 2)); }
            default -> { for (int i = 0; i < n; i++) v[i] = Float.intBitsToFloat((raw.getShort(i * 2) & 0xffff) << 16); }
        }
        return v;
    }

    private static long[] rawLongs(ByteBuffer raw, OnnxType type, int n) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = switch (type) {
                case INT8 -> raw.get(i);
                case UINT8, BOOL -> raw.get(i) & 0xff;
                case INT16 -> raw.getShort(i * 2);
                case UINT16 -> raw.getShort(i * 2) & 0xffff;
                case INT32 -> raw.getInt(i * 4);
                case UINT32 -> raw.getInt(i * 4) & 0xffffffffL;
                default -> raw.getLong(i * 8); // INT64, UINT64
            };
        }
        return v;
    }

    static String describe(int dataType) {
        OnnxType t = OnnxType.of(dataType);
        return t != null ? t.name() : dataType + " (" + (Onnx.TensorProto.DataType.forNumber(dataType) == null
                ? "unknown" : Onnx.TensorProto.DataType.forNumber(dataType).name()) + ")";
    }
}
