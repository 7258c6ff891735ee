package io.argus.detector.onnx;

import static io.argus.detector.onnx.OnnxModels.boxed;
import static io.argus.detector.onnx.OnnxModels.integer;
import static io.argus.detector.onnx.OnnxModels.ints;
import static io.argus.detector.onnx.OnnxModels.model;
import static io.argus.detector.onnx.OnnxModels.node;
import static io.argus.detector.onnx.OnnxModels.rawFloats;
import static io.argus.detector.onnx.OnnxModels.string;
import static io.argus.detector.onnx.OnnxModels.tensor;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.onnx.OnnxInterpreter.Tensor;
import io.argus.detector.onnx.proto.Onnx;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host interpreter against ONNX Runtime (onnxruntime-node, an independent implementation), not against a second
 * implementation of our own: each test builds one graph with one input x [1, 8, 6, 10] and many branches from it, one
 * operator or a short chain each (the decode arithmetic of YOLO heads, DFL, attention, Focus slicing, NMS), every
 * branch a graph output; both run it on the same random input and every output must agree: the shape exactly, the
 * values within 1e-5 relative L2, index-valued outputs (ArgMax, TopK's indices, NonMaxSuppression, Shape, integer
 * arithmetic) exactly. One graph per opset family, since attributes turn into inputs at 13 and 18: few ONNX Runtime
 * runs (each starts Node.js). ONNX Runtime is installed by scripts/test.sh; without it these tests fail, saying how
 * to install it, rather than skipping.
 */
@Budget(seconds = 5)
class OnnxInterpreterTest {
    @TempDir
    Path tmp;

    private static final long[] X = {1, 8, 6, 10};
    private static final long INT64_MAX = Long.MAX_VALUE, INT64_MIN = Long.MIN_VALUE;

    /** A graph under construction: the input x, initializers with random values, and branches ending in outputs. */
    private static final class Branches {
        final Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("branches").addInput(tensor("x", 1, 8, 6, 10));
        final Random random;
        final Set<String> exact = new HashSet<>();
        /** Outputs whose last dimension is a set: compared in sorted order. */
        final Set<String> unordered = new HashSet<>();
        private int next;

        Branches(long seed) {
            random = new Random(seed);
        }

        private String name(String prefix) { return prefix + "_" + next++; }

        /** A FLOAT initializer of random values, N(0, 1). */
        String randoms(long... dims) {
            float[] v = new float[OnnxInterpreter.count(dims)];
            for (int i = 0; i < v.length; i++) v[i] = (float) random.nextGaussian();
            return floats(v, dims);
        }

        String floats(float[] values, long... dims) {
            String name = name("c");
            graph.addInitializer(rawFloats(name, values, dims));
            return name;
        }

        String scalar(float value) { return floats(new float[] {value}); }

        /** An INT64 initializer of the given dims ({} for a scalar). */
        String int64(long[] values, long... dims) {
            String name = name("i");
            graph.addInitializer(Onnx.TensorProto.newBuilder().setName(name).setDataType(Onnx.TensorProto.DataType.INT64_VALUE)
                    .addAllDims(boxed(dims)).addAllInt64Data(boxed(values)));
            return name;
        }

        String int64s(long... values) { return int64(values, values.length); }

        String op(String op, List<String> inputs, Onnx.AttributeProto... attributes) {
            return ops(op, 1, inputs, attributes).get(0);
        }

        List<String> ops(String op, int outputs, List<String> inputs, Onnx.AttributeProto... attributes) {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < outputs; i++) names.add(name(op));
            graph.addNode(node(name(op + "_node"), op, inputs, names, attributes));
            return names;
        }

        /** A FLOAT graph output, compared within 1e-5 relative L2. */
        void out(String name) {
            graph.addOutput(output(name, Onnx.TensorProto.DataType.FLOAT_VALUE));
        }

        /** An INT64 graph output, compared exactly. */
        void exactOut(String name) {
            graph.addOutput(output(name, Onnx.TensorProto.DataType.INT64_VALUE));
            exact.add(name);
        }

        /** A FLOAT graph output of integral values (Floor, Equal, integer arithmetic cast back), compared exactly. */
        void exactFloatOut(String name) {
            out(name);
            exact.add(name);
        }

