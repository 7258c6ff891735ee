package io.argus.detector.onnx;

/**
 * The element type of an ONNX tensor, by its {@code TensorProto.DataType} number. The importer computes constants
 * (folding) in two kinds only: floating types as float, integer and boolean types as long; {@link #floating()} says
 * which.
 */
public enum OnnxType {
    UNDEFINED(0, 0), FLOAT(1, 4), UINT8(2, 1), INT8(3, 1), UINT16(4, 2), INT16(5, 2), INT32(6, 4), INT64(7, 8),
    STRING(8, 0), BOOL(9, 1), FLOAT16(10, 2), DOUBLE(11, 8), UINT32(12, 4), UINT64(13, 8), COMPLEX64(14, 8),
    COMPLEX128(15, 16), BFLOAT16(16, 2);

    /** The DataType number in onnx.proto. */
    public final int number;
    /** Bytes per element in {@code raw_data}; 0 where the importer does not read the type. */
    public final int bytes;

    OnnxType(int number, int bytes) {
        this.number = number;
        this.bytes = bytes;
    }

    /** Whether constants of this type are computed as float (else as long). */
    public boolean floating() {
        return this == FLOAT || this == FLOAT16 || this == DOUBLE || this == BFLOAT16;
    }

    /** Whether the importer holds tensors of this type (numbers and booleans, not strings or complex numbers). */
    public boolean numeric() {
        return bytes > 0 && this != COMPLEX64 && this != COMPLEX128;
    }

    /** The type of a DataType number, or null for one newer than this list (float8, int4, ...). */
    public static OnnxType of(int number) {
        for (OnnxType t : values()) if (t.number == number) return t;
        return null;
    }
}
