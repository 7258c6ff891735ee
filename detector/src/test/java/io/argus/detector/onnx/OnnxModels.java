package io.argus.detector.onnx;

import com.google.protobuf.ByteString;
import io.argus.detector.onnx.proto.Onnx;
import io.argus.detector.onnx.proto.Onnx.AttributeProto.AttributeType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/** Small ONNX models for the importer's tests, built with the classes generated from our onnx.proto. */
final class OnnxModels {
    private OnnxModels() {}

    static Onnx.ValueInfoProto tensor(String name, Object... dims) {
        Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
        for (Object d : dims) {
            Onnx.TensorShapeProto.Dimension.Builder dim = Onnx.TensorShapeProto.Dimension.newBuilder();
            if (d instanceof String s) dim.setDimParam(s);
            else dim.setDimValue(((Number) d).longValue());
            shape.addDim(dim);
        }
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder().setTensorType(
                Onnx.TypeProto.Tensor.newBuilder().setElemType(Onnx.TensorProto.DataType.FLOAT_VALUE).setShape(shape))).build();
    }

    static Onnx.NodeProto node(String name, String op, List<String> inputs, List<String> outputs, Onnx.AttributeProto... attributes) {
        return Onnx.NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(inputs).addAllOutput(outputs)
                .addAllAttribute(List.of(attributes)).build();
    }

    static Onnx.AttributeProto ints(String name, long... values) {
        Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name).setType(AttributeType.INTS);
        for (long v : values) a.addInts(v);
        return a.build();
    }

    static Onnx.AttributeProto integer(String name, long value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(AttributeType.INT).setI(value).build();
    }

    static Onnx.AttributeProto string(String name, String value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(AttributeType.STRING).setS(ByteString.copyFromUtf8(value)).build();
    }

    static Onnx.AttributeProto tensorAttribute(String name, Onnx.TensorProto t) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(AttributeType.TENSOR).setT(t).build();
    }

    /** FLOAT values in raw_data, little-endian. */
    static Onnx.TensorProto rawFloats(String name, float[] values, long... dims) {
        ByteBuffer raw = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        raw.asFloatBuffer().put(values);
        return Onnx.TensorProto.newBuilder().setName(name).setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE)
                .addAllDims(boxed(dims)).setRawData(ByteString.copyFrom(raw.array())).build();
    }

    /** FLOAT values in float_data. */
    static Onnx.TensorProto floatData(String name, float[] values, long... dims) {
        Onnx.TensorProto.Builder t = Onnx.TensorProto.newBuilder().setName(name)
                .setDataType(Onnx.TensorProto.DataType.FLOAT_VALUE).addAllDims(boxed(dims));
        for (float v : values) t.addFloatData(v);
        return t.build();
    }

    /** INT64 values in int64_data, one dimension. */
    static Onnx.TensorProto longs(String name, long... values) {
        return Onnx.TensorProto.newBuilder().setName(name).setDataType(Onnx.TensorProto.DataType.INT64_VALUE)
                .addDims(values.length).addAllInt64Data(boxed(values)).build();
    }

    static List<Long> boxed(long... values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    static float[] ramp(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (i % 17 - 8) / 16f;
        return v;
    }

    static Onnx.ModelProto model(long opset, Onnx.GraphProto graph) {
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setProducerName("argus-test").setProducerVersion("1")
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).setGraph(graph).build();
    }

    /**
     * A tiny YOLO-like graph on images [1, 3, 32, 32]: Conv (stride 2) -> x * Sigmoid(x) -> Resize x2 -> Concat with a
     * second Conv of the input -> Reshape to [1, 16, -1], its target computed as exporters do from Shape -> Gather ->
     * Unsqueeze -> Concat -> Cast.
     */
    static Onnx.GraphProto tinyGraph(Onnx.ValueInfoProto input) {
        return Onnx.GraphProto.newBuilder().setName("tiny")
                .addInput(input)
                .addInitializer(rawFloats("w1", ramp(8 * 3 * 3 * 3), 8, 3, 3, 3))
                .addInitializer(floatData("b1", ramp(8), 8))
                .addInitializer(rawFloats("w2", ramp(8 * 3), 8, 3, 1, 1))
                .addInitializer(floatData("scales", new float[] {1, 1, 2, 2}, 4))
                .addInitializer(Onnx.TensorProto.newBuilder().setName("gather_index")
                        .setDataType(Onnx.TensorProto.DataType.INT64_VALUE).addInt64Data(0)) // a scalar
                .addInitializer(longs("axes0", 0))
                .addInitializer(longs("rest", 16, -1))
                .addNode(node("conv1", "Conv", List.of("images", "w1", "b1"), List.of("c1"),
                        ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1)))
                .addNode(node("sigmoid", "Sigmoid", List.of("c1"), List.of("s1")))
                .addNode(node("silu", "Mul", List.of("c1", "s1"), List.of("a1")))
                .addNode(node("up", "Resize", List.of("a1", "", "scales"), List.of("u1"),
                        string("mode", "nearest"), string("coordinate_transformation_mode", "asymmetric")))
                .addNode(node("conv2", "Conv", List.of("images", "w2"), List.of("c2"), ints("kernel_shape", 1, 1)))
                .addNode(node("cat", "Concat", List.of("u1", "c2"), List.of("features"), integer("axis", 1)))
                .addNode(node("shape", "Shape", List.of("features"), List.of("features_shape")))
                .addNode(node("batch", "Gather", List.of("features_shape", "gather_index"), List.of("batch"), integer("axis", 0)))
                .addNode(node("batch_1d", "Unsqueeze", List.of("batch", "axes0"), List.of("batch_1d")))
                .addNode(node("target_parts", "Concat", List.of("batch_1d", "rest"), List.of("target_parts"), integer("axis", 0)))
                .addNode(node("target", "Cast", List.of("target_parts"), List.of("target"), integer("to", 7)))
                .addNode(node("flat", "Reshape", List.of("features", "target"), List.of("output")))
                .addOutput(tensor("output", 1, 16, 1024))
                .build();
    }
}
