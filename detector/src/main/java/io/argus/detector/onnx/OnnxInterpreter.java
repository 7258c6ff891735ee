package io.argus.detector.onnx;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs nodes of an ONNX graph on the host, on FP32 tensors, one image (batch 1) at a time: the part of an imported
 * model the engine's own layers do not cover (the heads' decode arithmetic with its constant grids, DFL's softmax and
 * 1x1 convolution, YOLOX's Focus slicing, YOLO11's attention, NonMaxSuppression in the graph). Every operator of
 * {@link OnnxOperators#SUPPORTED} runs here with ONNX's semantics for opsets 11..21 and the attribute forms
 * {@link OnnxShapeInference} accepts (inputs or attributes by opset, as there).
 *
 * <p>Every tensor is held as float whatever its element type in the model: integers (shapes, indices, the int64
 * outputs of ArgMax, TopK and NonMaxSuppression) are exact up to 2^24, plenty for indices into one image's tensors;
 * booleans are 0 and 1. Where the type changes the arithmetic (integer Div, Cast) it is read from the model.
 *
 * <p>Shapes come from the tensors actually computed, never from the model: NonMaxSuppression's output and what is
 * computed from it have a data-dependent first dimension that the model knows only as an upper bound.
 *
 * <p>The per-node preparation (constant inputs converted to float once, a convolution's column buffer) is cached in
 * the instance, keyed by node, so running the same nodes for every frame allocates little beyond the outputs. The
 * constants are shared and the buffers are per thread, so several backends of one model may run it at once. An output may share its data with an input (Reshape, Identity and
 * the like copy nothing); nothing here writes into a tensor once it is in the environment.
 */
public final class OnnxInterpreter {
    /**
     * A host tensor: row-major values and its shape ({@code []} for a scalar, one value). The element type is the
     * model's; integers are held exactly as floats up to 2^24, which is enough for indices. The arrays are not copied.
     */
    public record Tensor(long[] shape, float[] data) {
        public Tensor {
            if (data.length != count(shape)) {
                throw new IllegalArgumentException(data.length + " values for the shape " + Arrays.toString(shape));
            }
        }

        public int rank() { return shape.length; }

        @Override
        public String toString() { return "Tensor" + Arrays.toString(shape); }
    }

    /** Columns of a matrix product computed together, so the rows of B they read stay in the cache. */
    private static final int COLUMN_BLOCK = 256;

    private final OnnxModel model;
    private final int opset;
    /** Initializers and folded values converted to float, by tensor name (shared by the nodes reading them). */
    private final Map<String, Tensor> constants = java.util.Collections.synchronizedMap(new HashMap<>());
    /** Per node, each input's constant (null where the input is computed at run time or absent). */
    private final Map<OnnxNode, Tensor[]> constantInputs = java.util.Collections.synchronizedMap(new IdentityHashMap<>());
    /** Per node, a buffer reused between runs (a convolution's im2col columns). */
    private final ThreadLocal<Map<OnnxNode, float[]>> scratch = ThreadLocal.withInitial(IdentityHashMap::new);
    /** Per Constant node, its value. */
    private final Map<OnnxNode, Tensor> constantNodes = java.util.Collections.synchronizedMap(new IdentityHashMap<>());

    public OnnxInterpreter(OnnxModel model) {
        this.model = model;
        this.opset = model.opset();
    }

    /**
     * Runs {@code nodes} in the given order. {@code env} maps tensor names to values; a node input not in env is taken
     * from the model's constants ({@code value(name).constant()}); an input that is neither is an
     * IllegalStateException naming node and input. Every output is put into env. A node the data does not fit (an
     * index out of range, shapes that do not broadcast) is an IllegalArgumentException naming the node.
     */
    public void run(List<OnnxNode> nodes, Map<String, Tensor> env) {
        for (OnnxNode node : nodes) {
            Tensor[] in = inputs(node, env);
            Tensor[] out;
            try {
                out = execute(node, in);
            } catch (IllegalArgumentException | ArithmeticException | IndexOutOfBoundsException e) {
                throw new IllegalArgumentException("node '" + node.name() + "' (" + node.op() + "): " + e.getMessage(), e);
            }
            for (int i = 0; i < node.outputs().size() && i < out.length; i++) {
                String name = node.outputs().get(i);
                if (!name.isEmpty() && out[i] != null) env.put(name, out[i]);
            }
        }
    }

    // ---- inputs and constants

    private Tensor[] inputs(OnnxNode node, Map<String, Tensor> env) {
        Tensor[] constant = constantInputs.computeIfAbsent(node, this::constantInputsOf);
        Tensor[] in = new Tensor[node.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            String name = node.inputs().get(i);
            if (name.isEmpty()) continue; // an optional input left out
            Tensor t = env.get(name);
            if (t == null) t = constant[i];
            if (t == null) {
                throw new IllegalStateException("node '" + node.name() + "' (" + node.op() + "): input " + i + " ('"
                        + name + "') is neither in the environment nor a constant of the model");
            }
            in[i] = t;
        }
        return in;
    }

    private Tensor[] constantInputsOf(OnnxNode node) {
        Tensor[] c = new Tensor[node.inputs().size()];
        for (int i = 0; i < c.length; i++) {
            String name = node.inputs().get(i);
            OnnxValue v = name.isEmpty() ? null : model.values().get(name);
            if (v != null && v.constant() != null) c[i] = constants.computeIfAbsent(name, k -> tensorOf(v.constant()));
        }
        return c;
    }

    static Tensor tensorOf(OnnxTensor c) {
        float[] v = new float[c.size()];
        if (c.type().floating()) {
            FloatBuffer b = c.floats();
            b.get(v);
        } else {
            for (int i = 0; i < v.length; i++) v[i] = c.longValue(i);
        }
        return new Tensor(c.shape(), v);
    }

    /** The model's element type of a tensor; FLOAT for a name the model does not have. */
    private OnnxType typeOf(String name) {
        OnnxValue v = model.values().get(name);
        return v == null ? OnnxType.FLOAT : v.type();
    }

    // ---- dispatch

    private Tensor[] execute(OnnxNode n, Tensor[] in) {
        String op = n.op();
        return switch (op) {
            case "Identity" -> one(in[0]);
            case "Sigmoid", "Relu", "LeakyRelu", "Tanh", "Softplus", "HardSigmoid", "HardSwish", "Sqrt", "Exp", "Neg",
                 "Floor", "Ceil" -> one(unary(n, in[0]));
            case "Clip" -> one(clip(in));
            case "Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Equal" -> one(arithmetic(n, in));
            case "Where" -> one(where(in[0], in[1], in[2]));
            case "Cast" -> one(cast(n, in[0]));
            case "Softmax" -> one(softmax(n, in[0]));
            case "Concat" -> one(concat(n, in));
            case "Split" -> split(n, in);
            case "Slice" -> one(slice(in));
            case "Reshape" -> one(reshape(n, in[0], in[1]));
            case "Flatten" -> one(flatten(n, in[0]));
            case "Squeeze" -> one(squeeze(n, in));
            case "Unsqueeze" -> one(unsqueeze(n, in));
            case "Transpose" -> one(transpose(n, in[0]));
            case "Gather" -> one(gather(n, in[0], in[1]));
            case "Expand" -> one(expand(in[0], in[1]));
            case "Tile" -> one(tile(in[0], in[1]));
            case "Pad" -> one(pad(n, in));
            case "Conv" -> one(conv(n, in));
            case "MaxPool", "AveragePool" -> one(pool(n, in[0]));
            case "GlobalAveragePool" -> one(globalAveragePool(in[0]));
            case "BatchNormalization" -> one(batchNormalization(n, in));
            case "Resize" -> one(resize(n, in));
            case "MatMul" -> one(matMul(in[0], in[1]));
            case "Gemm" -> one(gemm(n, in));
            case "ReduceMax" -> one(reduceMax(n, in));
            case "ArgMax" -> one(argMax(n, in[0]));
            case "TopK" -> topK(n, in[0], in[1]);
            case "Shape" -> one(shapeOf(n, in[0]));
            case "Constant" -> one(constantNodes.computeIfAbsent(n, OnnxInterpreter::constant));
            case "ConstantOfShape" -> one(constantOfShape(n, in[0]));
            case "Range" -> one(range(n, in[0], in[1], in[2]));
            case "NonMaxSuppression" -> one(nonMaxSuppression(n, in));
            default -> throw new IllegalArgumentException("no implementation of " + op);
        };
    }

    private static Tensor[] one(Tensor t) { return new Tensor[] {t}; }

    // ---- shapes

    static int count(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) throw new IllegalArgumentException("negative dimension in " + Arrays.toString(shape));
            n *= d;
        }
        if (n > Integer.MAX_VALUE) throw new IllegalArgumentException(Arrays.toString(shape) + " has " + n + " elements");
        return (int) n;
    }

    private static int product(long[] shape, int from, int to) {
        long n = 1;
        for (int d = from; d < to; d++) n *= shape[d];
        return (int) n;
    }

    private static int[] strides(long[] shape) {
        int[] s = new int[shape.length];
        int step = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            s[d] = step;
            step *= (int) shape[d];
        }
        return s;
    }

    private static int axis(long axis, int rank) {
        long a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank) throw new IllegalArgumentException("axis " + axis + " is out of range for rank " + rank);
        return (int) a;
    }

    private static long[] longs(Tensor t) {
        long[] v = new long[t.data.length];
        for (int i = 0; i < v.length; i++) v[i] = (long) t.data[i];
        return v;
    }

    private static long clamp(long v, long lo, long hi) { return Math.max(lo, Math.min(hi, v)); }

    /** Numpy's multidirectional broadcasting of shapes. */
    private static long[] broadcast(long[]... shapes) {
        int rank = 0;
        for (long[] s : shapes) rank = Math.max(rank, s.length);
        long[] out = new long[rank];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int k = 0; k < s.length; k++) {
                int d = rank - s.length + k;
                if (s[k] == out[d] || s[k] == 1) continue;
                if (out[d] != 1) {
                    throw new IllegalArgumentException("shapes " + Arrays.deepToString(shapes) + " do not broadcast");
                }
                out[d] = s[k];
            }
        }
        return out;
    }

    /** The stride of each dimension of {@code out} in a tensor of shape {@code in} broadcast to it (0 where repeated). */
    private static int[] broadcastStrides(long[] out, long[] in) {
        int rank = out.length;
        int[] stride = new int[rank];
        int step = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int k = d - (rank - in.length);
            if (k < 0) continue;
            stride[d] = in[k] == 1 ? 0 : step;
            step *= (int) in[k];
        }
        return stride;
    }

    /**
     * The offset in {@code src} of each row (the last dimension) of the tensor of shape {@code out} whose element at
     * coordinates c is {@code src[base + sum c[d] * stride[d]]}.
     */
    private static int[] rowOffsets(long[] out, int base, int[] stride) {
        int rank = out.length;
        int rows = rank == 0 ? 1 : product(out, 0, rank - 1);
        int[] offsets = new int[rows];
        int[] c = new int[rank];
        int p = base;
        for (int r = 0; r < rows; r++) {
            offsets[r] = p;
            for (int d = rank - 2; d >= 0; d--) {
                p += stride[d];
                if (++c[d] < out[d]) break;
                p -= stride[d] * (int) out[d];
                c[d] = 0;
            }
        }
        return offsets;
    }

    /** A new tensor of shape {@code out} whose element at coordinates c is {@code src[base + sum c[d] * stride[d]]}. */
    private static Tensor strided(float[] src, int base, long[] out, int[] stride) {
        int n = count(out);
        float[] dst = new float[n];
        if (n == 0) return new Tensor(out, dst);
        if (out.length == 0) {
            dst[0] = src[base];
            return new Tensor(out, dst);
        }
        int rank = out.length;
        int inner = (int) out[rank - 1], step = stride[rank - 1];
        int[] c = new int[rank];
        int p = base;
        for (int o = 0; o < n; o += inner) {
            if (step == 1) {
                System.arraycopy(src, p, dst, o, inner);
            } else {
                for (int j = 0, q = p; j < inner; j++, q += step) dst[o + j] = src[q];
            }
            for (int d = rank - 2; d >= 0; d--) {
                p += stride[d];
                if (++c[d] < out[d]) break;
                p -= stride[d] * (int) out[d];
                c[d] = 0;
            }
        }
        return new Tensor(out, dst);
    }

    // ---- element-wise

    private static Tensor unary(OnnxNode n, Tensor x) {
        float[] v = x.data, o = new float[v.length];
        switch (n.op()) {
            case "Sigmoid" -> { for (int i = 0; i < v.length; i++) o[i] = (float) (1 / (1 + Math.exp(-v[i]))); }
            case "Relu" -> { for (int i = 0; i < v.length; i++) o[i] = v[i] > 0 ? v[i] : 0; }
            case "LeakyRelu" -> {
                float alpha = n.floatAttribute("alpha", 0.01f);
                for (int i = 0; i < v.length; i++) o[i] = v[i] >= 0 ? v[i] : alpha * v[i];
            }
            case "Tanh" -> { for (int i = 0; i < v.length; i++) o[i] = (float) Math.tanh(v[i]); }
            case "Softplus" -> {
                // log(1 + e^x) without overflow for large x
                for (int i = 0; i < v.length; i++) {
                    double a = v[i];
                    o[i] = (float) (a > 0 ? a + Math.log1p(Math.exp(-a)) : Math.log1p(Math.exp(a)));
                }
            }
            case "HardSigmoid" -> {
                float alpha = n.floatAttribute("alpha", 0.2f), beta = n.floatAttribute("beta", 0.5f);
                for (int i = 0; i < v.length; i++) o[i] = Math.max(0, Math.min(1, alpha * v[i] + beta));
            }
            case "HardSwish" -> {
                // x * HardSigmoid(x) with alpha 1/6, beta 0.5, as ONNX defines it
                for (int i = 0; i < v.length; i++) o[i] = v[i] * Math.max(0, Math.min(1, v[i] * (1f / 6) + 0.5f));
            }
            case "Sqrt" -> { for (int i = 0; i < v.length; i++) o[i] = (float) Math.sqrt(v[i]); }
            case "Exp" -> { for (int i = 0; i < v.length; i++) o[i] = (float) Math.exp(v[i]); }
            case "Neg" -> { for (int i = 0; i < v.length; i++) o[i] = -v[i]; }
            case "Floor" -> { for (int i = 0; i < v.length; i++) o[i] = (float) Math.floor(v[i]); }
            case "Ceil" -> { for (int i = 0; i < v.length; i++) o[i] = (float) Math.ceil(v[i]); }
            default -> throw new IllegalStateException(n.op());
        }
        return new Tensor(x.shape, o);
    }

    /** Min and max are inputs from opset 11 on (the lowest supported); either may be left out. */
    private static Tensor clip(Tensor[] in) {
        float lo = in.length > 1 && in[1] != null ? in[1].data[0] : Float.NEGATIVE_INFINITY;
        float hi = in.length > 2 && in[2] != null ? in[2].data[0] : Float.POSITIVE_INFINITY;
        float[] v = in[0].data, o = new float[v.length];
        for (int i = 0; i < v.length; i++) o[i] = Math.min(Math.max(v[i], lo), hi);
        return new Tensor(in[0].shape, o);
    }

    private enum Arith { ADD, SUB, MUL, DIV, INTEGER_DIV, POW, MIN, MAX, EQUAL }

    private Tensor arithmetic(OnnxNode n, Tensor[] in) {
        Arith op = switch (n.op()) {
            case "Add" -> Arith.ADD;
            case "Sub" -> Arith.SUB;
            case "Mul" -> Arith.MUL;
            case "Div" -> typeOf(n.input(0)).floating() ? Arith.DIV : Arith.INTEGER_DIV;
            case "Pow" -> Arith.POW;
            case "Min" -> Arith.MIN;
            case "Max" -> Arith.MAX;
            default -> Arith.EQUAL;
        };
        if (in.length == 1) return new Tensor(in[0].shape, in[0].data.clone()); // a variadic Min or Max of one
        Tensor out = binary(op, in[0], in[1]);
        for (int i = 2; i < in.length; i++) out = binary(op, out, in[i]); // Min and Max take any number
        return out;
    }

    private static Tensor binary(Arith op, Tensor a, Tensor b) {
        long[] out = broadcast(a.shape, b.shape);
        int n = count(out);
        float[] o = new float[n];
        if (n == 0) return new Tensor(out, o);
        if ((a.data.length == n || a.data.length == 1) && (b.data.length == n || b.data.length == 1)) {
            // same shapes or a scalar: one run over everything
            apply(op, a.data, 0, a.data.length == n ? 1 : 0, b.data, 0, b.data.length == n ? 1 : 0, o, 0, n);
            return new Tensor(out, o);
        }
        int rank = out.length, inner = (int) out[rank - 1];
        int[] sa = broadcastStrides(out, a.shape), sb = broadcastStrides(out, b.shape);
        int[] ra = rowOffsets(out, 0, sa), rb = rowOffsets(out, 0, sb);
        for (int r = 0; r < ra.length; r++) {
            apply(op, a.data, ra[r], sa[rank - 1], b.data, rb[r], sb[rank - 1], o, r * inner, inner);
        }
        return new Tensor(out, o);
    }

    /** o[po + j] = a[pa + j * sa] op b[pb + j * sb] for j < n; the switch is outside the loops. */
    private static void apply(Arith op, float[] a, int pa, int sa, float[] b, int pb, int sb, float[] o, int po, int n) {
        switch (op) {
            case ADD -> { for (int j = 0; j < n; j++) o[po + j] = a[pa + j * sa] + b[pb + j * sb]; }
            case SUB -> { for (int j = 0; j < n; j++) o[po + j] = a[pa + j * sa] - b[pb + j * sb]; }
            case MUL -> { for (int j = 0; j < n; j++) o[po + j] = a[pa + j * sa] * b[pb + j * sb]; }
            case DIV -> { for (int j = 0; j < n; j++) o[po + j] = a[pa + j * sa] / b[pb + j * sb]; }
            case INTEGER_DIV -> {
                // ONNX's integer Div truncates toward zero, as Java's long division
                for (int j = 0; j < n; j++) o[po + j] = (long) a[pa + j * sa] / (long) b[pb + j * sb];
            }
            case POW -> { for (int j = 0; j < n; j++) o[po + j] = (float) Math.pow(a[pa + j * sa], b[pb + j * sb]); }
            case MIN -> { for (int j = 0; j < n; j++) o[po + j] = Math.min(a[pa + j * sa], b[pb + j * sb]); }
            case MAX -> { for (int j = 0; j < n; j++) o[po + j] = Math.max(a[pa + j * sa], b[pb + j * sb]); }
            case EQUAL -> { for (int j = 0; j < n; j++) o[po + j] = a[pa + j * sa] == b[pb + j * sb] ? 1 : 0; }
        }
    }

    private static Tensor where(Tensor condition, Tensor x, Tensor y) {
        long[] out = broadcast(condition.shape, x.shape, y.shape);
        int n = count(out);
        float[] o = new float[n];
        if (n == 0) return new Tensor(out, o);
        if (out.length == 0) {
            o[0] = condition.data[0] != 0 ? x.data[0] : y.data[0];
            return new Tensor(out, o);
        }
        int rank = out.length, inner = (int) out[rank - 1];
        int[] sc = broadcastStrides(out, condition.shape), sx = broadcastStrides(out, x.shape);
        int[] sy = broadcastStrides(out, y.shape);
        int[] rc = rowOffsets(out, 0, sc), rx = rowOffsets(out, 0, sx), ry = rowOffsets(out, 0, sy);
        int jc = sc[rank - 1], jx = sx[rank - 1], jy = sy[rank - 1];
        for (int r = 0; r < rc.length; r++) {
            for (int j = 0, at = r * inner; j < inner; j++, at++) {
                o[at] = condition.data[rc[r] + j * jc] != 0 ? x.data[rx[r] + j * jx] : y.data[ry[r] + j * jy];
            }
        }
        return new Tensor(out, o);
    }

    private static Tensor cast(OnnxNode n, Tensor x) {
        OnnxAttribute to = n.attribute("to");
        if (to == null) throw new IllegalArgumentException("attribute 'to' is missing");
        OnnxType type = OnnxType.of((int) to.i());
        if (type == null || !type.numeric()) throw new IllegalArgumentException("cannot cast to element type " + to.i());
        if (type.floating()) return x; // FP32 on the host whatever the floating type
        float[] v = x.data, o = new float[v.length];
        if (type == OnnxType.BOOL) {
            for (int i = 0; i < v.length; i++) o[i] = v[i] != 0 ? 1 : 0;
        } else {
            for (int i = 0; i < v.length; i++) o[i] = (long) v[i]; // toward zero
        }
        return new Tensor(x.shape, o);
    }

    /**
     * From opset 13 the softmax of one axis (default -1); before, of the input coerced to 2-D at the axis (default 1):
     * over all the dimensions from the axis on.
     */
    private Tensor softmax(OnnxNode n, Tensor x) {
        long[] s = x.shape;
        int rank = s.length;
        int axis = axis(n.intAttribute("axis", opset >= 13 ? -1 : 1), rank);
        int outer = product(s, 0, axis);
        int size, inner;
        if (opset >= 13) {
            size = (int) s[axis];
            inner = product(s, axis + 1, rank);
        } else {
            size = product(s, axis, rank);
            inner = 1;
        }
        float[] v = x.data, o = new float[v.length];
        if (size == 0 || v.length == 0) return new Tensor(s, o);
        float[] max = new float[inner];
        double[] sum = new double[inner];
        for (int b = 0; b < outer; b++) {
            int base = b * size * inner;
            if (inner == 1) {
                float m = Float.NEGATIVE_INFINITY;
                for (int j = 0; j < size; j++) m = Math.max(m, v[base + j]);
                double total = 0;
                for (int j = 0; j < size; j++) {
                    float e = (float) Math.exp(v[base + j] - m);
                    o[base + j] = e;
                    total += e;
                }
                float scale = (float) (1 / total);
                for (int j = 0; j < size; j++) o[base + j] *= scale;
                continue;
            }
            // the axis is strided: walk it for every inner position at once, contiguous in memory
            Arrays.fill(max, Float.NEGATIVE_INFINITY);
            Arrays.fill(sum, 0);
            for (int j = 0; j < size; j++) {
                int row = base + j * inner;
                for (int i = 0; i < inner; i++) max[i] = Math.max(max[i], v[row + i]);
            }
            for (int j = 0; j < size; j++) {
                int row = base + j * inner;
                for (int i = 0; i < inner; i++) {
                    float e = (float) Math.exp(v[row + i] - max[i]);
                    o[row + i] = e;
                    sum[i] += e;
                }
            }
            for (int j = 0; j < size; j++) {
                int row = base + j * inner;
                for (int i = 0; i < inner; i++) o[row + i] = (float) (o[row + i] / sum[i]);
            }
        }
        return new Tensor(s, o);
    }

    // ---- layout

    private static Tensor concat(OnnxNode n, Tensor[] in) {
        long[] first = in[0].shape;
        int rank = first.length;
        OnnxAttribute a = n.attribute("axis");
        if (a == null) throw new IllegalArgumentException("attribute 'axis' is missing");
        int axis = axis(a.i(), rank);
        long[] out = first.clone();
        out[axis] = 0;
        for (int i = 0; i < in.length; i++) {
            long[] s = in[i].shape;
            if (s.length != rank) {
                throw new IllegalArgumentException("input " + i + " has rank " + s.length + ", input 0 rank " + rank);
            }
            for (int d = 0; d < rank; d++) {
                if (d != axis && s[d] != first[d]) {
                    throw new IllegalArgumentException("input " + i + " " + Arrays.toString(s) + " differs from input 0 "
                            + Arrays.toString(first) + " outside axis " + axis);
                }
            }
            out[axis] += s[axis];
        }
        float[] o = new float[count(out)];
        int outer = product(first, 0, axis), inner = product(first, axis + 1, rank);
        int at = 0;
        for (int b = 0; b < outer; b++) {
            for (Tensor t : in) {
                int block = (int) t.shape[axis] * inner;
                System.arraycopy(t.data, b * block, o, at, block);
                at += block;
            }
        }
        return new Tensor(out, o);
    }

    /** The sizes: the second input from opset 13, the 'split' attribute before, else equal parts (num_outputs at 18). */
    private Tensor[] split(OnnxNode n, Tensor[] in) {
        long[] s = in[0].shape;
        int rank = s.length;
        int axis = axis(n.intAttribute("axis", 0), rank);
        int parts = n.outputs().size();
        long[] sizes;
        if (opset >= 13 && in.length > 1 && in[1] != null) {
            sizes = longs(in[1]);
        } else if (opset < 13 && n.intsAttribute("split") != null) {
            sizes = n.intsAttribute("split");
        } else {
            long num = n.intAttribute("num_outputs", parts);
            long chunk = (s[axis] + num - 1) / num; // the last part is the smaller when it does not divide
            sizes = new long[parts];
            for (int k = 0; k < parts; k++) sizes[k] = Math.max(0, Math.min(chunk, s[axis] - k * chunk));
        }
        if (sizes.length != parts || Arrays.stream(sizes).sum() != s[axis]) {
            throw new IllegalArgumentException("split " + Arrays.toString(sizes) + " does not divide dimension " + axis
                    + " of " + Arrays.toString(s) + " into " + parts + " outputs");
        }
        int outer = product(s, 0, axis), inner = product(s, axis + 1, rank), whole = (int) s[axis] * inner;
        Tensor[] out = new Tensor[parts];
        int offset = 0;
        for (int k = 0; k < parts; k++) {
            long[] shape = s.clone();
            shape[axis] = sizes[k];
            int block = (int) sizes[k] * inner;
            float[] o = new float[outer * block];
            for (int b = 0; b < outer; b++) System.arraycopy(in[0].data, b * whole + offset, o, b * block, block);
            out[k] = new Tensor(shape, o);
            offset += block;
        }
        return out;
    }

    /**
     * Starts, ends, axes and steps are inputs (opset 10 on); bounds are clamped as ONNX specifies per step sign, as
     * {@link OnnxShapeInference} does. So an end of INT64_MAX with a negative step clamps to the last element and the
     * slice is empty, where ONNX Runtime reads it as numpy's None (to the beginning); exporters write INT64_MIN there.
     */
    private static Tensor slice(Tensor[] in) {
        Tensor x = in[0];
        long[] s = x.shape;
        int rank = s.length;
        long[] starts = longs(in[1]), ends = longs(in[2]);
        long[] axes = in.length > 3 && in[3] != null ? longs(in[3]) : null;
        long[] steps = in.length > 4 && in[4] != null ? longs(in[4]) : null;
        if (ends.length != starts.length || axes != null && axes.length != starts.length
                || steps != null && steps.length != starts.length) {
            throw new IllegalArgumentException("starts, ends, axes and steps differ in length");
        }
        int[] inStride = strides(s);
        long[] out = s.clone();
        int[] stride = inStride.clone();
        int base = 0;
        for (int k = 0; k < starts.length; k++) {
            int d = axes == null ? k : axis(axes[k], rank);
            long step = steps == null ? 1 : steps[k];
            if (step == 0) throw new IllegalArgumentException("step 0 on axis " + d);
            long dim = s[d];
            long b = starts[k] < 0 ? starts[k] + dim : starts[k];
            long e = ends[k] < 0 ? ends[k] + dim : ends[k];
            if (step > 0) {
                b = clamp(b, 0, dim);
                e = clamp(e, 0, dim);
                out[d] = Math.max(0, (e - b + step - 1) / step);
            } else {
                b = clamp(b, 0, dim - 1);
                e = clamp(e, -1, dim - 1);
                out[d] = dim == 0 ? 0 : Math.max(0, (b - e - step - 1) / -step);
            }
            if (out[d] > 0) base += (int) b * inStride[d];
            stride[d] = (int) (inStride[d] * step);
        }
        return strided(x.data, base, out, stride);
    }

    private static Tensor reshape(OnnxNode n, Tensor x, Tensor target) {
        long[] s = x.shape;
        long[] out = longs(target);
        boolean allowZero = n.intAttribute("allowzero", 0) != 0;
        int inferred = -1;
        long known = 1;
        for (int d = 0; d < out.length; d++) {
            if (out[d] == 0 && !allowZero) {
                if (d >= s.length) {
                    throw new IllegalArgumentException("target " + Arrays.toString(out) + " copies dimension " + d
                            + " of a rank-" + s.length + " input");
                }
                out[d] = s[d];
            }
            if (out[d] == -1) {
                if (inferred >= 0) {
                    throw new IllegalArgumentException("target " + Arrays.toString(longs(target)) + " has two -1");
                }
                inferred = d;
            } else {
                known *= out[d];
            }
        }
        if (inferred >= 0) {
            if (known == 0 || x.data.length % known != 0) {
                throw new IllegalArgumentException("cannot reshape " + Arrays.toString(s) + " to "
                        + Arrays.toString(longs(target)));
            }
            out[inferred] = x.data.length / known;
        }
        return sameData(x, out);
    }

    private static Tensor sameData(Tensor x, long[] out) {
        if (count(out) != x.data.length) {
            throw new IllegalArgumentException("cannot give " + x.data.length + " elements " + Arrays.toString(x.shape)
                    + " the shape " + Arrays.toString(out));
        }
        return new Tensor(out, x.data);
    }

    private static Tensor flatten(OnnxNode n, Tensor x) {
        long[] s = x.shape;
        long a = n.intAttribute("axis", 1);
        int axis = (int) (a < 0 ? a + s.length : a);
        if (axis < 0 || axis > s.length) {
            throw new IllegalArgumentException("axis " + a + " is out of range for rank " + s.length);
        }
        return sameData(x, new long[] {product(s, 0, axis), product(s, axis, s.length)});
    }

    /** Squeeze's and Unsqueeze's axes: the attribute before opset 13, the second input from 13 on. */
    private long[] axesArgument(OnnxNode n, Tensor[] in) {
        if (opset < 13) return n.intsAttribute("axes");
        return in.length > 1 && in[1] != null ? longs(in[1]) : null;
    }

    private Tensor squeeze(OnnxNode n, Tensor[] in) {
        long[] s = in[0].shape;
        long[] axes = axesArgument(n, in);
        boolean[] removed = new boolean[s.length];
        if (axes == null) {
            for (int d = 0; d < s.length; d++) removed[d] = s[d] == 1;
        } else {
            for (long a : axes) {
                int d = axis(a, s.length);
                if (s[d] != 1) throw new IllegalArgumentException("cannot squeeze dimension " + d + " of size " + s[d]);
                removed[d] = true;
            }
        }
        long[] out = new long[s.length];
        int k = 0;
        for (int d = 0; d < s.length; d++) if (!removed[d]) out[k++] = s[d];
        return sameData(in[0], Arrays.copyOf(out, k));
    }

    private Tensor unsqueeze(OnnxNode n, Tensor[] in) {
        long[] s = in[0].shape;
        long[] axes = axesArgument(n, in);
        if (axes == null) throw new IllegalArgumentException("axes are missing");
        int rank = s.length + axes.length;
        boolean[] inserted = new boolean[rank];
        for (long a : axes) inserted[axis(a, rank)] = true;
        long[] out = new long[rank];
        for (int d = 0, k = 0; d < rank; d++) out[d] = inserted[d] ? 1 : s[k++];
        return sameData(in[0], out);
    }

    private static Tensor transpose(OnnxNode n, Tensor x) {
        long[] s = x.shape;
        int rank = s.length;
        long[] perm = n.intsAttribute("perm");
        if (perm != null && perm.length != rank) {
            throw new IllegalArgumentException("perm " + Arrays.toString(perm) + " for rank " + rank);
        }
        int[] inStride = strides(s), stride = new int[rank];
        long[] out = new long[rank];
        for (int d = 0; d < rank; d++) {
            int from = perm == null ? rank - 1 - d : axis(perm[d], rank);
            out[d] = s[from];
            stride[d] = inStride[from];
        }
        return strided(x.data, 0, out, stride);
    }

    private static Tensor gather(OnnxNode n, Tensor x, Tensor indices) {
        long[] data = x.shape, idx = indices.shape;
        int axis = axis(n.intAttribute("axis", 0), data.length);
        long[] out = new long[data.length - 1 + idx.length];
        System.arraycopy(data, 0, out, 0, axis);
        System.arraycopy(idx, 0, out, axis, idx.length);
        System.arraycopy(data, axis + 1, out, axis + idx.length, data.length - axis - 1);
        float[] o = new float[count(out)];
        int outer = product(data, 0, axis), inner = product(data, axis + 1, data.length);
        int dim = (int) data[axis];
        int[] at = new int[indices.data.length];
        for (int j = 0; j < at.length; j++) {
            long i = (long) indices.data[j];
            long k = i < 0 ? i + dim : i;
            if (k < 0 || k >= dim) {
                throw new IllegalArgumentException("index " + i + " is out of range for dimension " + axis + " of "
                        + Arrays.toString(data));
            }
            at[j] = (int) k;
        }
        int p = 0;
        for (int b = 0; b < outer; b++) {
            for (int k : at) {
                System.arraycopy(x.data, (b * dim + k) * inner, o, p, inner);
                p += inner;
            }
        }
        return new Tensor(out, o);
    }

    private static Tensor expand(Tensor x, Tensor shape) {
        long[] out = broadcast(x.shape, longs(shape));
        return strided(x.data, 0, out, broadcastStrides(out, x.shape));
    }

    private static Tensor tile(Tensor x, Tensor repeats) {
        long[] s = x.shape, rep = longs(repeats);
        int rank = s.length;
        if (rep.length != rank) throw new IllegalArgumentException("repeats " + Arrays.toString(rep) + " for rank " + rank);
        long[] out = s.clone();
        for (int d = 0; d < rank; d++) out[d] *= rep[d];
        int n = count(out);
        float[] o = new float[n];
        if (n == 0) return new Tensor(out, o);
        if (rank == 0) return new Tensor(out, x.data.clone());
        int[] inStride = strides(s);
        int row = (int) s[rank - 1], copies = (int) rep[rank - 1];
        int[] c = new int[rank], from = new int[rank];
        int p = 0;
        for (int at = 0; at < n; ) {
            for (int k = 0; k < copies; k++, at += row) System.arraycopy(x.data, p, o, at, row);
            for (int d = rank - 2; d >= 0; d--) {
                c[d]++;
                p += inStride[d];
                if (++from[d] == s[d]) {
                    from[d] = 0;
                    p -= inStride[d] * (int) s[d];
                }
                if (c[d] < out[d]) break;
                c[d] = 0; // from[d] is 0 again: out[d] is a multiple of s[d]
            }
        }
        return new Tensor(out, o);
    }

    /**
     * Pads are an input from opset 11 (the lowest supported), the constant an optional input, the axes an optional
     * input from 18. Modes constant, reflect, edge and wrap; a negative pad crops.
     */
    private static Tensor pad(OnnxNode n, Tensor[] in) {
        Tensor x = in[0];
        long[] s = x.shape;
        int rank = s.length;
        long[] pads = longs(in[1]);
        float fill = in.length > 2 && in[2] != null && in[2].data.length > 0 ? in[2].data[0] : 0;
        long[] axes = in.length > 3 && in[3] != null ? longs(in[3]) : null;
        int count = axes == null ? rank : axes.length;
        if (pads.length != 2 * count) {
            throw new IllegalArgumentException("pads " + Arrays.toString(pads) + " for " + count + " axes");
        }
        long[] before = new long[rank];
        long[] out = s.clone();
        for (int k = 0; k < count; k++) {
            int d = axes == null ? k : axis(axes[k], rank);
            before[d] = pads[k];
            out[d] += pads[k] + pads[k + count];
            if (out[d] < 0) {
                throw new IllegalArgumentException("pads " + Arrays.toString(pads) + " crop dimension " + d
                        + " below 0");
            }
        }
        String mode = n.stringAttribute("mode", "constant");
        // for every output coordinate of every dimension, the input coordinate it reads, or -1 for the constant
        int[][] source = new int[rank][];
        for (int d = 0; d < rank; d++) {
            int size = (int) s[d];
            source[d] = new int[(int) out[d]];
            for (int i = 0; i < out[d]; i++) {
                long c = i - before[d];
                source[d][i] = (int) switch (mode) {
                    case "constant" -> c >= 0 && c < size ? c : -1;
                    case "edge" -> clamp(c, 0, size - 1);
                    case "wrap" -> Math.floorMod(c, size);
                    case "reflect" -> reflect(c, size);
                    default -> throw new IllegalArgumentException("mode '" + mode + "' is not supported");
                };
            }
        }
        int total = count(out);
        float[] o = new float[total];
        if (total == 0) return new Tensor(out, o);
        if (rank == 0) return new Tensor(out, x.data.clone());
        int[] inStride = strides(s);
        int inner = (int) out[rank - 1];
        int[] last = source[rank - 1];
        int[] c = new int[rank];
        for (int at = 0; at < total; at += inner) {
            int base = 0;
            boolean outside = false;
            for (int d = 0; d < rank - 1; d++) {
                int from = source[d][c[d]];
                if (from < 0) outside = true;
                base += from * inStride[d];
            }
            if (outside) {
                Arrays.fill(o, at, at + inner, fill);
            } else {
                for (int j = 0; j < inner; j++) o[at + j] = last[j] < 0 ? fill : x.data[base + last[j]];
            }
            for (int d = rank - 2; d >= 0; d--) {
                if (++c[d] < out[d]) break;
                c[d] = 0;
            }
        }
        return new Tensor(out, o);
    }

    /** Coordinate c of a dimension of {@code size} mirrored at its edges, the edge itself not repeated. */
    private static long reflect(long c, long size) {
        if (size == 1) return 0;
        long period = 2 * (size - 1);
        long r = Math.floorMod(c, period);
        return r < size ? r : period - r;
    }

    // ---- convolution, pooling, normalisation, resizing

    /** A 2-D window over NCHW: its output size and where it starts, the padding resolved (auto_pad included). */
    private record Window(int kernelH, int kernelW, int strideH, int strideW, int dilationH, int dilationW, int padTop,
                          int padLeft, int padBottom, int padRight, int outH, int outW) {}

    private static Window window(OnnxNode n, long[] x, long kernelH, long kernelW, boolean ceil) {
        if (x.length != 4) throw new IllegalArgumentException("expected a 4-D NCHW input, found " + Arrays.toString(x));
        long[] strides = n.intsAttribute("strides"), pads = n.intsAttribute("pads");
        long[] dilations = n.intsAttribute("dilations");
        String autoPad = n.stringAttribute("auto_pad", "NOTSET");
        long[] kernel = {kernelH, kernelW}, out = new long[2], begin = new long[2], end = new long[2];
        for (int k = 0; k < 2; k++) {
            long size = x[k + 2];
            long stride = strides == null ? 1 : strides[k], dilation = dilations == null ? 1 : dilations[k];
            long effective = (kernel[k] - 1) * dilation + 1;
            switch (autoPad) {
                case "SAME_UPPER", "SAME_LOWER" -> {
                    out[k] = (size + stride - 1) / stride;
                    long total = Math.max(0, (out[k] - 1) * stride + effective - size);
                    // the odd pixel of padding goes at the end (SAME_UPPER) or the beginning (SAME_LOWER)
                    begin[k] = autoPad.equals("SAME_UPPER") ? total / 2 : total - total / 2;
                    end[k] = total - begin[k];
                }
                case "VALID" -> out[k] = (size - effective) / stride + 1;
                default -> {
                    long padBegin = pads == null ? 0 : pads[k], padEnd = pads == null ? 0 : pads[k + 2];
                    long span = size + padBegin + padEnd - effective;
                    out[k] = (ceil ? (span + stride - 1) / stride : Math.floorDiv(span, stride)) + 1;
                    if (ceil && (out[k] - 1) * stride >= size + padBegin) out[k]--; // the last window must start inside
                    begin[k] = padBegin;
                    end[k] = padEnd;
                }
            }
            if (out[k] <= 0) {
                throw new IllegalArgumentException("the window leaves no output on spatial axis " + k + " of "
                        + Arrays.toString(x));
            }
        }
        return new Window((int) kernelH, (int) kernelW, strides == null ? 1 : (int) strides[0],
                strides == null ? 1 : (int) strides[1], dilations == null ? 1 : (int) dilations[0],
                dilations == null ? 1 : (int) dilations[1], (int) begin[0], (int) begin[1], (int) end[0], (int) end[1],
                (int) out[0], (int) out[1]);
    }

    /**
     * A 2-D convolution as a matrix product per image and group: the weights [outC/group, inC/group * kH * kW] times
     * the input's columns (im2col) [inC/group * kH * kW, outH * outW]; a 1x1 convolution of stride 1 reads the input
     * as its own columns.
     */
    private Tensor conv(OnnxNode n, Tensor[] in) {
        Tensor x = in[0], w = in[1];
        Tensor bias = in.length > 2 ? in[2] : null;
        long[] xs = x.shape, ws = w.shape;
        int group = (int) n.intAttribute("group", 1);
        if (xs.length != 4 || ws.length != 4 || xs[1] != ws[1] * group || ws[0] % group != 0) {
            throw new IllegalArgumentException("expected 2-D convolution: input " + Arrays.toString(xs) + ", weights "
                    + Arrays.toString(ws) + ", group " + group);
        }
        Window win = window(n, xs, ws[2], ws[3], false);
        int batch = (int) xs[0], inC = (int) xs[1], h = (int) xs[2], wd = (int) xs[3], outC = (int) ws[0];
        int inPerGroup = inC / group, outPerGroup = outC / group;
        int kernel = inPerGroup * win.kernelH * win.kernelW, pixels = win.outH * win.outW;
        long[] out = {batch, outC, win.outH, win.outW};
        float[] o = new float[count(out)];
        if (bias != null) {
            for (int b = 0; b < batch; b++) {
                for (int c = 0; c < outC; c++) {
                    Arrays.fill(o, (b * outC + c) * pixels, (b * outC + c + 1) * pixels, bias.data[c]);
                }
            }
        }
        boolean direct = win.kernelH == 1 && win.kernelW == 1 && win.strideH == 1 && win.strideW == 1 && win.padTop == 0
                && win.padLeft == 0 && win.outH == h && win.outW == wd;
        float[] columns = null;
        if (!direct) {
            columns = scratch.get().get(n);
            if (columns == null || columns.length < kernel * pixels) {
                columns = new float[kernel * pixels];
                scratch.get().put(n, columns);
            }
        }
        for (int b = 0; b < batch; b++) {
            for (int g = 0; g < group; g++) {
                int inOffset = (b * inC + g * inPerGroup) * h * wd;
                float[] source;
                int sourceOffset;
                if (direct) {
                    source = x.data;
                    sourceOffset = inOffset;
                } else {
                    im2col(x.data, inOffset, inPerGroup, h, wd, win, columns);
                    source = columns;
                    sourceOffset = 0;
                }
                multiplyAdd(w.data, g * outPerGroup * kernel, source, sourceOffset, o,
                        (b * outC + g * outPerGroup) * pixels, outPerGroup, kernel, pixels);
            }
        }
        return new Tensor(out, o);
    }

    /** Column row (c, ky, kx) holds, for every output pixel, the input pixel that kernel tap reads (0 in the padding). */
    private static void im2col(float[] x, int offset, int channels, int h, int w, Window win, float[] columns) {
        int outH = win.outH, outW = win.outW, pixels = outH * outW;
        int row = 0;
        for (int c = 0; c < channels; c++) {
            int plane = offset + c * h * w;
            for (int ky = 0; ky < win.kernelH; ky++) {
                for (int kx = 0; kx < win.kernelW; kx++, row++) {
                    int dst = row * pixels;
                    int dx = kx * win.dilationW - win.padLeft;
                    // the output columns whose input column ox * strideW + dx is inside [0, w)
                    int first = dx >= 0 ? 0 : (-dx + win.strideW - 1) / win.strideW;
                    int end = Math.min(outW, w - dx <= 0 ? 0 : (w - dx - 1) / win.strideW + 1);
                    for (int oy = 0; oy < outH; oy++, dst += outW) {
                        int iy = oy * win.strideH + ky * win.dilationH - win.padTop;
                        if (iy < 0 || iy >= h || first >= end) {
                            Arrays.fill(columns, dst, dst + outW, 0);
                            continue;
                        }
                        Arrays.fill(columns, dst, dst + first, 0);
                        int src = plane + iy * w + dx;
                        if (win.strideW == 1) {
                            System.arraycopy(x, src + first, columns, dst + first, end - first);
                        } else {
                            for (int ox = first; ox < end; ox++) columns[dst + ox] = x[src + ox * win.strideW];
                        }
                        Arrays.fill(columns, dst + end, dst + outW, 0);
                    }
                }
            }
        }
    }

    /**
     * C[m, n] += A[m, k] * B[k, n], row-major from the given offsets: the inner loop runs along a row of B and of C,
     * which the JIT vectorises; columns go in blocks so a block of B is read from the cache for every row of A.
     */
    private static void multiplyAdd(float[] a, int aOffset, float[] b, int bOffset, float[] c, int cOffset,
                                    int m, int k, int n) {
        for (int j0 = 0; j0 < n; j0 += COLUMN_BLOCK) {
            int j1 = Math.min(n, j0 + COLUMN_BLOCK);
            for (int i = 0; i < m; i++) {
                int ci = cOffset + i * n;
                for (int p = 0; p < k; p++) {
                    float av = a[aOffset + i * k + p];
                    int bp = bOffset + p * n;
                    for (int j = j0; j < j1; j++) c[ci + j] += av * b[bp + j];
                }
            }
        }
    }

    private static Tensor pool(OnnxNode n, Tensor x) {
        boolean max = n.op().equals("MaxPool");
        if (n.outputs().size() > 1 && !n.outputs().get(1).isEmpty()) {
            throw new IllegalArgumentException("MaxPool's Indices output is not supported");
        }
        long[] kernel = n.intsAttribute("kernel_shape");
        if (kernel == null || kernel.length != 2) {
            throw new IllegalArgumentException("expected a 2-D kernel_shape, found " + Arrays.toString(kernel));
        }
        Window win = window(n, x.shape, kernel[0], kernel[1], n.intAttribute("ceil_mode", 0) != 0);
        boolean countPad = n.intAttribute("count_include_pad", 0) != 0;
        int planes = (int) (x.shape[0] * x.shape[1]), h = (int) x.shape[2], w = (int) x.shape[3];
        long[] out = {x.shape[0], x.shape[1], win.outH, win.outW};
        float[] o = new float[count(out)];
        int at = 0;
        for (int p = 0; p < planes; p++) {
            int plane = p * h * w;
            for (int oy = 0; oy < win.outH; oy++) {
                int y0 = oy * win.strideH - win.padTop;
                for (int ox = 0; ox < win.outW; ox++, at++) {
                    int x0 = ox * win.strideW - win.padLeft;
                    float m = Float.NEGATIVE_INFINITY;
                    double sum = 0;
                    int inside = 0, paddedRows = 0, paddedColumns = 0;
                    for (int ky = 0; ky < win.kernelH; ky++) {
                        int iy = y0 + ky * win.dilationH;
                        if (iy < h + win.padBottom) paddedRows++;
                        if (iy < 0 || iy >= h) continue;
                        for (int kx = 0; kx < win.kernelW; kx++) {
                            int ix = x0 + kx * win.dilationW;
                            if (ix < 0 || ix >= w) continue;
                            float v = x.data[plane + iy * w + ix];
                            m = Math.max(m, v);
                            sum += v;
                            inside++;
                        }
                    }
                    for (int kx = 0; kx < win.kernelW; kx++) {
                        if (x0 + kx * win.dilationW < w + win.padRight) paddedColumns++;
                    }
                    // count_include_pad counts the padding but not what a ceil_mode window reaches beyond it
                    o[at] = max ? m : (float) (sum / (countPad ? paddedRows * paddedColumns : inside));
                }
            }
        }
        return new Tensor(out, o);
    }

    private static Tensor globalAveragePool(Tensor x) {
        long[] s = x.shape;
        if (s.length < 3) {
            throw new IllegalArgumentException("expected N, C and spatial dimensions, found " + Arrays.toString(s));
        }
        long[] out = s.clone();
        for (int d = 2; d < out.length; d++) out[d] = 1;
        int planes = (int) (s[0] * s[1]), size = product(s, 2, s.length);
        float[] o = new float[planes];
        for (int p = 0; p < planes; p++) {
            double sum = 0;
            for (int i = p * size, end = i + size; i < end; i++) sum += x.data[i];
            o[p] = (float) (sum / size);
        }
        return new Tensor(out, o);
    }

    /** Inference: (x - mean) / sqrt(var + epsilon) * scale + bias per channel (dimension 1). */
    private static Tensor batchNormalization(OnnxNode n, Tensor[] in) {
        if (n.intAttribute("training_mode", 0) != 0) throw new IllegalArgumentException("training_mode is not supported");
        Tensor x = in[0];
        float[] scale = in[1].data, bias = in[2].data, mean = in[3].data, variance = in[4].data;
        float epsilon = n.floatAttribute("epsilon", 1e-5f);
        long[] s = x.shape;
        int channels = s.length > 1 ? (int) s[1] : 1, size = product(s, 2, s.length), batch = s.length > 0 ? (int) s[0] : 1;
        float[] o = new float[x.data.length];
        for (int c = 0; c < channels; c++) {
            float a = (float) (scale[c] / Math.sqrt(variance[c] + epsilon));
            float b = bias[c] - mean[c] * a;
            for (int i = 0; i < batch; i++) {
                for (int at = (i * channels + c) * size, end = at + size; at < end; at++) o[at] = x.data[at] * a + b;
            }
        }
        return new Tensor(s, o);
    }

    /**
     * Nearest (any dimensions, every nearest_mode) and linear (bilinear on the last two dimensions) with the coordinate
     * transformations half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners and asymmetric; the output
     * size from sizes, or floor(input * scale) computed in double as {@link OnnxShapeInference} does (ONNX Runtime
     * multiplies in float: 10 x 0.7f is 6 here and 7 there; Ultralytics' scale 2 is exact in both). Coordinates are
     * computed in float, as ONNX Runtime does, so a half-way nearest pixel rounds the same way.
     */
    private static Tensor resize(OnnxNode n, Tensor[] in) {
        Tensor x = in[0];
        long[] s = x.shape;
        int rank = s.length;
        String mode = n.stringAttribute("mode", "nearest");
        String transform = n.stringAttribute("coordinate_transformation_mode", "half_pixel");
        String nearestMode = n.stringAttribute("nearest_mode", "round_prefer_floor");
        if (!mode.equals("nearest") && !mode.equals("linear")) {
            throw new IllegalArgumentException("mode '" + mode + "' is not supported");
        }
        if (n.intAttribute("antialias", 0) != 0) throw new IllegalArgumentException("antialias is not supported");
        if (!n.stringAttribute("keep_aspect_ratio_policy", "stretch").equals("stretch")) {
            throw new IllegalArgumentException("keep_aspect_ratio_policy '"
                    + n.stringAttribute("keep_aspect_ratio_policy", "") + "' is not supported");
        }
        long[] axes = n.intsAttribute("axes");
        int count = axes == null ? rank : axes.length;
        long[] out = s.clone();
        float[] scale = new float[rank];
        Arrays.fill(scale, 1);
        Tensor sizes = in.length > 3 ? in[3] : null, scales = in.length > 2 ? in[2] : null;
        if (sizes != null && sizes.data.length > 0) {
            if (sizes.data.length != count) {
                throw new IllegalArgumentException("sizes of " + sizes.data.length + " values for " + count + " axes");
            }
            for (int k = 0; k < count; k++) {
                int d = axes == null ? k : axis(axes[k], rank);
                out[d] = (long) sizes.data[k];
                scale[d] = (float) out[d] / s[d];
            }
        } else if (scales != null && scales.data.length > 0) {
            if (scales.data.length != count) {
                throw new IllegalArgumentException("scales of " + scales.data.length + " values for " + count
                        + " axes");
            }
            for (int k = 0; k < count; k++) {
                int d = axes == null ? k : axis(axes[k], rank);
                scale[d] = scales.data[k];
                out[d] = (long) Math.floor(s[d] * (double) scales.data[k]);
            }
        } else {
            throw new IllegalArgumentException("neither scales nor sizes is given");
        }
        if (mode.equals("linear")) return bilinear(x, out, scale, transform);
        int[][] source = new int[rank][];
        for (int d = 0; d < rank; d++) {
            source[d] = new int[(int) out[d]];
            for (int i = 0; i < out[d]; i++) {
                float c = original(transform, i, scale[d], out[d], s[d]);
                long nearest = switch (nearestMode) {
                    case "round_prefer_floor" -> c == (float) Math.floor(c) + 0.5f ? (long) Math.floor(c) : Math.round(c);
                    case "round_prefer_ceil" -> (long) Math.floor(c + 0.5f);
                    case "floor" -> (long) Math.floor(c);
                    case "ceil" -> (long) Math.ceil(c);
                    default -> throw new IllegalArgumentException("nearest_mode '" + nearestMode + "' is not supported");
                };
                source[d][i] = (int) clamp(nearest, 0, s[d] - 1);
            }
        }
        int total = count(out);
        float[] o = new float[total];
        if (total == 0) return new Tensor(out, o);
        if (rank == 0) return new Tensor(out, x.data.clone());
        int[] inStride = strides(s);
        int inner = (int) out[rank - 1];
        int[] last = source[rank - 1], c = new int[rank];
        for (int at = 0; at < total; at += inner) {
            int base = 0;
            for (int d = 0; d < rank - 1; d++) base += source[d][c[d]] * inStride[d];
            for (int j = 0; j < inner; j++) o[at + j] = x.data[base + last[j]];
            for (int d = rank - 2; d >= 0; d--) {
                if (++c[d] < out[d]) break;
                c[d] = 0;
            }
        }
        return new Tensor(out, o);
    }

    /** The input coordinate of output coordinate {@code i} along a dimension resized from {@code in} to {@code out}. */
    private static float original(String transform, int i, float scale, long out, long in) {
        float x = i;
        return switch (transform) {
            case "half_pixel" -> (x + 0.5f) / scale - 0.5f;
            case "half_pixel_symmetric" -> {
                float adjustment = out / (scale * in);
                float center = in / 2f;
                float offset = center * (1 - adjustment);
                yield offset + (x + 0.5f) / scale - 0.5f;
            }
            case "pytorch_half_pixel" -> out > 1 ? (x + 0.5f) / scale - 0.5f : 0;
            case "align_corners" -> out == 1 ? 0 : x * (in - 1) / (out - 1);
            case "asymmetric" -> x / scale;
            default -> throw new IllegalArgumentException("coordinate_transformation_mode '" + transform
                    + "' is not supported");
        };
    }

    private static Tensor bilinear(Tensor x, long[] out, float[] scale, String transform) {
        long[] s = x.shape;
        int rank = s.length;
        if (rank < 2) {
            throw new IllegalArgumentException("linear resizing needs two dimensions, found " + Arrays.toString(s));
        }
        for (int d = 0; d < rank - 2; d++) {
            if (out[d] != s[d]) {
                throw new IllegalArgumentException("linear resizing of dimension " + d + " (only the last two are)");
            }
        }
        int h = (int) s[rank - 2], w = (int) s[rank - 1], outH = (int) out[rank - 2], outW = (int) out[rank - 1];
        int[] y0 = new int[outH], y1 = new int[outH], x0 = new int[outW], x1 = new int[outW];
        float[] fy = new float[outH], fx = new float[outW];
        taps(transform, scale[rank - 2], outH, h, y0, y1, fy);
        taps(transform, scale[rank - 1], outW, w, x0, x1, fx);
        int planes = product(s, 0, rank - 2);
        float[] o = new float[count(out)];
        int at = 0;
        for (int p = 0; p < planes; p++) {
            int plane = p * h * w;
            for (int oy = 0; oy < outH; oy++) {
                int r0 = plane + y0[oy] * w, r1 = plane + y1[oy] * w;
                float b = fy[oy], a = 1 - b;
                for (int ox = 0; ox < outW; ox++, at++) {
                    float d = fx[ox], c = 1 - d;
                    o[at] = a * (c * x.data[r0 + x0[ox]] + d * x.data[r0 + x1[ox]])
                            + b * (c * x.data[r1 + x0[ox]] + d * x.data[r1 + x1[ox]]);
                }
            }
        }
        return new Tensor(out, o);
    }

    /** The two input taps and the weight of the second for each output coordinate; outside the input, the edge. */
    private static void taps(String transform, float scale, int out, int in, int[] first, int[] second, float[] weight) {
        for (int i = 0; i < out; i++) {
            float c = Math.max(0, Math.min(original(transform, i, scale, out, in), in - 1));
            int f = (int) c;
            first[i] = f;
            second[i] = Math.min(f + 1, in - 1);
            weight[i] = c - f;
        }
    }

    // ---- products

    /** Numpy's matmul: 1-D operands promoted to matrices, the batch dimensions broadcast. */
    private static Tensor matMul(Tensor a, Tensor b) {
        long[] as = a.shape, bs = b.shape;
        if (as.length == 0 || bs.length == 0) throw new IllegalArgumentException("MatMul of a scalar");
        long[] a2 = as.length == 1 ? new long[] {1, as[0]} : as, b2 = bs.length == 1 ? new long[] {bs[0], 1} : bs;
        int m = (int) a2[a2.length - 2], k = (int) a2[a2.length - 1], n = (int) b2[b2.length - 1];
        if (k != b2[b2.length - 2]) {
            throw new IllegalArgumentException("cannot multiply " + Arrays.toString(as) + " by " + Arrays.toString(bs));
        }
        long[] aBatch = Arrays.copyOf(a2, a2.length - 2), bBatch = Arrays.copyOf(b2, b2.length - 2);
        long[] batch = broadcast(aBatch, bBatch);
        int[] aAt = batchOffsets(batch, aBatch), bAt = batchOffsets(batch, bBatch);
        List<Long> shape = new ArrayList<>();
        for (long d : batch) shape.add(d);
        if (as.length > 1) shape.add((long) m);
        if (bs.length > 1) shape.add((long) n);
        long[] out = shape.stream().mapToLong(Long::longValue).toArray();
        float[] o = new float[count(out)];
        for (int i = 0; i < aAt.length; i++) {
            multiplyAdd(a.data, aAt[i] * m * k, b.data, bAt[i] * k * n, o, i * m * n, m, k, n);
        }
        return new Tensor(out, o);
    }

    /** For each position of the broadcast batch, the index of the operand's matrix. */
    private static int[] batchOffsets(long[] batch, long[] operand) {
        int count = count(batch);
        if (batch.length == 0) return new int[] {0};
        int[] stride = broadcastStrides(batch, operand);
        int[] at = new int[count];
        int[] c = new int[batch.length];
        int p = 0;
        for (int i = 0; i < count; i++) {
            at[i] = p;
            for (int d = batch.length - 1; d >= 0; d--) {
                p += stride[d];
                if (++c[d] < batch[d]) break;
                p -= stride[d] * (int) batch[d];
                c[d] = 0;
            }
        }
        return at;
    }

    /** alpha * A' B' + beta * C, A' and B' optionally transposed, C broadcast to [M, N]. */
    private static Tensor gemm(OnnxNode n, Tensor[] in) {
        Tensor a = in[0], b = in[1];
        Tensor c = in.length > 2 ? in[2] : null;
        if (a.rank() != 2 || b.rank() != 2) {
            throw new IllegalArgumentException("Gemm needs two matrices, found " + Arrays.toString(a.shape) + " and "
                    + Arrays.toString(b.shape));
        }
        boolean ta = n.intAttribute("transA", 0) != 0, tb = n.intAttribute("transB", 0) != 0;
        float alpha = n.floatAttribute("alpha", 1), beta = n.floatAttribute("beta", 1);
        float[] ad = ta ? transposed(a) : a.data, bd = tb ? transposed(b) : b.data;
        int m = (int) (ta ? a.shape[1] : a.shape[0]), k = (int) (ta ? a.shape[0] : a.shape[1]);
        int kb = (int) (tb ? b.shape[1] : b.shape[0]), cols = (int) (tb ? b.shape[0] : b.shape[1]);
        if (k != kb) {
            throw new IllegalArgumentException("cannot multiply " + Arrays.toString(a.shape) + " by "
                    + Arrays.toString(b.shape));
        }
        long[] out = {m, cols};
        float[] o = new float[m * cols];
        multiplyAdd(ad, 0, bd, 0, o, 0, m, k, cols);
        if (alpha != 1) for (int i = 0; i < o.length; i++) o[i] *= alpha;
        if (c != null && beta != 0) {
            long[] cs = c.shape;
            if (!Arrays.equals(broadcast(out, cs), out)) {
                throw new IllegalArgumentException("C " + Arrays.toString(cs) + " does not broadcast to "
                        + Arrays.toString(out));
            }
            Tensor full = strided(c.data, 0, out, broadcastStrides(out, cs));
            for (int i = 0; i < o.length; i++) o[i] += beta * full.data[i];
        }
        return new Tensor(out, o);
    }

    private static float[] transposed(Tensor m) {
        int rows = (int) m.shape[0], cols = (int) m.shape[1];
        float[] t = new float[m.data.length];
        for (int r = 0; r < rows; r++) for (int c = 0; c < cols; c++) t[c * rows + r] = m.data[r * cols + c];
        return t;
    }

    // ---- heads

    /** Axes: the attribute before opset 18, the optional second input from 18 on. */
    private Tensor reduceMax(OnnxNode n, Tensor[] in) {
        Tensor x = in[0];
        long[] s = x.shape;
        int rank = s.length;
        long[] axes = opset < 18 ? n.intsAttribute("axes") : in.length > 1 && in[1] != null ? longs(in[1]) : null;
        boolean keep = n.intAttribute("keepdims", 1) != 0;
        boolean[] reduced = new boolean[rank];
        if (axes == null || axes.length == 0) {
            if (opset >= 18 && n.intAttribute("noop_with_empty_axes", 0) != 0) return x;
            Arrays.fill(reduced, true);
        } else {
            for (long a : axes) reduced[axis(a, rank)] = true;
        }
        long[] kept = s.clone();
        List<Long> shape = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (reduced[d]) kept[d] = 1;
            if (!reduced[d]) shape.add(s[d]);
            else if (keep) shape.add(1L);
        }
        float[] o = new float[count(kept)];
        Arrays.fill(o, Float.NEGATIVE_INFINITY);
        if (x.data.length > 0) {
            // walk the input row by row; each element goes to the output position with the reduced coordinates 0
            int[] outStride = broadcastStrides(s, kept);
            int[] rows = rowOffsets(s, 0, outStride);
            int inner = rank == 0 ? 1 : (int) s[rank - 1], step = rank == 0 ? 0 : outStride[rank - 1];
            for (int r = 0; r < rows.length; r++) {
                int base = rows[r], at = r * inner;
                for (int j = 0; j < inner; j++) o[base + j * step] = Math.max(o[base + j * step], x.data[at + j]);
            }
        }
        return new Tensor(shape.stream().mapToLong(Long::longValue).toArray(), o);
    }

    private static Tensor argMax(OnnxNode n, Tensor x) {
        long[] s = x.shape;
        int rank = s.length;
        int axis = axis(n.intAttribute("axis", 0), rank);
        boolean keep = n.intAttribute("keepdims", 1) != 0, last = n.intAttribute("select_last_index", 0) != 0;
        int outer = product(s, 0, axis), size = (int) s[axis], inner = product(s, axis + 1, rank);
        float[] o = new float[outer * inner];
        for (int b = 0; b < outer; b++) {
            for (int i = 0; i < inner; i++) {
                int base = b * size * inner + i, best = 0;
                float m = x.data[base];
                for (int j = 1; j < size; j++) {
                    float v = x.data[base + j * inner];
                    if (v > m || last && v == m) {
                        m = v;
                        best = j;
                    }
                }
                o[b * inner + i] = best;
            }
        }
        long[] out;
        if (keep) {
            out = s.clone();
            out[axis] = 1;
        } else {
            out = new long[rank - 1];
            for (int d = 0, k = 0; d < rank; d++) if (d != axis) out[k++] = s[d];
        }
        return new Tensor(out, o);
    }

    /**
     * The k largest (or smallest) along an axis with their indices, equal values in the order of their indices. Sorted
     * (the default) in order of value; unsorted, in order of index.
     */
    private static Tensor[] topK(OnnxNode n, Tensor x, Tensor kTensor) {
        long[] s = x.shape;
        int rank = s.length;
        int axis = axis(n.intAttribute("axis", -1), rank);
        boolean largest = n.intAttribute("largest", 1) != 0, sorted = n.intAttribute("sorted", 1) != 0;
        int k = (int) kTensor.data[0];
        int outer = product(s, 0, axis), size = (int) s[axis], inner = product(s, axis + 1, rank);
        if (k < 0 || k > size) {
            throw new IllegalArgumentException("K " + k + " for dimension " + axis + " of " + Arrays.toString(s));
        }
        long[] out = s.clone();
        out[axis] = k;
        float[] values = new float[outer * k * inner], indices = new float[values.length];
        // one long per element: the value's order in the high half, the index in the low half, so a plain sort of
        // longs orders by value and then by index, with no boxing
        long[] keys = new long[size];
        int[] chosen = new int[k];
        for (int b = 0; b < outer; b++) {
            for (int i = 0; i < inner; i++) {
                int base = b * size * inner + i;
                for (int j = 0; j < size; j++) {
                    int order = orderBits(x.data[base + j * inner]);
                    keys[j] = ((long) (largest ? ~order : order) << 32) | j;
                }
                Arrays.sort(keys);
                for (int r = 0; r < k; r++) chosen[r] = (int) keys[r];
                if (!sorted) Arrays.sort(chosen, 0, k);
                int outBase = b * k * inner + i;
                for (int r = 0; r < k; r++) {
                    int j = chosen[r];
                    values[outBase + r * inner] = x.data[base + j * inner];
                    indices[outBase + r * inner] = j;
                }
            }
        }
        return new Tensor[] {new Tensor(out, values), new Tensor(out.clone(), indices)};
    }

    /** An int whose signed order is the float's numeric order (-0 and 0 equal). */
    private static int orderBits(float v) {
        int bits = Float.floatToIntBits(v == 0 ? 0f : v);
        return bits ^ ((bits >> 31) & 0x7fffffff);
    }

    // ---- shapes and constants

    private static Tensor shapeOf(OnnxNode n, Tensor x) {
        long[] s = x.shape;
        int rank = s.length;
        long start = n.intAttribute("start", 0), end = n.intAttribute("end", rank);
        start = clamp(start < 0 ? start + rank : start, 0, rank);
        end = clamp(end < 0 ? end + rank : end, 0, rank);
        int length = (int) Math.max(0, end - start);
        float[] o = new float[length];
        for (int i = 0; i < length; i++) o[i] = s[(int) start + i];
        return new Tensor(new long[] {length}, o);
    }

    private static Tensor constant(OnnxNode n) {
        OnnxAttribute a;
        if ((a = n.attribute("value")) != null && a.t() != null) return tensorOf(a.t());
        if ((a = n.attribute("value_float")) != null) return new Tensor(new long[0], new float[] {a.f()});
        if ((a = n.attribute("value_floats")) != null) return new Tensor(new long[] {a.floats().length}, a.floats());
        if ((a = n.attribute("value_int")) != null) return new Tensor(new long[0], new float[] {a.i()});
        if ((a = n.attribute("value_ints")) != null) {
            long[] v = a.ints();
            float[] o = new float[v.length];
            for (int i = 0; i < v.length; i++) o[i] = v[i];
            return new Tensor(new long[] {v.length}, o);
        }
        throw new IllegalArgumentException("expected one of the attributes value, value_float(s), value_int(s); found "
                + n.attributes().keySet());
    }

    private static Tensor constantOfShape(OnnxNode n, Tensor shape) {
        long[] out = longs(shape);
        OnnxAttribute a = n.attribute("value");
        float fill = a != null && a.t() != null ? (float) a.t().value(0) : 0;
        float[] o = new float[count(out)];
        Arrays.fill(o, fill);
        return new Tensor(out, o);
    }

    /** As ONNX Runtime: the count from the difference in double, the values by repeated addition of delta. */
    private Tensor range(OnnxNode n, Tensor start, Tensor limit, Tensor delta) {
        float first = start.data[0], d = delta.data[0];
        if (d == 0) throw new IllegalArgumentException("delta is 0");
        long count = Math.max((long) Math.ceil(((double) limit.data[0] - first) / d), 0);
        float[] o = new float[(int) count];
        boolean floating = typeOf(n.input(0)).floating();
        float v = first;
        for (int i = 0; i < count; i++) {
            o[i] = v;
            v = floating ? v + d : (float) ((long) first + (i + 1) * (long) d);
        }
        return new Tensor(new long[] {count}, o);
    }

    /**
     * Per image and class, greedy suppression in order of score (ties by index): a box is kept when its score is
     * above score_threshold and its IoU with every box kept before it at most iou_threshold, up to
     * max_output_boxes_per_class (absent: 0, none). Boxes are corners [y1, x1, y2, x2] in either order
     * (center_point_box 0) or [x_center, y_center, width, height] (1). The output is [selected, 3]: image, class, box,
     * with as many rows as were selected. The arithmetic is ONNX Runtime's, in float, so a pair at the threshold goes
     * the same way.
     */
    private static Tensor nonMaxSuppression(OnnxNode n, Tensor[] in) {
        Tensor boxes = in[0], scores = in[1];
        long limit = in.length > 2 && in[2] != null && in[2].data.length > 0 ? (long) in[2].data[0] : 0;
        float iouThreshold = in.length > 3 && in[3] != null && in[3].data.length > 0 ? in[3].data[0] : 0;
        boolean hasScoreThreshold = in.length > 4 && in[4] != null && in[4].data.length > 0;
        float scoreThreshold = hasScoreThreshold ? in[4].data[0] : 0;
        boolean center = n.intAttribute("center_point_box", 0) != 0;
        long[] bs = boxes.shape, ss = scores.shape;
        if (bs.length != 3 || bs[2] != 4 || ss.length != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
            throw new IllegalArgumentException("expected boxes [B, N, 4] and scores [B, C, N], found " + Arrays.toString(bs)
                    + " and " + Arrays.toString(ss));
        }
        int images = (int) bs[0], count = (int) bs[1], classes = (int) ss[1];
        List<int[]> selected = new ArrayList<>();
        float[] corners = new float[count * 4]; // x1, y1, x2, y2 with x1 <= x2, y1 <= y2
        long[] keys = new long[count];
        int[] kept = new int[count];
        for (int img = 0; img < images; img++) {
            for (int i = 0; i < count; i++) {
                int at = (img * count + i) * 4;
                float a = boxes.data[at], b = boxes.data[at + 1], c = boxes.data[at + 2], d = boxes.data[at + 3];
                if (center) {
                    float halfW = c / 2, halfH = d / 2;
                    corners[i * 4] = a - halfW;
                    corners[i * 4 + 1] = b - halfH;
                    corners[i * 4 + 2] = a + halfW;
                    corners[i * 4 + 3] = b + halfH;
                } else {
                    corners[i * 4] = Math.min(b, d);
                    corners[i * 4 + 1] = Math.min(a, c);
                    corners[i * 4 + 2] = Math.max(b, d);
                    corners[i * 4 + 3] = Math.max(a, c);
                }
            }
            for (int cls = 0; cls < classes; cls++) {
                int base = (img * classes + cls) * count, candidates = 0;
                for (int i = 0; i < count; i++) {
                    float score = scores.data[base + i];
                    if (hasScoreThreshold && !(score > scoreThreshold)) continue;
                    keys[candidates++] = ((long) ~orderBits(score) << 32) | i; // highest first, then lowest index
                }
                Arrays.sort(keys, 0, candidates);
                int keptCount = 0;
                for (int c = 0; c < candidates && keptCount < limit; c++) {
                    int box = (int) keys[c];
                    boolean suppressed = false;
                    for (int q = 0; q < keptCount && !suppressed; q++) {
                        suppressed = overlaps(corners, box, kept[q], iouThreshold);
                    }
                    if (suppressed) continue;
                    kept[keptCount++] = box;
                    selected.add(new int[] {img, cls, box});
                }
            }
        }
        float[] o = new float[selected.size() * 3];
        for (int i = 0; i < selected.size(); i++) {
            int[] row = selected.get(i);
            o[3 * i] = row[0];
            o[3 * i + 1] = row[1];
            o[3 * i + 2] = row[2];
        }
        return new Tensor(new long[] {selected.size(), 3}, o);
    }

    /** Whether the IoU of two boxes (corners) is above the threshold; an empty box overlaps nothing. */
    private static boolean overlaps(float[] corners, int i, int j, float threshold) {
        int a = i * 4, b = j * 4;
        float left = Math.max(corners[a], corners[b]), right = Math.min(corners[a + 2], corners[b + 2]);
        if (right <= left) return false;
        float top = Math.max(corners[a + 1], corners[b + 1]), bottom = Math.min(corners[a + 3], corners[b + 3]);
        if (bottom <= top) return false;
        float intersection = (right - left) * (bottom - top);
        if (intersection <= 0) return false;
        float areaA = (corners[a + 2] - corners[a]) * (corners[a + 3] - corners[a + 1]);
        float areaB = (corners[b + 2] - corners[b]) * (corners[b + 3] - corners[b + 1]);
        float union = areaA + areaB - intersection;
        if (areaA <= 0 || areaB <= 0 || union <= 0) return false;
        return intersection / union > threshold;
    }
}
