package io.argus.detector.onnx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Shapes and constants at load: walks the nodes in order (ONNX keeps them topologically sorted) and gives every
 * output a static shape and, when all that it reads is known at load, its values. The values are what makes the
 * shapes static: exporters compute a Reshape's target or a Resize's size from {@code Shape} of a tensor through
 * Gather, Unsqueeze, Concat, Cast and arithmetic, and with a static input every step of that folds to a constant.
 *
 * <p>A node whose output shape depends on a value not known at load (a Reshape to a computed shape, a Slice with
 * computed bounds) is refused, naming the node: every later stage (memory planning, kernels, CUDA graphs) relies on
 * static shapes.
 */
final class OnnxShapeInference {
    /** Constants larger than this are left to run time rather than folded (weights arithmetic, not shapes). */
    private static final long FOLD_LIMIT = 1 << 16;

    /** Why one node's outputs cannot be inferred; the caller names the node and the file. */
    static final class Refusal extends RuntimeException {
        Refusal(String message) { super(message); }
    }

    private final Map<String, OnnxValue> values;
    private final int opset;
    private OnnxNode node;

    /** {@code values} holds the graph's inputs and initializers; the outputs of every node are added to it. */
    OnnxShapeInference(Map<String, OnnxValue> values, int opset) {
        this.values = values;
        this.opset = opset;
    }

    /** Infers the outputs of one node and adds them to the values. */
    void infer(OnnxNode n) {
        node = n;
        for (int i = 0; i < n.inputs().size(); i++) {
            String in = n.inputs().get(i);
            if (!in.isEmpty() && !values.containsKey(in)) {
                throw new Refusal("input " + i + " ('" + in + "') is not a graph input, an initializer or the output of"
                        + " an earlier node");
            }
        }
        boolean upper = false;
        for (String in : n.inputs()) if (!in.isEmpty() && values.get(in).upperBound()) upper = true;
        List<OnnxValue> outs = outputs();
        for (int i = 0; i < outs.size() && i < n.outputs().size(); i++) {
            String name = n.outputs().get(i);
            if (name.isEmpty()) continue;
            OnnxValue v = outs.get(i);
            OnnxTensor c = v.constant() == null ? null : v.constant().renamed(name, v.shape());
            values.put(name, new OnnxValue(name, v.type(), v.shape(), upper || v.upperBound(), upper ? null : c));
        }
    }

    private List<OnnxValue> outputs() {
        String op = node.op();
        return switch (op) {
            case "Identity", "Sigmoid", "Relu", "LeakyRelu", "Tanh", "Softplus", "HardSigmoid", "HardSwish", "Softmax",
                 "Clip", "BatchNormalization", "Sqrt", "Exp", "Neg", "Floor", "Ceil" -> List.of(unary(op));
            case "Add", "Sub", "Mul", "Div", "Pow", "Min", "Max", "Equal" -> List.of(elementwise(op));
            case "Where" -> List.of(where());
            case "Cast" -> List.of(cast());
            case "Constant" -> List.of(constant());
            case "ConstantOfShape" -> List.of(constantOfShape());
            case "Shape" -> List.of(shapeOf());
            case "Gather" -> List.of(gather());
            case "Unsqueeze" -> List.of(unsqueeze());
            case "Squeeze" -> List.of(squeeze());
            case "Reshape" -> List.of(reshape());
            case "Flatten" -> List.of(flatten());
            case "Concat" -> List.of(concat());
            case "Slice" -> List.of(slice());
            case "Range" -> List.of(range());
            case "Expand" -> List.of(expand());
            case "Split" -> split();
            case "Transpose" -> List.of(transpose());
            case "Tile" -> List.of(tile());
            case "Pad" -> List.of(pad());
            case "Conv" -> List.of(conv());
            case "MaxPool", "AveragePool" -> List.of(pool(), pool());
            case "GlobalAveragePool" -> List.of(globalPool());
            case "Resize" -> List.of(resize());
            case "MatMul" -> List.of(matMul());
            case "Gemm" -> List.of(gemm());
            case "ReduceMax" -> List.of(reduceMax());
            case "ArgMax" -> List.of(argMax());
            case "TopK" -> topK();
            case "NonMaxSuppression" -> List.of(nonMaxSuppression());
            default -> throw new Refusal("no shape rule for " + op);
        };
    }

    // ---- inputs

    private OnnxValue in(int i) {
        String name = node.input(i);
        if (name.isEmpty()) throw new Refusal("input " + i + " is missing");
        return values.get(name);
    }

    private boolean has(int i) { return !node.input(i).isEmpty(); }

    private long[] shape(int i) { return in(i).shape(); }

