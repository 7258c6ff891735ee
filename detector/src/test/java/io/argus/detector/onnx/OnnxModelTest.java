package io.argus.detector.onnx;

import static io.argus.detector.onnx.OnnxModels.floatData;
import static io.argus.detector.onnx.OnnxModels.model;
import static io.argus.detector.onnx.OnnxModels.node;
import static io.argus.detector.onnx.OnnxModels.ramp;
import static io.argus.detector.onnx.OnnxModels.rawFloats;
import static io.argus.detector.onnx.OnnxModels.tensor;
import static io.argus.detector.onnx.OnnxModels.tinyGraph;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.onnx.proto.Onnx;
import io.argus.testkit.Budget;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The importer's reading and validation on small models built here with the generated protobuf classes: shapes of a
 * tiny YOLO-like graph, folding of its shape sub-graph, both encodings of initializers, metadata, and the exact
 * message of each refusal (issue 35's acceptance: an unsupported operator, a truncated file, a dynamic input size).
 */
@Budget(seconds = 20)
class OnnxModelTest {
    @TempDir
    Path tmp;

    private static final Onnx.ValueInfoProto IMAGES = tensor("images", 1, 3, 32, 32);

    private Path write(String name, Onnx.ModelProto model) throws IOException {
        Path file = tmp.resolve(name);
        Files.write(file, model.toByteArray());
        return file;
    }

    private Path write(String name, byte[] bytes) throws IOException {
        Path file = tmp.resolve(name);
        Files.write(file, bytes);
        return file;
    }

    private static long[] shape(OnnxModel m, String tensor) { return m.value(tensor).shape(); }

    @Test
    void aTinyGraphReadsWithEveryShapeInferred() throws IOException {
        OnnxModel m = OnnxModel.read(write("tiny.onnx", model(17, tinyGraph(IMAGES))));
        assertEquals(17, m.opset());
        assertEquals("argus-test 1", m.producer());
        assertEquals(1, m.inputs().size());
        assertEquals("images", m.inputs().get(0).name());
        assertEquals(OnnxType.FLOAT, m.inputs().get(0).type());
        assertArrayEquals(new long[] {1, 3, 32, 32}, m.inputs().get(0).shape());
        assertArrayEquals(new long[] {1, 8, 16, 16}, shape(m, "c1"));
        assertArrayEquals(new long[] {1, 8, 16, 16}, shape(m, "a1"));
        assertArrayEquals(new long[] {1, 8, 32, 32}, shape(m, "u1"));
        assertArrayEquals(new long[] {1, 8, 32, 32}, shape(m, "c2"));
        assertArrayEquals(new long[] {1, 16, 32, 32}, shape(m, "features"));
        assertArrayEquals(new long[] {1, 16, 1024}, shape(m, "output"));
        assertArrayEquals(new long[] {1, 16, 1024}, m.outputs().get(0).shape());
        // the shape sub-graph folded: Shape -> Gather -> Unsqueeze -> Concat -> Cast is the constant [1, 16, -1]
        assertArrayEquals(new long[] {1, 16, 32, 32}, m.value("features_shape").constant().longs());
        assertArrayEquals(new long[0], shape(m, "batch"));
        assertArrayEquals(new long[] {1, 16, -1}, m.value("target").constant().longs());
        assertEquals(List.of("shape", "batch", "batch_1d", "target_parts", "target"),
                m.foldedNodes().stream().map(OnnxNode::name).toList());
        assertNull(m.value("output").constant());
        // every tensor has a static shape
        for (OnnxValue v : m.values().values()) {
            assertTrue(Arrays.stream(v.shape()).allMatch(d -> d >= 0), v.toString());
            assertTrue(!v.upperBound(), v.toString());
        }
        assertEquals(List.of("Conv", "Sigmoid", "Mul", "Resize", "Conv", "Concat", "Shape", "Gather", "Unsqueeze",
                "Concat", "Cast", "Reshape"), m.nodes().stream().map(OnnxNode::op).toList());
        OnnxNode conv = m.nodes().get(0);
        assertEquals(List.of("images", "w1", "b1"), conv.inputs());
        assertArrayEquals(new long[] {2, 2}, conv.attribute("strides").ints());
        assertEquals("nearest", m.nodes().get(3).attribute("mode").s());
    }

    @Test
    void aDynamicBatchIsBoundToTheBatchReadFor() throws IOException {
        Path file = write("batch.onnx", model(17, tinyGraph(tensor("images", "batch", 3, 32, 32)).toBuilder()
                .setOutput(0, tensor("output", "batch", 16, 1024)).build()));
        assertArrayEquals(new long[] {1, 16, 1024}, OnnxModel.read(file).outputs().get(0).shape());
        OnnxModel four = OnnxModel.read(file, 4);
        assertArrayEquals(new long[] {4, 3, 32, 32}, four.inputs().get(0).shape());
        assertArrayEquals(new long[] {4, 16, 1024}, four.outputs().get(0).shape());
        assertArrayEquals(new long[] {4, 16, -1}, four.value("target").constant().longs());
    }

    @Test
    void rawDataAndFloatDataInitializersReadAlike() throws IOException {
        float[] values = ramp(24);
        Onnx.GraphProto graph = tinyGraph(IMAGES).toBuilder()
                .addInitializer(rawFloats("raw", values, 2, 3, 4))
                .addInitializer(floatData("typed", values, 2, 3, 4))
                .build();
        OnnxModel m = OnnxModel.read(write("init.onnx", model(17, graph)));
        Map<String, OnnxTensor> byName = new java.util.HashMap<>();
        for (OnnxTensor t : m.initializers()) byName.put(t.name(), t);
        for (String name : List.of("raw", "typed")) {
            OnnxTensor t = byName.get(name);
            assertEquals(OnnxType.FLOAT, t.type());
            assertArrayEquals(new long[] {2, 3, 4}, t.shape());
            FloatBuffer b = t.floats();
            float[] read = new float[b.remaining()];
            b.get(read);
            assertArrayEquals(values, read, name);
        }
        assertArrayEquals(new long[] {16, -1}, byName.get("rest").longs());
        assertEquals(8 * 27, byName.get("w1").size());
    }

    @Test
    void metadataNamesAreParsed() throws IOException {
        Onnx.ModelProto m = model(17, tinyGraph(IMAGES)).toBuilder()
                .addMetadataProps(Onnx.StringStringEntryProto.newBuilder().setKey("stride").setValue("32"))
                .addMetadataProps(Onnx.StringStringEntryProto.newBuilder().setKey("names")
                        .setValue("{0: 'person', 1: 'bicycle', 2: \"teddy bear's\", 3: 'traffic light'}"))
                .build();
        OnnxModel read = OnnxModel.read(write("names.onnx", m));
        assertEquals(List.of("person", "bicycle", "teddy bear's", "traffic light"), read.names());
        assertEquals("32", read.metadata().get("stride"));
        assertEquals(List.of("a", "b"), OnnxClassNames.parse("{\"1\": \"b\", \"0\": \"a\"}"));
        assertEquals(List.of(), OnnxModel.read(write("plain.onnx", model(17, tinyGraph(IMAGES)))).names());
    }

    @Test
    void anUnsupportedOperatorIsRefusedWithTheSupportedList() throws IOException {
        Onnx.GraphProto graph = tinyGraph(IMAGES).toBuilder()
                .addNode(node("/model.22/grid", "GridSample", List.of("features", "features"), List.of("sampled"))).build();
        Path file = write("grid.onnx", model(17, graph));
        OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(file));
        assertEquals(file + ": node '/model.22/grid' (op GridSample, domain ai.onnx) is not supported; supported"
                + " (domain ai.onnx): Conv, BatchNormalization, MaxPool, AveragePool, GlobalAveragePool, MatMul, Gemm,"
                + " Sigmoid, Relu, LeakyRelu, Tanh, Softplus, HardSigmoid, HardSwish, Softmax, Clip, Add, Sub, Mul, Div,"
                + " Pow, Sqrt, Exp, Neg, Floor, Ceil, Min, Max, Equal, Where, Concat, Split, Slice, Resize, Reshape,"
                + " Transpose, Flatten, Unsqueeze, Squeeze, Expand, Tile, Pad, Gather, Identity, Cast, Shape, Constant,"
                + " ConstantOfShape, Range, ReduceMax, ArgMax, TopK, NonMaxSuppression", e.getMessage());

        Onnx.GraphProto custom = tinyGraph(IMAGES).toBuilder()
                .addNode(node("fused", "Sigmoid", List.of("features"), List.of("s")).toBuilder().setDomain("com.microsoft"))
                .build();
        Path customFile = write("custom.onnx", model(17, custom));
        OnnxModelException c = assertThrows(OnnxModelException.class, () -> OnnxModel.read(customFile));
        assertTrue(c.getMessage().startsWith(customFile + ": node 'fused' (op Sigmoid, domain com.microsoft) is not"
                + " supported; supported (domain ai.onnx): Conv, "), c.getMessage());
    }

    @Test
    void aTruncatedFileIsRefusedNamingTheFileAndProtobufsMessage() throws IOException {
        byte[] whole = model(17, tinyGraph(IMAGES)).toByteArray();
        Path file = write("half.onnx", Arrays.copyOf(whole, whole.length / 2));
        OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(file));
        assertEquals(file + ": not a readable ONNX model (" + whole.length / 2 + " bytes): protobuf says: While parsing"
                + " a protocol message, the input ended unexpectedly in the middle of a field.  This could mean either"
                + " that the input has been truncated or that an embedded message misreported its own length.",
                e.getMessage());
    }

    @Test
    void aFileThatIsNotOnnxIsRefused() throws IOException {
        Path text = write("notes.onnx", "[net]\nwidth=416\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(text));
        assertTrue(e.getMessage().startsWith(text + ": not a readable ONNX model (16 bytes): protobuf says: "), e.getMessage());

        Path empty = write("empty.onnx", new byte[0]);
        assertEquals(empty + ": not an ONNX model: expected a ModelProto with a graph and an opset_import, found no"
                + " graph and 0 opset imports", assertThrows(OnnxModelException.class, () -> OnnxModel.read(empty)).getMessage());
    }

    @Test
    void aDynamicInputSizeIsRefusedNamingTheDimension() throws IOException {
        Path file = write("dynamic.onnx", model(17, tinyGraph(tensor("images", "batch", 3, "height", "width"))));
        OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(file));
        assertEquals(file + ": input 'images' has a dynamic dimension 2 ('height'): expected a fixed size; export with"
                + " a fixed input size (Ultralytics: dynamic=False, imgsz=640; torch.onnx.export: no dynamic_axes but"
                + " the batch)", e.getMessage());
    }

    @Test
    void opsetsOutside11To21AreRefused() throws IOException {
        for (long opset : new long[] {10, 22}) {
            Path file = write("opset" + opset + ".onnx", model(opset, tinyGraph(IMAGES)));
            OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(file));
            assertEquals(file + ": opset " + opset + " is not supported: expected 11..21 (export again with"
                    + " opset_version=17, as Ultralytics does)", e.getMessage());
        }
        assertEquals(11, OnnxModel.read(write("opset11.onnx", model(11, opset11(tinyGraph(IMAGES))))).opset());
        assertEquals(21, OnnxModel.read(write("opset21.onnx", model(21, tinyGraph(IMAGES)))).opset());
    }

    /** Before opset 13 Unsqueeze takes its axes as an attribute. */
    private static Onnx.GraphProto opset11(Onnx.GraphProto g) {
        Onnx.GraphProto.Builder b = g.toBuilder();
        for (int k = 0; k < b.getNodeCount(); k++) {
            if (b.getNode(k).getOpType().equals("Unsqueeze")) {
                b.setNode(k, node("batch_1d", "Unsqueeze", List.of("batch"), List.of("batch_1d"), OnnxModels.ints("axes", 0)));
            }
        }
        return b.build();
    }

    @Test
    void aShapeThatCannotBeInferredIsRefusedNamingTheNode() throws IOException {
        // a Reshape whose target is computed at run time from the image's values, not from shapes
        Onnx.GraphProto graph = tinyGraph(IMAGES).toBuilder()
                .addNode(node("to_int", "Cast", List.of("images"), List.of("image_ints"), OnnxModels.integer("to", 7)))
                .addNode(node("/model/odd_reshape", "Reshape", List.of("features", "image_ints"), List.of("odd")))
                .build();
        Path file = write("odd.onnx", model(17, graph));
        OnnxModelException e = assertThrows(OnnxModelException.class, () -> OnnxModel.read(file));
        assertEquals(file + ": node '/model/odd_reshape' (Reshape): cannot infer its output shapes: input 1"
                + " ('image_ints') decides the output shape but is computed at run time: expected a constant or a"
                + " value computed from static shapes", e.getMessage());

        Onnx.GraphProto wrong = tinyGraph(IMAGES).toBuilder().setOutput(0, tensor("output", 1, 16, 1000)).build();
        Path wrongFile = write("wrong.onnx", model(17, wrong));
        assertEquals(wrongFile + ": output 'output' is declared [1, 16, 1000] but infers to [1, 16, 1024]",
                assertThrows(OnnxModelException.class, () -> OnnxModel.read(wrongFile)).getMessage());
    }

    @Test
    void constantsAndArithmeticFold() throws IOException {
        // Resize's sizes computed as exporters of a fixed scale do: Shape -> Slice(2:4) -> Cast(float) * 2 -> Cast(int64)
        Onnx.GraphProto graph = tinyGraph(IMAGES).toBuilder()
                .addNode(node("hw", "Constant", List.of(), List.of("two"), OnnxModels.tensorAttribute("value",
                        floatData("", new float[] {2f}, 1))))
                .addNode(node("s", "Shape", List.of("features"), List.of("fs")))
                .addInitializer(OnnxModels.longs("begin", 2)).addInitializer(OnnxModels.longs("end", 4))
                .addNode(node("sl", "Slice", List.of("fs", "begin", "end"), List.of("hw_in")))
                .addNode(node("f", "Cast", List.of("hw_in"), List.of("hw_f"), OnnxModels.integer("to", 1)))
                .addNode(node("m", "Mul", List.of("hw_f", "two"), List.of("hw2_f")))
                .addNode(node("i", "Cast", List.of("hw2_f"), List.of("hw2"), OnnxModels.integer("to", 7)))
                .addInitializer(OnnxModels.longs("nc", 1, 16))
                .addNode(node("sizes", "Concat", List.of("nc", "hw2"), List.of("sizes"), OnnxModels.integer("axis", 0)))
                .addNode(node("big", "Resize", List.of("features", "", "", "sizes"), List.of("big")))
                .build();
        OnnxModel m = OnnxModel.read(write("fold.onnx", model(17, graph)));
        assertArrayEquals(new long[] {64, 64}, m.value("hw2").constant().longs());
        assertArrayEquals(new long[] {1, 16, 64, 64}, m.value("sizes").constant().longs());
        assertArrayEquals(new long[] {1, 16, 64, 64}, shape(m, "big"));
        assertNotNull(m.value("two").constant());
    }
}