        private static Onnx.ValueInfoProto output(String name, int type) {
            // no shape: ONNX Runtime's and ours are compared, and NonMaxSuppression's first dimension is the data's
            return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                    .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(type))).build();
        }
    }

    private static Onnx.AttributeProto floatAttribute(String name, float value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT).setF(value).build();
    }

    static OnnxRuntimeNode runtime() {
        OnnxRuntimeNode ort = new OnnxRuntimeNode(ProjectFiles.root().resolve("scripts/onnxruntime"));
        assertNull(ort.unavailable(), "ONNX Runtime peer");
        return ort;
    }

    /**
     * Writes the model, runs it here (twice with one interpreter: the second run, on cached preparation, must give the
     * same) and in ONNX Runtime on one random input, and compares every output. Returns ours by name.
     */
    private Map<String, Tensor> compareWithOnnxRuntime(String name, long opset, Branches b) throws Exception {
        Path file = tmp.resolve(name + ".onnx");
        // IR 10 from opset 19 on (ONNX Runtime checks the pair)
        Files.write(file, model(opset, b.graph.build()).toBuilder().setIrVersion(opset > 18 ? 10 : 8).build().toByteArray());
        OnnxModel m = OnnxModel.read(file);
        float[] input = new float[OnnxInterpreter.count(X)];
        Random random = new Random(name.hashCode());
        for (int i = 0; i < input.length; i++) input[i] = (float) random.nextGaussian();

        OnnxInterpreter interpreter = new OnnxInterpreter(m);
        Map<String, Tensor> env = new HashMap<>(Map.of("x", new Tensor(X, input)));
        long t0 = System.nanoTime();
        interpreter.run(m.nodes(), env);
        long t1 = System.nanoTime();
        Map<String, Tensor> again = new HashMap<>(Map.of("x", new Tensor(X, input)));
        interpreter.run(m.nodes(), again);
        long t2 = System.nanoTime();
        OnnxRuntimeNode.Result theirs = runtime().run(file, FloatBuffer.wrap(input), 1, 8, 6, 10, 1, 0);

        List<Executable> checks = new ArrayList<>();
        // every tensor computed has the shape inferred at load (NonMaxSuppression's and what follows: at most that)
        for (OnnxValue v : m.values().values()) {
            Tensor t = env.get(v.name());
            if (t == null || v.upperBound()) continue;
            checks.add(() -> assertArrayEquals(v.shape(), t.shape(), name + ": " + v.name() + " against its inferred shape"));
        }
        double worst = 0;
        for (OnnxValue out : m.outputs()) {
            String o = out.name();
            Tensor mine = env.get(o);
            long[] dims = theirs.dims().get(o);
            float[] values = theirs.outputs().get(o);
            float[] ours = b.unordered.contains(o) ? sortedRows(mine.data(), (int) mine.shape()[mine.rank() - 1]) : mine.data();
            if (b.unordered.contains(o)) values = sortedRows(values, (int) dims[dims.length - 1]);
            float[] reference = values;
            String what = name + " output " + o + " (" + producer(m, o) + ")";
            checks.add(() -> assertArrayEquals(mine.data(), again.get(o).data(), what + ": the second run differs"));
            if (!Arrays.equals(dims, mine.shape())) {
                checks.add(() -> assertArrayEquals(dims, mine.shape(), what + ": shape"));
            } else if (b.exact.contains(o)) {
                checks.add(() -> assertArrayEquals(reference, ours, what));
            } else {
                double err = relativeL2(ours, reference);
                worst = Math.max(worst, err);
                checks.add(() -> assertTrue(err <= 1e-5, what + ": relative L2 " + err + " > 1e-5"));
            }
        }
        System.out.printf(Locale.ROOT, "%s: %d outputs of %d nodes, worst relative L2 %.2e; first run %.1f ms, second %.1f ms%n",
                name, m.outputs().size(), m.nodes().size(), worst, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
        assertAll(name, checks);
        return env;
    }

    private static float[] sortedRows(float[] values, int row) {
        float[] sorted = values.clone();
        for (int at = 0; at < sorted.length; at += row) Arrays.sort(sorted, at, at + row);
        return sorted;
    }

    /** The chain of ops that computed an output, for the message. */
    private static String producer(OnnxModel m, String output) {
        List<String> chain = new ArrayList<>();
        String at = output;
        for (int guard = 0; guard < 8; guard++) {
            String current = at;
            OnnxNode n = m.nodes().stream().filter(x -> x.outputs().contains(current)).findFirst().orElse(null);
            if (n == null) break;
            chain.add(0, n.op());
            at = n.inputs().isEmpty() ? "" : n.inputs().get(0);
        }
        return String.join(" -> ", chain);
    }

    private static double relativeL2(float[] mine, float[] reference) {
        double diff = 0, norm = 0;
        for (int i = 0; i < mine.length; i++) {
            double d = mine[i] - reference[i];
            diff += d * d;
            norm += (double) reference[i] * reference[i];
        }
        return norm == 0 ? Math.sqrt(diff) : Math.sqrt(diff / norm);
    }

    /** Opset 17 (Ultralytics' default): every operator, the attribute variants that matter. */
    @Test
    void everyOperatorAgreesWithOnnxRuntimeAtOpset17() throws Exception {
        Branches b = new Branches(17);
        String x = "x";
        // activations and other unary operators
        for (String op : List.of("Sigmoid", "Relu", "Tanh", "Softplus", "Exp", "Neg", "Identity")) b.out(b.op(op, List.of(x)));
        String x3 = b.op("Mul", List.of(x, b.scalar(3)));
        b.out(b.op("LeakyRelu", List.of(x), floatAttribute("alpha", 0.2f)));
        b.out(b.op("HardSigmoid", List.of(x), floatAttribute("alpha", 0.3f), floatAttribute("beta", 0.4f)));
        b.out(b.op("HardSwish", List.of(x3)));
        b.out(b.op("Sqrt", List.of(b.op("Relu", List.of(x)))));
        b.exactFloatOut(b.op("Floor", List.of(x3)));
        b.exactFloatOut(b.op("Ceil", List.of(x3)));
        b.out(b.op("Clip", List.of(x, b.scalar(-0.5f), b.scalar(0.7f))));
        b.out(b.op("Clip", List.of(x, "", b.scalar(0.3f))));
        b.out(b.op("Clip", List.of(x)));
        // arithmetic with numpy broadcasting: per channel, per column, a scalar, from the left, growing both ways
        b.out(b.op("Add", List.of(x, b.randoms(8, 1, 1))));
        b.out(b.op("Sub", List.of(b.randoms(10), x)));
        b.out(b.op("Mul", List.of(x, b.randoms(1, 8, 6, 1))));
        b.out(b.op("Div", List.of(x, b.scalar(1.7f))));
        b.out(b.op("Div", List.of(b.randoms(6, 1), b.op("Add", List.of(b.op("Sigmoid", List.of(x)), b.scalar(0.1f))))));
        b.out(b.op("Add", List.of(b.randoms(2, 1, 1, 1, 10), b.randoms(3, 1, 1))));
        b.out(b.op("Pow", List.of(b.op("Sigmoid", List.of(x)), b.randoms(1, 1, 1, 10))));
        b.out(b.op("Pow", List.of(x, b.scalar(2))));
        b.out(b.op("Min", List.of(x, b.randoms(6, 1), b.randoms(1, 10))));
        b.out(b.op("Max", List.of(x, b.randoms(8, 1, 1))));
        b.out(b.op("Max", List.of(x)));
        String floor2 = b.op("Floor", List.of(b.op("Mul", List.of(x, b.scalar(2)))));
        String equal = b.op("Equal", List.of(floor2, b.floats(new float[] {-1, 0, 1, 0, -1, 2, 0, 1, 0, -2}, 10)));
        b.exactFloatOut(b.op("Cast", List.of(equal), integer("to", 1)));
        b.out(b.op("Where", List.of(equal, x, b.randoms(6, 1))));
        // integer arithmetic: Cast truncates toward zero, Div of integers too
        String ints = b.op("Cast", List.of(b.op("Mul", List.of(x, b.scalar(10)))), integer("to", 7));
        b.exactOut(ints);
        b.exactOut(b.op("Div", List.of(ints, b.int64(new long[] {3}))));
        String columns = b.int64(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 10);
        b.exactOut(b.op("Add", List.of(b.op("Mul", List.of(ints, b.int64(new long[] {-2}))), columns)));
        b.exactFloatOut(b.op("Cast", List.of(b.op("Cast", List.of(floor2), integer("to", 9))), integer("to", 1)));
        b.exactFloatOut(b.op("Cast", List.of(b.op("Cast", List.of(x3), integer("to", 6))), integer("to", 1)));
        // Softmax over one axis, from opset 13
        b.out(b.op("Softmax", List.of(x)));
        b.out(b.op("Softmax", List.of(x3), integer("axis", 1)));
        b.out(b.op("Softmax", List.of(x), integer("axis", -2)));
        // layout
        b.out(b.op("Concat", List.of(x, b.op("Sigmoid", List.of(x))), integer("axis", 1)));
        b.out(b.op("Concat", List.of(x, b.randoms(1, 8, 6, 3), x), integer("axis", -1)));
        for (String part : b.ops("Split", 2, List.of(x, b.int64s(3, 5)), integer("axis", 1))) b.out(part);
        for (String part : b.ops("Split", 2, List.of(x), integer("axis", 3))) b.out(part);
        b.out(b.op("Slice", List.of(x, b.int64s(1, -1, 2), b.int64s(7, INT64_MIN, -1), b.int64s(1, -1, 2), b.int64s(2, -1, 1))));
        b.out(b.op("Slice", List.of(x, b.int64s(-2, 6), b.int64s(INT64_MIN, 0), b.int64s(3, 1), b.int64s(-3, -2))));
        b.out(b.op("Slice", List.of(x, b.int64s(-100, 20), b.int64s(100, 5), b.int64s(2, 3), b.int64s(1, -1))));
        b.out(b.op("Slice", List.of(x, b.int64s(0, 2), b.int64s(4, 9))));
        b.out(b.op("Reshape", List.of(x, b.int64s(0, -1, 10))));
        b.out(b.op("Reshape", List.of(x, b.int64s(2, 0, 3, 2, 5))));
        b.out(b.op("Flatten", List.of(x), integer("axis", 2)));
        b.out(b.op("Flatten", List.of(x)));
        String unsqueezed = b.op("Unsqueeze", List.of(x, b.int64s(0, -1)));
        b.out(unsqueezed);
        b.out(b.op("Squeeze", List.of(unsqueezed, b.int64s(0, 5))));
        b.out(b.op("Squeeze", List.of(x)));
        b.out(b.op("Transpose", List.of(x), ints("perm", 0, 2, 3, 1)));
        b.out(b.op("Transpose", List.of(x)));
        b.out(b.op("Gather", List.of(x, b.int64(new long[] {0, -1, 3, 2, 7, -8}, 2, 3)), integer("axis", 1)));
        b.out(b.op("Gather", List.of(x, b.int64(new long[] {-2})), integer("axis", 3)));
        b.out(b.op("Gather", List.of(x, b.int64s(0, 0)), integer("axis", 0)));
        String rowMax = b.op("ReduceMax", List.of(x), ints("axes", 3));
        b.out(b.op("Expand", List.of(rowMax, b.int64s(2, 1, 1, 1, 10))));
        b.out(b.op("Expand", List.of(b.randoms(6, 1), b.int64s(1, 8, 1, 1))));
        b.out(b.op("Tile", List.of(x, b.int64s(1, 2, 1, 3))));
        b.out(b.op("Tile", List.of(b.randoms(2, 3), b.int64s(3, 2))));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 0, 1, 2, 0, 1, 0, 3), b.scalar(0.5f))));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 0, 2, 1, 0, 0, 1, 2)), string("mode", "reflect")));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 0, 3, 1, 0, 0, 1, 4)), string("mode", "edge")));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 0, -1, 1, 0, -2, 2, -2))));
        // convolution: groups, stride 2 with asymmetric pads and bias; dilation; depthwise SAME_UPPER; SAME_LOWER
        // with an even kernel; VALID with unequal strides; 1x1
        b.out(b.op("Conv", List.of(x, b.randoms(6, 4, 3, 3), b.randoms(6)), integer("group", 2), ints("strides", 2, 2),
                ints("pads", 1, 0, 2, 1), ints("kernel_shape", 3, 3)));
        b.out(b.op("Conv", List.of(x, b.randoms(5, 8, 3, 3)), ints("dilations", 2, 2), ints("pads", 2, 2, 2, 2)));
        b.out(b.op("Conv", List.of(x, b.randoms(8, 1, 3, 3), b.randoms(8)), integer("group", 8), ints("strides", 2, 2),
                string("auto_pad", "SAME_UPPER")));
        b.out(b.op("Conv", List.of(x, b.randoms(4, 8, 2, 2)), string("auto_pad", "SAME_LOWER")));
        b.out(b.op("Conv", List.of(x, b.randoms(3, 8, 1, 3)), ints("strides", 1, 2), string("auto_pad", "VALID")));
        b.out(b.op("Conv", List.of(x, b.randoms(16, 8, 1, 1), b.randoms(16))));
        // pools
        b.out(b.op("MaxPool", List.of(x), ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1),
                integer("ceil_mode", 1)));
        b.out(b.op("MaxPool", List.of(x), ints("kernel_shape", 2, 2), ints("strides", 2, 2)));
        b.out(b.op("MaxPool", List.of(x), ints("kernel_shape", 5, 5), ints("pads", 2, 2, 2, 2)));
        b.out(b.op("MaxPool", List.of(x), ints("kernel_shape", 2, 2), ints("dilations", 2, 2), ints("strides", 1, 2)));
        b.out(b.op("AveragePool", List.of(x), ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1),
                integer("count_include_pad", 1)));
        b.out(b.op("AveragePool", List.of(x), ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 0, 0, 1, 1),
                integer("ceil_mode", 1)));
        b.out(b.op("AveragePool", List.of(x), ints("kernel_shape", 2, 3), ints("pads", 1, 1, 0, 1)));
        b.out(b.op("AveragePool", List.of(x), ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1),
                integer("ceil_mode", 1), integer("count_include_pad", 1)));
        b.out(b.op("GlobalAveragePool", List.of(x)));
        String variance = b.op("Add", List.of(b.op("Exp", List.of(b.randoms(8))), b.scalar(0.1f)));
        b.out(b.op("BatchNormalization", List.of(x, b.randoms(8), b.randoms(8), b.randoms(8), variance),
                floatAttribute("epsilon", 1e-3f)));
        // Resize: nearest with its coordinate and rounding modes; bilinear; scales or sizes
        b.out(b.op("Resize", List.of(x, "", b.floats(new float[] {1, 1, 2, 2}, 4)), string("mode", "nearest"),
                string("coordinate_transformation_mode", "asymmetric"), string("nearest_mode", "floor")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(1, 8, 9, 15)), string("mode", "nearest")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(1, 8, 4, 7)), string("mode", "nearest"),
                string("coordinate_transformation_mode", "align_corners"), string("nearest_mode", "round_prefer_ceil")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(1, 8, 11, 1)), string("mode", "nearest"),
                string("coordinate_transformation_mode", "pytorch_half_pixel"), string("nearest_mode", "ceil")));
        b.out(b.op("Resize", List.of(x, "", b.floats(new float[] {1, 1, 2, 2}, 4)), string("mode", "linear")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(1, 8, 13, 1)), string("mode", "linear"),
                string("coordinate_transformation_mode", "pytorch_half_pixel")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(1, 8, 11, 17)), string("mode", "linear"),
                string("coordinate_transformation_mode", "align_corners")));
        b.out(b.op("Resize", List.of(x, "", b.floats(new float[] {1, 1, 0.5f, 0.75f}, 4)), string("mode", "linear"),
                string("coordinate_transformation_mode", "asymmetric")));
        // products
        b.out(b.op("MatMul", List.of(x, b.randoms(10, 5))));
        b.out(b.op("MatMul", List.of(b.op("Reshape", List.of(x, b.int64s(2, 4, 6, 10))), b.randoms(4, 10, 3))));
        b.out(b.op("MatMul", List.of(x, b.randoms(10))));
        b.out(b.op("MatMul", List.of(b.randoms(6), x)));
        b.out(b.op("Gemm", List.of(b.op("Reshape", List.of(x, b.int64s(48, 10))), b.randoms(5, 10), b.randoms(5)),
                integer("transB", 1), floatAttribute("alpha", 0.5f), floatAttribute("beta", 2f)));
        b.out(b.op("Gemm", List.of(b.op("Reshape", List.of(x, b.int64s(10, 48))), b.randoms(10, 7), b.randoms(48, 1)),
                integer("transA", 1)));
        // heads: reductions, indices, top k
        b.out(rowMax);
        b.out(b.op("ReduceMax", List.of(x), ints("axes", 1, -1), integer("keepdims", 0)));
        b.out(b.op("ReduceMax", List.of(x)));
        b.exactOut(b.op("ArgMax", List.of(x), integer("axis", 1)));
        b.exactOut(b.op("ArgMax", List.of(floor2), integer("axis", -1), integer("keepdims", 0), integer("select_last_index", 1)));
        b.exactOut(b.op("ArgMax", List.of(floor2), integer("axis", 2)));
        List<String> top = b.ops("TopK", 2, List.of(x, b.int64s(3)));
        b.out(top.get(0));
        b.exactOut(top.get(1));
        List<String> bottom = b.ops("TopK", 2, List.of(x, b.int64s(2)), integer("axis", 1), integer("largest", 0));
        b.out(bottom.get(0));
        b.exactOut(bottom.get(1));
        List<String> ties = b.ops("TopK", 2, List.of(floor2, b.int64s(4)));
        b.exactFloatOut(ties.get(0));
        b.exactOut(ties.get(1));
        // shapes and constants, folded at load but run all the same
        b.exactOut(b.op("Shape", List.of(x), integer("start", 1), integer("end", -1)));
        b.exactOut(b.op("Shape", List.of(b.op("Transpose", List.of(x)))));
        b.out(b.op("Constant", List.of(), OnnxModels.tensorAttribute("value",
                rawFloats("", new float[] {1, 2, 3, 4, 5, 6}, 2, 3))));
        b.exactOut(b.op("Constant", List.of(), ints("value_ints", 3, -1, 4)));
        b.out(b.op("Add", List.of(x, b.op("ConstantOfShape", List.of(b.int64s(1, 10)), OnnxModels.tensorAttribute("value",
                rawFloats("", new float[] {0.25f}, 1))))));
        b.out(b.op("ConstantOfShape", List.of(b.int64s(2, 3))));
        b.exactOut(b.op("Range", List.of(b.int64(new long[] {2}), b.int64(new long[] {-9}), b.int64(new long[] {-3}))));
        b.out(b.op("Mul", List.of(x, b.op("Range", List.of(b.scalar(0.5f), b.scalar(3.4f), b.scalar(0.3f))))));
        compareWithOnnxRuntime("opset17", 17, b);
    }

    /** Opset 11: Softmax over the input coerced to 2-D; Split, Squeeze, Unsqueeze and ReduceMax by attribute. */
    @Test
    void theAttributeFormsAgreeWithOnnxRuntimeAtOpset11() throws Exception {
        Branches b = new Branches(11);
        String x = "x";
        b.out(b.op("Softmax", List.of(x)));
        b.out(b.op("Softmax", List.of(x), integer("axis", 2)));
        b.out(b.op("Softmax", List.of(x), integer("axis", -1)));
        for (String part : b.ops("Split", 3, List.of(x), ints("split", 2, 5, 1), integer("axis", 1))) b.out(part);
        for (String part : b.ops("Split", 2, List.of(x), integer("axis", -2))) b.out(part);
        String unsqueezed = b.op("Unsqueeze", List.of(x), ints("axes", 2, 0));
        b.out(unsqueezed);
        b.out(b.op("Squeeze", List.of(unsqueezed), ints("axes", 0, 2)));
        b.out(b.op("ReduceMax", List.of(x), ints("axes", 2), integer("keepdims", 0)));
        b.out(b.op("Clip", List.of(x, b.scalar(-0.2f), b.scalar(0.9f))));
        // Resize at 11 takes roi and scales even when sizes decide
        String noRoi = b.floats(new float[0], 0), noScales = b.floats(new float[0], 0);
        b.out(b.op("Resize", List.of(x, noRoi, b.floats(new float[] {1, 1, 2, 2}, 4)), string("mode", "nearest"),
                string("coordinate_transformation_mode", "asymmetric"), string("nearest_mode", "floor")));
        b.out(b.op("Resize", List.of(x, noRoi, noScales, b.int64s(1, 8, 12, 15)), string("mode", "linear"),
                string("coordinate_transformation_mode", "half_pixel")));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 1, 2, 0, 0, 0, 1, 3), b.scalar(-1))));
        List<String> top = b.ops("TopK", 2, List.of(x, b.int64s(5)), integer("axis", 3));
        b.out(top.get(0));
        b.exactOut(top.get(1));
        b.exactOut(b.op("ArgMax", List.of(x), integer("axis", 3), integer("keepdims", 0)));
        b.out(b.op("Gather", List.of(x, b.int64(new long[] {1})), integer("axis", 2)));
        compareWithOnnxRuntime("opset11", 11, b);
    }

    /**
     * Opset 21, the highest supported, and what YOLO heads run on the host: DFL (Reshape, Transpose, Softmax, a 1x1
     * Conv of the bin values), the decode arithmetic with constant grids, YOLO11's attention, YOLOX's Focus slicing,
     * and NonMaxSuppression (both box encodings) with what is computed from its selections, whose shapes are the
     * data's; and the inputs that were attributes until 18 (Split's num_outputs, ReduceMax's axes, Pad's axes,
     * Resize's axes) and what came with 19 (Resize's half_pixel_symmetric, Pad's wrap).
     */
    @Test
    void yoloHeadsAndNonMaxSuppressionAgreeWithOnnxRuntimeAtOpset21() throws Exception {
        Branches b = new Branches(21);
        String x = "x";
        // DFL over 60 anchors: [1, 8, 60] as 4 sides x 2 bins, the expectation over bins as a 1x1 convolution
        String bins = b.op("Reshape", List.of(x, b.int64s(1, 4, 2, 60)));
        String binsFirst = b.op("Transpose", List.of(bins), ints("perm", 0, 2, 1, 3));
        String probabilities = b.op("Softmax", List.of(binsFirst), integer("axis", 1));
        String distances = b.op("Reshape", List.of(b.op("Conv", List.of(probabilities, b.floats(new float[] {0, 1}, 1, 2, 1, 1))),
                b.int64s(1, 4, 60)));
        b.out(distances);
        // dist2bbox: grid points minus and plus the distances, times the strides
        List<String> sides = b.ops("Split", 2, List.of(distances, b.int64s(2, 2)), integer("axis", 1));
        float[] grid = new float[2 * 60];
        for (int i = 0; i < 60; i++) {
            grid[i] = i % 10 + 0.5f;
            grid[60 + i] = i / 10 + 0.5f;
        }
        String anchors = b.floats(grid, 1, 2, 60);
        String topLeft = b.op("Sub", List.of(anchors, sides.get(0))), bottomRight = b.op("Add", List.of(anchors, sides.get(1)));
        String centre = b.op("Div", List.of(b.op("Add", List.of(topLeft, bottomRight)), b.scalar(2)));
        String size = b.op("Sub", List.of(bottomRight, topLeft));
        String strides = b.randoms(1, 1, 60);
        b.out(b.op("Mul", List.of(b.op("Concat", List.of(centre, size), integer("axis", 1)), strides)));
        // YOLOv5-style decode: (sigmoid * 2 - 0.5 + grid) * stride, (sigmoid * 2)^2 * anchor
        String s = b.op("Sigmoid", List.of(b.op("Reshape", List.of(x, b.int64s(1, 2, 4, 6, 10)))));
        List<String> xywh = b.ops("Split", 2, List.of(s, b.int64s(2, 2)), integer("axis", 2));
        b.out(b.op("Mul", List.of(b.op("Add", List.of(b.op("Sub", List.of(b.op("Mul", List.of(xywh.get(0), b.scalar(2))),
                b.scalar(0.5f))), b.randoms(1, 1, 2, 6, 10))), b.scalar(8))));
        b.out(b.op("Mul", List.of(b.op("Pow", List.of(b.op("Mul", List.of(xywh.get(1), b.scalar(2))), b.scalar(2))),
                b.randoms(1, 2, 1, 1, 1))));
        // attention: 2 heads of 4 channels over 60 positions
        String heads = b.op("Reshape", List.of(x, b.int64s(1, 2, 4, 60)));
        String q = b.op("Transpose", List.of(heads), ints("perm", 0, 1, 3, 2));
        String k = b.op("Mul", List.of(heads, b.randoms(1, 2, 4, 1)));
        String similarity = b.op("Mul", List.of(b.op("MatMul", List.of(q, k)), b.scalar(0.5f)));
        String attention = b.op("Softmax", List.of(similarity), integer("axis", -1));
        String v = b.op("Add", List.of(heads, b.randoms(4, 1)));
        String mixed = b.op("MatMul", List.of(v, b.op("Transpose", List.of(attention), ints("perm", 0, 1, 3, 2))));
        b.out(b.op("Reshape", List.of(mixed, b.int64s(1, 8, 6, 10))));
        // Focus: the four pixel phases side by side in channels
        List<String> phases = new ArrayList<>();
        for (long[] start : new long[][] {{0, 0}, {1, 0}, {0, 1}, {1, 1}}) {
            phases.add(b.op("Slice", List.of(x, b.int64s(start), b.int64s(INT64_MAX, INT64_MAX), b.int64s(2, 3), b.int64s(2, 2))));
        }
        b.out(b.op("Concat", phases, integer("axis", 1)));
        // the inputs that were attributes before 18
        for (String part : b.ops("Split", 3, List.of(x), integer("axis", 3), integer("num_outputs", 3))) b.out(part);
        b.out(b.op("ReduceMax", List.of(x, b.int64s(1, 2)), integer("keepdims", 1)));
        b.out(b.op("Unsqueeze", List.of(b.op("ReduceMax", List.of(x), integer("keepdims", 0)), b.int64s(0))));
        b.out(b.op("Pad", List.of(x, b.int64s(1, 2, 0, 3), b.scalar(2), b.int64s(2, -1))));
        b.out(b.op("Resize", List.of(x, "", b.floats(new float[] {2, 1.5f}, 2)), string("mode", "nearest"), ints("axes", 2, 3)));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(9, 7)), string("mode", "nearest"), ints("axes", 2, 3),
                string("coordinate_transformation_mode", "half_pixel_symmetric")));
        b.out(b.op("Resize", List.of(x, "", "", b.int64s(4, 15)), string("mode", "linear"), ints("axes", -2, -1),
                string("coordinate_transformation_mode", "half_pixel_symmetric")));
        b.out(b.op("Pad", List.of(x, b.int64s(0, 0, 2, 3, 0, 0, 1, 4)), string("mode", "wrap")));
        b.out(b.op("Squeeze", List.of(b.op("Unsqueeze", List.of(x, b.int64s(-1))), b.int64s(4))));
        // unsorted, the order within the k is undefined: compared as sets
        List<String> unsorted = b.ops("TopK", 2, List.of(x, b.int64s(4)), integer("sorted", 0));
        b.out(unsorted.get(0));
        b.exactOut(unsorted.get(1));
        b.unordered.addAll(unsorted);
        // NonMaxSuppression: 60 boxes, 3 classes, scores from channels 4..6
        String firstFour = b.op("Reshape", List.of(b.op("Slice", List.of(x, b.int64s(0), b.int64s(4), b.int64s(1))),
                b.int64s(1, 4, 60)));
        String perBox = b.op("Transpose", List.of(firstFour), ints("perm", 0, 2, 1));
        String corners = b.op("Add", List.of(b.op("Mul", List.of(perBox, b.scalar(0.5f))), b.floats(new float[] {0, 0, 2, 2}, 4)));
        String logits = b.op("Reshape", List.of(b.op("Slice", List.of(x, b.int64s(4), b.int64s(7), b.int64s(1))),
                b.int64s(1, 3, 60)));
        String scores = b.op("Sigmoid", List.of(logits));
        String selected = b.op("NonMaxSuppression", List.of(corners, scores, b.int64s(20), b.floats(new float[] {0.3f}, 1),
                b.floats(new float[] {0.4f}, 1)));
        b.exactOut(selected);
        // centre boxes: positive sizes through Exp
        String centres = b.op("Concat", List.of(b.op("Slice", List.of(corners, b.int64s(0), b.int64s(2), b.int64s(2))),
                b.op("Exp", List.of(b.op("Slice", List.of(corners, b.int64s(2), b.int64s(4), b.int64s(2)))))), integer("axis", 2));
        String selectedCentres = b.op("NonMaxSuppression", List.of(centres, scores, b.int64s(7), b.floats(new float[] {0.2f}, 1),
                b.floats(new float[] {0.5f}, 1)), integer("center_point_box", 1));
        b.exactOut(selectedCentres);
        b.exactOut(b.op("NonMaxSuppression", List.of(centres, scores, b.int64s(3)), integer("center_point_box", 1)));
        // what is computed from the selections has the data's shape: the chosen boxes and their scores
        String chosen = b.op("Gather", List.of(selectedCentres, b.int64(new long[] {2})), integer("axis", 1));
        b.out(b.op("Gather", List.of(b.op("Reshape", List.of(centres, b.int64s(60, 4))), chosen), integer("axis", 0)));
        b.exactOut(b.op("Shape", List.of(chosen)));
        Map<String, Tensor> ours = compareWithOnnxRuntime("opset21", 21, b);
        // the selections are not trivial: some boxes kept, some suppressed, by score or by overlap
        for (String nms : List.of(selected, selectedCentres)) {
            long rows = ours.get(nms).shape()[0];
            assertTrue(rows >= 3 && rows < 3 * (nms.equals(selected) ? 20 : 7), nms + ": " + rows + " selected");
        }
    }

    @Test
    void anInputNeitherInTheEnvironmentNorConstantIsNamed() throws Exception {
        Branches b = new Branches(1);
        b.out(b.op("Neg", List.of(b.op("Sigmoid", List.of("x")))));
        Path file = tmp.resolve("missing.onnx");
        Files.write(file, model(17, b.graph.build()).toByteArray());
        OnnxModel m = OnnxModel.read(file);
        OnnxInterpreter interpreter = new OnnxInterpreter(m);
        // the Neg alone, without the Sigmoid's output
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> interpreter.run(m.nodes().subList(1, 2), new HashMap<>(Map.of("x", new Tensor(X, new float[480])))));
        assertEquals("node 'Neg_node_3' (Neg): input 0 ('Sigmoid_0') is neither in the environment nor a constant of"
                + " the model", e.getMessage());
        Map<String, Tensor> env = new HashMap<>(Map.of("x", new Tensor(X, new float[480])));
        interpreter.run(m.nodes(), env);
        assertEquals(-0.5f, env.get("Neg_2").data()[0]);
    }
}