    /** Input i's values, which the output shape depends on. */
    private OnnxTensor known(int i) {
        OnnxValue v = in(i);
        if (v.constant() == null) {
            throw new Refusal("input " + i + " ('" + v.name() + "') decides the output shape but is computed at run"
                    + " time: expected a constant or a value computed from static shapes");
        }
        return v.constant();
    }

    private long[] knownLongs(int i) {
        OnnxTensor t = known(i);
        long[] v = new long[t.size()];
        for (int k = 0; k < v.length; k++) v[k] = t.longValue(k);
        return v;
    }

    private boolean allKnown() {
        for (int i = 0; i < node.inputs().size(); i++) {
            if (has(i) && in(i).constant() == null) return false;
        }
        return true;
    }

    private static OnnxValue value(OnnxType type, long[] shape) { return new OnnxValue("", type, shape, false, null); }

    private static OnnxValue folded(OnnxTensor t) { return new OnnxValue("", t.type(), t.shape(), false, t); }

    private static boolean foldable(long[] shape) { return elements(shape) <= FOLD_LIMIT; }

    private static long elements(long[] shape) {
        long n = 1;
        for (long d : shape) n *= d;
        return n;
    }

    private int axis(long axis, int rank) {
        long a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank) throw new Refusal("axis " + axis + " is out of range for rank " + rank);
        return (int) a;
    }

    // ---- element-wise

    private OnnxValue unary(String op) {
        OnnxValue x = in(0);
        if (x.constant() == null || !foldable(x.shape()) || !List.of("Identity", "Neg", "Floor", "Ceil", "Sqrt", "Exp").contains(op)) {
            return value(x.type(), x.shape());
        }
        OnnxTensor c = x.constant();
        if (op.equals("Identity")) return folded(c);
        if (!c.type().floating()) {
            long[] v = new long[c.size()];
            for (int k = 0; k < v.length; k++) v[k] = op.equals("Neg") ? -c.longValue(k) : c.longValue(k);
            if (op.equals("Sqrt") || op.equals("Exp")) return value(x.type(), x.shape());
            return folded(OnnxTensor.ofLongs("", c.type(), c.shape(), v));
        }
        float[] v = new float[c.size()];
        for (int k = 0; k < v.length; k++) {
            double a = c.value(k);
            v[k] = (float) switch (op) {
                case "Neg" -> -a;
                case "Floor" -> Math.floor(a);
                case "Ceil" -> Math.ceil(a);
                case "Sqrt" -> Math.sqrt(a);
                default -> Math.exp(a);
            };
        }
        return folded(OnnxTensor.ofFloats("", c.type(), c.shape(), v));
    }

    /** Numpy's multidirectional broadcasting. */
    private long[] broadcast(long[]... shapes) {
        int rank = 0;
        for (long[] s : shapes) rank = Math.max(rank, s.length);
        long[] out = new long[rank];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int k = 0; k < s.length; k++) {
                int d = rank - s.length + k;
                if (s[k] == out[d] || s[k] == 1) continue;
                if (out[d] != 1) {
                    throw new Refusal("shapes " + Arrays.deepToString(shapes) + " do not broadcast (dimension " + d + ")");
                }
                out[d] = s[k];
            }
        }
        return out;
    }

    /** For each element of {@code out}, the index of the element of a tensor of shape {@code in} it broadcasts from. */
    private static int[] broadcastIndex(long[] out, long[] in) {
        int n = (int) elements(out);
        int[] index = new int[n];
        int rank = out.length;
        long[] stride = new long[rank];
        long s = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int k = d - (rank - in.length);
            stride[d] = k >= 0 && in[k] != 1 ? s : 0;
            if (k >= 0) s *= in[k];
        }
        for (int i = 0; i < n; i++) {
            long rest = i, at = 0;
            for (int d = rank - 1; d >= 0; d--) {
                at += (rest % out[d]) * stride[d];
                rest /= out[d];
            }
            index[i] = (int) at;
        }
        return index;
    }

    private OnnxValue elementwise(String op) {
        int count = node.inputs().size();
        long[][] shapes = new long[count][];
        for (int i = 0; i < count; i++) shapes[i] = shape(i);
        long[] out = broadcast(shapes);
        OnnxType type = op.equals("Equal") ? OnnxType.BOOL : in(0).type();
        if (!allKnown() || !foldable(out)) return value(type, out);
        OnnxTensor[] c = new OnnxTensor[count];
        int[][] index = new int[count][];
        for (int i = 0; i < count; i++) {
            c[i] = in(i).constant();
            index[i] = broadcastIndex(out, c[i].shape());
        }
        int n = (int) elements(out);
        boolean floating = in(0).type().floating();
        if (floating && !op.equals("Equal")) {
            float[] v = new float[n];
            for (int k = 0; k < n; k++) {
                double a = c[0].value(index[0][k]);
                for (int i = 1; i < count; i++) a = apply(op, a, c[i].value(index[i][k]));
                v[k] = (float) a;
            }
            return folded(OnnxTensor.ofFloats("", type, out, v));
        }
        long[] v = new long[n];
        for (int k = 0; k < n; k++) {
            if (op.equals("Equal")) {
                v[k] = c[0].value(index[0][k]) == c[1].value(index[1][k]) ? 1 : 0;
                continue;
            }
            long a = c[0].longValue(index[0][k]);
            for (int i = 1; i < count; i++) a = apply(op, a, c[i].longValue(index[i][k]));
            v[k] = a;
        }
        return folded(OnnxTensor.ofLongs("", type, out, v));
    }

    private static double apply(String op, double a, double b) {
        return switch (op) {
            case "Add" -> a + b;
            case "Sub" -> a - b;
            case "Mul" -> a * b;
            case "Div" -> a / b;
            case "Pow" -> Math.pow(a, b);
            case "Min" -> Math.min(a, b);
            default -> Math.max(a, b);
        };
    }

    private long apply(String op, long a, long b) {
        return switch (op) {
            case "Add" -> a + b;
            case "Sub" -> a - b;
            case "Mul" -> a * b;
            case "Div" -> {
                if (b == 0) throw new Refusal("integer division by zero while folding");
                yield a / b; // truncation, as ONNX's integer Div
            }
            case "Pow" -> (long) Math.pow(a, b);
            case "Min" -> Math.min(a, b);
            default -> Math.max(a, b);
        };
    }

    private OnnxValue where() {
        long[] out = broadcast(shape(0), shape(1), shape(2));
        OnnxType type = in(1).type();
        if (!allKnown() || !foldable(out)) return value(type, out);
        OnnxTensor cond = known(0), x = known(1), y = known(2);
        int[] ic = broadcastIndex(out, cond.shape()), ix = broadcastIndex(out, x.shape()), iy = broadcastIndex(out, y.shape());
        int n = (int) elements(out);
        if (type.floating()) {
            float[] v = new float[n];
            for (int k = 0; k < n; k++) v[k] = (float) (cond.longValue(ic[k]) != 0 ? x.value(ix[k]) : y.value(iy[k]));
            return folded(OnnxTensor.ofFloats("", type, out, v));
        }
        long[] v = new long[n];
        for (int k = 0; k < n; k++) v[k] = cond.longValue(ic[k]) != 0 ? x.longValue(ix[k]) : y.longValue(iy[k]);
        return folded(OnnxTensor.ofLongs("", type, out, v));
    }

    // ---- constants and casts

    private OnnxType typeOf(long number) {
        OnnxType t = OnnxType.of((int) number);
        if (t == null || !t.numeric()) throw new Refusal("element type " + OnnxTensor.describe((int) number) + " is not supported");
        return t;
    }

    private OnnxTensor convert(OnnxTensor c, OnnxType to) {
        if (to.floating()) {
            float[] v = new float[c.size()];
            for (int k = 0; k < v.length; k++) v[k] = (float) c.value(k);
            return OnnxTensor.ofFloats("", to, c.shape(), v);
        }
        long[] v = new long[c.size()];
        for (int k = 0; k < v.length; k++) v[k] = to == OnnxType.BOOL ? (c.value(k) != 0 ? 1 : 0) : c.longValue(k);
        return OnnxTensor.ofLongs("", to, c.shape(), v);
    }

    private OnnxValue cast() {
        OnnxAttribute to = node.attribute("to");
        if (to == null) throw new Refusal("attribute 'to' is missing");
        OnnxType type = typeOf(to.i());
        OnnxValue x = in(0);
        if (x.constant() == null || !foldable(x.shape())) return value(type, x.shape());
        return folded(convert(x.constant(), type));
    }

    private OnnxValue constant() {
        if (node.attribute("value") != null && node.attribute("value").t() != null) return folded(node.attribute("value").t());
        OnnxAttribute a;
        if ((a = node.attribute("value_float")) != null) return folded(OnnxTensor.ofFloats("", OnnxType.FLOAT, new long[0], new float[] {a.f()}));
        if ((a = node.attribute("value_floats")) != null) {
            return folded(OnnxTensor.ofFloats("", OnnxType.FLOAT, new long[] {a.floats().length}, a.floats()));
        }
        if ((a = node.attribute("value_int")) != null) return folded(OnnxTensor.ofLongs("", OnnxType.INT64, new long[0], new long[] {a.i()}));
        if ((a = node.attribute("value_ints")) != null) {
            return folded(OnnxTensor.ofLongs("", OnnxType.INT64, new long[] {a.ints().length}, a.ints()));
        }
        throw new Refusal("expected one of the attributes value, value_float(s), value_int(s); found "
                + node.attributes().keySet());
    }

    private OnnxValue constantOfShape() {
        long[] out = knownLongs(0);
        OnnxAttribute a = node.attribute("value");
        OnnxTensor fill = a != null && a.t() != null ? a.t() : OnnxTensor.ofFloats("", OnnxType.FLOAT, new long[] {1}, new float[] {0});
        if (!foldable(out)) return value(fill.type(), out);
        int n = (int) elements(out);
        if (fill.type().floating()) {
            float[] v = new float[n];
            Arrays.fill(v, (float) fill.value(0));
            return folded(OnnxTensor.ofFloats("", fill.type(), out, v));
        }
        long[] v = new long[n];
        Arrays.fill(v, fill.longValue(0));
        return folded(OnnxTensor.ofLongs("", fill.type(), out, v));
    }

    private OnnxValue shapeOf() {
        OnnxValue x = in(0);
        long[] s = x.shape();
        int rank = s.length;
        long start = node.intAttribute("start", 0), end = node.intAttribute("end", rank);
        start = Math.clamp(start < 0 ? start + rank : start, 0, rank);
        end = Math.clamp(end < 0 ? end + rank : end, 0, rank);
        long[] v = Arrays.copyOfRange(s, (int) start, (int) Math.max(start, end));
        if (x.upperBound()) return value(OnnxType.INT64, new long[] {v.length});
        return folded(OnnxTensor.ofLongs("", OnnxType.INT64, new long[] {v.length}, v));
    }

    // ---- layout

    /** Copies elements of a constant into a new shape by an index map (out element -> in element). */
    private static OnnxTensor gatherElements(OnnxTensor c, long[] out, int[] from) {
        if (c.type().floating()) {
            float[] v = new float[from.length];
            for (int k = 0; k < v.length; k++) v[k] = (float) c.value(from[k]);
            return OnnxTensor.ofFloats("", c.type(), out, v);
        }
        long[] v = new long[from.length];
        for (int k = 0; k < v.length; k++) v[k] = c.longValue(from[k]);
        return OnnxTensor.ofLongs("", c.type(), out, v);
    }

    private OnnxValue gather() {
        long[] data = shape(0), indices = shape(1);
        int axis = axis(node.intAttribute("axis", 0), data.length);
        long[] out = new long[data.length - 1 + indices.length];
        System.arraycopy(data, 0, out, 0, axis);
        System.arraycopy(indices, 0, out, axis, indices.length);
        System.arraycopy(data, axis + 1, out, axis + indices.length, data.length - axis - 1);
        if (!allKnown() || !foldable(out)) return value(in(0).type(), out);
        OnnxTensor c = known(0), idx = known(1);
        long outer = elements(Arrays.copyOfRange(data, 0, axis));
        long inner = elements(Arrays.copyOfRange(data, axis + 1, data.length));
        int[] from = new int[(int) elements(out)];
        int k = 0;
        for (long o = 0; o < outer; o++) {
            for (int j = 0; j < idx.size(); j++) {
                long at = idx.longValue(j);
                if (at < 0) at += data[axis];
                if (at < 0 || at >= data[axis]) throw new Refusal("index " + idx.longValue(j) + " is out of range for dimension " + data[axis]);
                for (long i = 0; i < inner; i++) from[k++] = (int) ((o * data[axis] + at) * inner + i);
            }
        }
        return folded(gatherElements(c, out, from));
    }

    /** Unsqueeze's and Squeeze's axes: the attribute before opset 13, the second input from 13 on. */
    private long[] axesArgument() {
        if (opset < 13) return node.intsAttribute("axes");
        return has(1) ? knownLongs(1) : null;
    }

    private OnnxValue sameValues(long[] out) {
        OnnxValue x = in(0);
        if (elements(out) != x.elements()) {
            throw new Refusal("cannot give " + x.elements() + " elements " + Arrays.toString(x.shape()) + " the shape " + Arrays.toString(out));
        }
        if (x.constant() == null) return value(x.type(), out);
        return folded(x.constant().renamed("", out));
    }

    private OnnxValue unsqueeze() {
        long[] s = shape(0);
        long[] axes = axesArgument();
        if (axes == null) throw new Refusal("axes are missing");
        int rank = s.length + axes.length;
        boolean[] inserted = new boolean[rank];
        for (long a : axes) inserted[axis(a, rank)] = true;
        long[] out = new long[rank];
        for (int d = 0, k = 0; d < rank; d++) out[d] = inserted[d] ? 1 : s[k++];
        return sameValues(out);
    }

    private OnnxValue squeeze() {
        long[] s = shape(0);
        long[] axes = axesArgument();
        boolean[] removed = new boolean[s.length];
        if (axes == null) {
            for (int d = 0; d < s.length; d++) removed[d] = s[d] == 1;
        } else {
            for (long a : axes) {
                int d = axis(a, s.length);
                if (s[d] != 1) throw new Refusal("cannot squeeze dimension " + d + " of size " + s[d]);
                removed[d] = true;
            }
        }
        long[] out = new long[s.length];
        int k = 0;
        for (int d = 0; d < s.length; d++) if (!removed[d]) out[k++] = s[d];
        return sameValues(Arrays.copyOf(out, k));
    }

    private OnnxValue reshape() {
        long[] s = shape(0);
        long[] target = knownLongs(1);
        boolean allowZero = node.intAttribute("allowzero", 0) != 0;
        long[] out = target.clone();
        int inferred = -1;
        long known = 1;
        for (int d = 0; d < out.length; d++) {
            if (out[d] == 0 && !allowZero) {
                if (d >= s.length) throw new Refusal("target " + Arrays.toString(target) + " copies dimension " + d + " of a rank-" + s.length + " input");
                out[d] = s[d];
            }
            if (out[d] == -1) {
                if (inferred >= 0) throw new Refusal("target " + Arrays.toString(target) + " has two -1");
                inferred = d;
            } else {
                known *= out[d];
            }
        }
        if (inferred >= 0) {
            long total = elements(s);
            if (known == 0 || total % known != 0) throw new Refusal("cannot reshape " + Arrays.toString(s) + " to " + Arrays.toString(target));
            out[inferred] = total / known;
        }
        return sameValues(out);
    }

    private OnnxValue flatten() {
        long[] s = shape(0);
        long a = node.intAttribute("axis", 1);
        int axis = (int) (a < 0 ? a + s.length : a);
        if (axis < 0 || axis > s.length) throw new Refusal("axis " + a + " is out of range for rank " + s.length);
        return sameValues(new long[] {elements(Arrays.copyOfRange(s, 0, axis)), elements(Arrays.copyOfRange(s, axis, s.length))});
    }

    private OnnxValue concat() {
        long[] first = shape(0);
        OnnxAttribute a = node.attribute("axis");
        if (a == null) throw new Refusal("attribute 'axis' is missing");
        int axis = axis(a.i(), first.length);
        long[] out = first.clone();
        out[axis] = 0;
        for (int i = 0; i < node.inputs().size(); i++) {
            long[] s = shape(i);
            if (s.length != first.length) throw new Refusal("input " + i + " has rank " + s.length + ", input 0 rank " + first.length);
            for (int d = 0; d < s.length; d++) {
                if (d != axis && s[d] != first[d]) {
                    throw new Refusal("input " + i + " " + Arrays.toString(s) + " differs from input 0 " + Arrays.toString(first) + " outside axis " + axis);
                }
            }
            out[axis] += s[axis];
        }
        if (!allKnown() || !foldable(out)) return value(in(0).type(), out);
        long outer = elements(Arrays.copyOfRange(first, 0, axis));
        List<Integer> from = new ArrayList<>();
        List<OnnxTensor> parts = new ArrayList<>();
        int offset = 0;
        int[] offsets = new int[node.inputs().size()];
        for (int i = 0; i < node.inputs().size(); i++) {
            parts.add(known(i));
            offsets[i] = offset;
            offset += known(i).size();
        }
        // a combined index over the inputs laid end to end
        for (long o = 0; o < outer; o++) {
            for (int i = 0; i < parts.size(); i++) {
                long block = elements(Arrays.copyOfRange(shape(i), axis, first.length));
                for (long j = 0; j < block; j++) from.add((int) (offsets[i] + o * block + j));
            }
        }
        OnnxTensor all = joined(parts, in(0).type());
        return folded(gatherElements(all, out, from.stream().mapToInt(Integer::intValue).toArray()));
    }

    private static OnnxTensor joined(List<OnnxTensor> parts, OnnxType type) {
        int n = parts.stream().mapToInt(OnnxTensor::size).sum();
        if (type.floating()) {
            float[] v = new float[n];
            int k = 0;
            for (OnnxTensor p : parts) for (int i = 0; i < p.size(); i++) v[k++] = (float) p.value(i);
            return OnnxTensor.ofFloats("", type, new long[] {n}, v);
        }
        long[] v = new long[n];
        int k = 0;
        for (OnnxTensor p : parts) for (int i = 0; i < p.size(); i++) v[k++] = p.longValue(i);
        return OnnxTensor.ofLongs("", type, new long[] {n}, v);
    }

    private OnnxValue slice() {
        long[] s = shape(0);
        long[] starts = knownLongs(1), ends = knownLongs(2);
        long[] axes = has(3) ? knownLongs(3) : null;
        long[] steps = has(4) ? knownLongs(4) : null;
        int rank = s.length;
        long[] begin = new long[rank], step = new long[rank], out = s.clone();
        Arrays.fill(step, 1);
        for (int k = 0; k < starts.length; k++) {
            int d = axes == null ? k : axis(axes[k], rank);
            long st = steps == null ? 1 : steps[k];
            if (st == 0) throw new Refusal("step 0 on axis " + d);
            long dim = s[d];
            long b = starts[k] < 0 ? starts[k] + dim : starts[k];
            long e = ends[k] < 0 ? ends[k] + dim : ends[k];
            if (st > 0) {
                b = Math.clamp(b, 0, dim);
                e = Math.clamp(e, 0, dim);
                out[d] = Math.max(0, (e - b + st - 1) / st);
            } else {
                b = Math.clamp(b, 0, dim - 1);
                e = Math.clamp(e, -1, dim - 1);
                out[d] = Math.max(0, (b - e + (-st) - 1) / (-st));
            }
            begin[d] = b;
            step[d] = st;
        }
        if (in(0).constant() == null || !foldable(out)) return value(in(0).type(), out);
        int n = (int) elements(out);
        int[] from = new int[n];
        for (int i = 0; i < n; i++) {
            long rest = i, at = 0, stride = 1;
            for (int d = rank - 1; d >= 0; d--) {
                long c = rest % out[d];
                rest /= out[d];
                at += (begin[d] + c * step[d]) * stride;
                stride *= s[d];
            }
            from[i] = (int) at;
        }
        return folded(gatherElements(in(0).constant(), out, from));
    }

    private OnnxValue range() {
        OnnxTensor start = known(0), limit = known(1), delta = known(2);
        double d = delta.value(0);
        if (d == 0) throw new Refusal("delta is 0");
        long n = Math.max((long) Math.ceil((limit.value(0) - start.value(0)) / d), 0);
        long[] out = {n};
        if (start.type().floating()) {
            float[] v = new float[(int) n];
            for (int k = 0; k < n; k++) v[k] = (float) (start.value(0) + k * d);
            return folded(OnnxTensor.ofFloats("", start.type(), out, v));
        }
        long[] v = new long[(int) n];
        for (int k = 0; k < n; k++) v[k] = start.longValue(0) + k * delta.longValue(0);
        return folded(OnnxTensor.ofLongs("", start.type(), out, v));
    }

    private OnnxValue expand() {
        long[] out = broadcast(shape(0), knownLongs(1));
        OnnxValue x = in(0);
        if (x.constant() == null || !foldable(out)) return value(x.type(), out);
        return folded(gatherElements(x.constant(), out, broadcastIndex(out, x.shape())));
    }

    private List<OnnxValue> split() {
        long[] s = shape(0);
        int axis = axis(node.intAttribute("axis", 0), s.length);
        int parts = node.outputs().size();
        long[] sizes;
        if (opset >= 13 && has(1)) sizes = knownLongs(1);
        else if (opset < 13 && node.intsAttribute("split") != null) sizes = node.intsAttribute("split");
        else {
            long num = node.intAttribute("num_outputs", parts);
            long chunk = (s[axis] + num - 1) / num;
            sizes = new long[parts];
            for (int k = 0; k < parts; k++) sizes[k] = Math.max(0, Math.min(chunk, s[axis] - k * chunk));
        }
        if (sizes.length != parts || Arrays.stream(sizes).sum() != s[axis]) {
            throw new Refusal("split " + Arrays.toString(sizes) + " does not divide dimension " + axis + " of " + Arrays.toString(s) + " into " + parts + " outputs");
        }
        List<OnnxValue> outs = new ArrayList<>();
        for (long size : sizes) {
            long[] o = s.clone();
            o[axis] = size;
            outs.add(value(in(0).type(), o));
        }
        return outs;
    }

    private OnnxValue transpose() {
        long[] s = shape(0);
        long[] perm = node.intsAttribute("perm");
        long[] out = new long[s.length];
        for (int d = 0; d < s.length; d++) out[d] = s[perm == null ? s.length - 1 - d : axis(perm[d], s.length)];
        return value(in(0).type(), out);
    }

    private OnnxValue tile() {
        long[] s = shape(0), repeats = knownLongs(1);
        if (repeats.length != s.length) throw new Refusal("repeats " + Arrays.toString(repeats) + " for rank " + s.length);
        long[] out = s.clone();
        for (int d = 0; d < s.length; d++) out[d] *= repeats[d];
        return value(in(0).type(), out);
    }

    private OnnxValue pad() {
        long[] s = shape(0);
        long[] pads = knownLongs(1);
        long[] axes = has(3) ? knownLongs(3) : null;
        int count = axes == null ? s.length : axes.length;
        if (pads.length != 2 * count) throw new Refusal("pads " + Arrays.toString(pads) + " for " + count + " axes");
        long[] out = s.clone();
        for (int k = 0; k < count; k++) {
            int d = axes == null ? k : axis(axes[k], s.length);
            out[d] += pads[k] + pads[k + count];
        }
        return value(in(0).type(), out);
    }

    // ---- convolution, pooling, resizing, products

    /** Output size of a window of {@code kernel} (dilated) over {@code size}, as ONNX's Conv and pools. */
    private long window(long size, long kernel, long stride, long dilation, long padBegin, long padEnd, String autoPad,
                        boolean ceil) {
        long effective = (kernel - 1) * dilation + 1;
        return switch (autoPad) {
            case "SAME_UPPER", "SAME_LOWER" -> (size + stride - 1) / stride;
            case "VALID" -> (size - effective) / stride + 1;
            default -> {
                long span = size + padBegin + padEnd - effective;
                long out = (ceil ? (span + stride - 1) / stride : Math.floorDiv(span, stride)) + 1;
                if (ceil && (out - 1) * stride >= size + padBegin) out--; // the last window must start inside
                yield out;
            }
        };
    }

    private long[] windowed(long[] x, long[] kernel, long channels) {
        int spatial = x.length - 2;
        if (spatial < 1 || kernel.length != spatial) {
            throw new Refusal("input " + Arrays.toString(x) + " and kernel " + Arrays.toString(kernel) + " do not match");
        }
        long[] strides = node.intsAttribute("strides"), pads = node.intsAttribute("pads"), dilations = node.intsAttribute("dilations");
        if (strides != null && strides.length != spatial || dilations != null && dilations.length != spatial
                || pads != null && pads.length != 2 * spatial) {
            throw new Refusal("strides " + Arrays.toString(strides) + ", dilations " + Arrays.toString(dilations) + " and pads "
                    + Arrays.toString(pads) + " do not fit " + spatial + " spatial axes");
        }
        for (long[] a : new long[][] {strides, dilations}) {
            if (a != null) for (long v : a) if (v < 1) throw new Refusal("strides and dilations must be positive, found " + v);
        }
        if (pads != null) for (long v : pads) if (v < 0) throw new Refusal("pads must not be negative, found " + v);
        String autoPad = node.stringAttribute("auto_pad", "NOTSET");
        boolean ceil = node.intAttribute("ceil_mode", 0) != 0;
        long[] out = new long[x.length];
        out[0] = x[0];
        out[1] = channels;
        for (int k = 0; k < spatial; k++) {
            out[k + 2] = window(x[k + 2], kernel[k], strides == null ? 1 : strides[k], dilations == null ? 1 : dilations[k],
                    pads == null ? 0 : pads[k], pads == null ? 0 : pads[k + spatial], autoPad, ceil);
            if (out[k + 2] <= 0) throw new Refusal("the window leaves no output on spatial axis " + k + " of " + Arrays.toString(x));
        }
        return out;
    }

    private OnnxValue conv() {
        long[] x = shape(0), w = shape(1);
        long group = node.intAttribute("group", 1);
        if (w.length != x.length || x[1] != w[1] * group) {
            throw new Refusal("input " + Arrays.toString(x) + " does not match weights " + Arrays.toString(w) + " with group " + group);
        }
        long[] kernel = node.intsAttribute("kernel_shape");
        return value(in(0).type(), windowed(x, kernel != null ? kernel : Arrays.copyOfRange(w, 2, w.length), w[0]));
    }

    private OnnxValue pool() {
        long[] x = shape(0);
        long[] kernel = node.intsAttribute("kernel_shape");
        if (kernel == null) throw new Refusal("attribute 'kernel_shape' is missing");
        return value(in(0).type(), windowed(x, kernel, x[1]));
    }

    private OnnxValue globalPool() {
        long[] out = shape(0);
        for (int d = 2; d < out.length; d++) out[d] = 1;
        return value(in(0).type(), out);
    }

    private OnnxValue resize() {
        long[] s = shape(0);
        long[] axes = node.intsAttribute("axes");
        int count = axes == null ? s.length : axes.length;
        long[] out = s.clone();
        if (has(3)) {
            long[] sizes = knownLongs(3);
            if (sizes.length != count) throw new Refusal("sizes " + Arrays.toString(sizes) + " for rank " + s.length);
            for (int k = 0; k < count; k++) out[axes == null ? k : axis(axes[k], s.length)] = sizes[k];
        } else if (has(2) && known(2).size() > 0) {
            OnnxTensor scales = known(2);
            if (scales.size() != count) throw new Refusal("scales of " + scales.size() + " values for rank " + s.length);
            for (int k = 0; k < count; k++) {
                int d = axes == null ? k : axis(axes[k], s.length);
                out[d] = (long) Math.floor(s[d] * scales.value(k));
            }
        } else {
            throw new Refusal("neither scales nor sizes is given");
        }
        return value(in(0).type(), out);
    }

    private OnnxValue matMul() {
        long[] a = shape(0), b = shape(1);
        long[] a2 = a.length == 1 ? new long[] {1, a[0]} : a, b2 = b.length == 1 ? new long[] {b[0], 1} : b;
        if (a2[a2.length - 1] != b2[b2.length - 2]) throw new Refusal("cannot multiply " + Arrays.toString(a) + " by " + Arrays.toString(b));
        long[] batch = broadcast(Arrays.copyOf(a2, a2.length - 2), Arrays.copyOf(b2, b2.length - 2));
        List<Long> out = new ArrayList<>();
        for (long d : batch) out.add(d);
        if (a.length > 1) out.add(a2[a2.length - 2]);
        if (b.length > 1) out.add(b2[b2.length - 1]);
        return value(in(0).type(), out.stream().mapToLong(Long::longValue).toArray());
    }

    private OnnxValue gemm() {
        long[] a = shape(0), b = shape(1);
        if (a.length != 2 || b.length != 2) throw new Refusal("Gemm needs two matrices, found " + Arrays.toString(a) + " and " + Arrays.toString(b));
        boolean ta = node.intAttribute("transA", 0) != 0, tb = node.intAttribute("transB", 0) != 0;
        long m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
        if (k != kb) throw new Refusal("cannot multiply " + Arrays.toString(a) + " by " + Arrays.toString(b));
        return value(in(0).type(), new long[] {m, n});
    }

    // ---- heads

    private long[] reduced(long[] s, long[] axes, boolean keep) {
        boolean[] gone = new boolean[s.length];
        if (axes == null || axes.length == 0) Arrays.fill(gone, true);
        else for (long a : axes) gone[axis(a, s.length)] = true;
        List<Long> out = new ArrayList<>();
        for (int d = 0; d < s.length; d++) {
            if (!gone[d]) out.add(s[d]);
            else if (keep) out.add(1L);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    private OnnxValue reduceMax() {
        long[] s = shape(0);
        long[] axes = opset < 18 ? node.intsAttribute("axes") : has(1) ? knownLongs(1) : null;
        if ((axes == null || axes.length == 0) && opset >= 18 && node.intAttribute("noop_with_empty_axes", 0) != 0) {
            return value(in(0).type(), s);
        }
        return value(in(0).type(), reduced(s, axes, node.intAttribute("keepdims", 1) != 0));
    }

    private OnnxValue argMax() {
        long[] s = shape(0);
        return value(OnnxType.INT64, reduced(s, new long[] {node.intAttribute("axis", 0)}, node.intAttribute("keepdims", 1) != 0));
    }

    private List<OnnxValue> topK() {
        long[] s = shape(0);
        int axis = axis(node.intAttribute("axis", -1), s.length);
        long k = knownLongs(1)[0];
        if (k > s[axis]) throw new Refusal("K " + k + " is larger than dimension " + axis + " of " + Arrays.toString(s));
        long[] out = s.clone();
        out[axis] = k;
        return List.of(value(in(0).type(), out), value(OnnxType.INT64, out));
    }

    /** [selected, 3]: at most every class of every image keeping max_output_boxes_per_class boxes. */
    private OnnxValue nonMaxSuppression() {
        long[] boxes = shape(0), scores = shape(1);
        long perClass = has(2) ? Math.min(knownLongs(2)[0], boxes[1]) : 0;
        return new OnnxValue("", OnnxType.INT64, new long[] {scores[0] * scores[1] * perClass, 3}, true, null);
    }
}
