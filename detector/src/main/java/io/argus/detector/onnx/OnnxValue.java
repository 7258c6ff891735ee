package io.argus.detector.onnx;

import java.util.Arrays;

/**
 * What the importer knows of one tensor of the graph after load: its element type and static shape, and its values
 * when they are known at load ({@link #constant()}: an initializer, a Constant, or a node folded at load), else null.
 *
 * <p>{@link #upperBound()} marks the tensors whose first dimension depends on the data (NonMaxSuppression's
 * selections and what is computed from them): their shape is the largest they can have.
 */
public record OnnxValue(String name, OnnxType type, long[] shape, boolean upperBound, OnnxTensor constant) {
    public OnnxValue {
        shape = shape.clone();
    }

    @Override
    public long[] shape() { return shape.clone(); }

    public int rank() { return shape.length; }

    public long elements() {
        long n = 1;
        for (long d : shape) n *= d;
        return n;
    }

    @Override
    public String toString() {
        return name + " " + type + " " + Arrays.toString(shape) + (upperBound ? " (at most)" : "")
                + (constant != null ? " constant" : "");
    }
}
