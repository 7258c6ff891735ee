package io.argus.detector.onnx;

import io.argus.detector.onnx.proto.Onnx;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One attribute of a node, by the kind ONNX gives it: a float, an int, a string, a tensor, or lists of floats, ints
 * or strings. Graph-valued attributes (If, Loop, Scan bodies) are kept as their kind only: no supported operator
 * has one.
 */
public record OnnxAttribute(String name, Onnx.AttributeProto.AttributeType kind, float f, long i, String s,
                            OnnxTensor t, float[] floats, long[] ints, List<String> strings) {
    public OnnxAttribute {
        floats = floats.clone();
        ints = ints.clone();
        strings = List.copyOf(strings);
    }

    @Override
    public float[] floats() { return floats.clone(); }

    @Override
    public long[] ints() { return ints.clone(); }

    static OnnxAttribute read(Onnx.AttributeProto a) {
        float[] floats = new float[a.getFloatsCount()];
        for (int k = 0; k < floats.length; k++) floats[k] = a.getFloats(k);
        long[] ints = a.getIntsList().stream().mapToLong(Long::longValue).toArray();
        List<String> strings = a.getStringsList().stream().map(b -> b.toString(StandardCharsets.UTF_8)).toList();
        OnnxTensor t = a.hasT() ? OnnxTensor.read(a.getT(), a.getT().getName().isEmpty() ? a.getName() : a.getT().getName()) : null;
        return new OnnxAttribute(a.getName(), a.getType(), a.getF(), a.getI(), a.getS().toString(StandardCharsets.UTF_8),
                t, floats, ints, strings);
    }
}
