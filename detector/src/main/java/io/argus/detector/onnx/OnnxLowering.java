package io.argus.detector.onnx;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetSettings;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns an imported graph into the network description every backend runs ({@link NetworkSpec}), so Darknet cfgs and
 * ONNX files share one set of layers, precisions and backends.
 *
 * <p>Walking the nodes in graph order, each node either becomes one of our layer kinds or stays an ONNX node run on the
 * host ({@link OnnxInterpreter}):
 * <ul>
 * <li>Conv (square kernel, equal pads, no dilation) becomes [convolutional], taking with it a BatchNormalization that
 * alone reads it (folded into weights and bias) and the activation that follows: Sigmoid and Mul(x, Sigmoid(x)) is
 * swish (SiLU), Sigmoid alone logistic, Relu, LeakyRelu(0.1) leaky, x * Tanh(Softplus(x)) mish;</li>
 * <li>MaxPool becomes [maxpool], AveragePool a depthwise [convolutional] of weights 1 / (k x k), Resize by an integer factor that repeats pixels [upsample], Concat on channels and
 * Split or Slice on channels a [route] (a channel range of each input, so splitting costs nothing until a layer needs
 * the range by itself), Add of two equal feature maps [shortcut];</li>
 * <li>anything else (the heads' decoding, a stem that slices pixels, attention) runs on the host. Where a convolution
 * reads what host nodes computed, those nodes become one {@link HostOpsSpec} layer; what the graph outputs is computed
 * from the layers by the {@link OnnxTail}.</li>
 * </ul>
 * Layers of the description read the previous layer implicitly (Darknet's convention), so a node that reads another
 * layer's output gets a [route] copying it first, as Darknet cfgs do. A layer's {@code line} is its node's position in
 * the graph (1-based), so messages point at the node.
 */
public final class OnnxLowering {
    /** The network, its parameters (per convolution, Darknet's layout) and what runs on the host after it. */
    public record Lowered(NetworkSpec spec, ModelWeights weights, OnnxTail tail, int hostNodes) {}

    /** A tensor the layers hold: channels {@code offset .. offset + count} of layer {@code layer} (-1: the input). */
    private record Resident(int layer, int offset, int count, Shape layerShape) {
        boolean whole() { return offset == 0 && count == layerShape.channels(); }
    }

    private final OnnxModel model;
    private final OnnxInterpreter interpreter;
    private final Map<String, List<OnnxNode>> consumers = new HashMap<>();
    private final Map<String, OnnxNode> producer = new HashMap<>();
    private final Map<OnnxNode, Integer> position = new HashMap<>();
    private final Set<String> graphOutputs = new HashSet<>();
    private final Set<OnnxNode> folded;
    private final Set<OnnxNode> fused = new HashSet<>();
    private final Map<String, Resident> resident = new HashMap<>();
    private final Map<String, Integer> copies = new HashMap<>();   // "layer:offset:count" -> route layer holding it alone
    private final List<LayerSpec> layers = new ArrayList<>();
    private final Map<Integer, ConvWeights> conv = new LinkedHashMap<>();
    private final Set<OnnxNode> hostNodes = new HashSet<>();
    private final Shape inputShape;

    private OnnxLowering(OnnxModel model) {
        this.model = model;
        this.interpreter = new OnnxInterpreter(model);
        this.folded = Set.copyOf(model.foldedNodes());
        for (int i = 0; i < model.nodes().size(); i++) {
            OnnxNode n = model.nodes().get(i);
            position.put(n, i + 1);
            for (String in : n.inputs()) if (!in.isEmpty()) consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
            for (String out : n.outputs()) if (!out.isEmpty()) producer.put(out, n);
        }
        for (OnnxValue o : model.outputs()) graphOutputs.add(o.name());
        for (OnnxValue v : model.values().values()) {
            // every tensor is held in a Java array or one native buffer per image: at most 2^31 - 1 values
            if (!fitsAnArray(v.shape())) {
                throw new OnnxModelException(model.file(), "tensor '" + v.name() + "' " + Arrays.toString(v.shape())
                        + " holds more than 2^31 - 1 values per image");
            }
        }
        if (model.inputs().size() != 1 || model.inputs().get(0).rank() != 4 || model.inputs().get(0).shape()[0] != 1) {
            throw new OnnxModelException(model.file(), "expected one image input [batch, channels, height, width], found "
                    + model.inputs());
        }
        long[] s = model.inputs().get(0).shape();
        this.inputShape = new Shape((int) s[1], (int) s[2], (int) s[3]);
        resident.put(model.inputs().get(0).name(), new Resident(-1, 0, inputShape.channels(), inputShape));
    }

    /** Lowers a model read for batch 1 ({@link OnnxModel#read(java.nio.file.Path)}). */
    public static Lowered lower(OnnxModel model) {
        return new OnnxLowering(model).run();
    }

    private Lowered run() {
        for (OnnxNode n : model.nodes()) {
            if (folded.contains(n) || fused.contains(n)) continue;
            boolean lowered = switch (n.op()) {
                case "Conv" -> conv(n);
                case "MaxPool" -> maxPool(n);
                case "AveragePool" -> averagePool(n);
                case "Resize" -> resize(n);
                case "Concat" -> concat(n);
                case "Split" -> split(n);
                case "Slice" -> slice(n);
                case "Add" -> add(n);
                case "Identity" -> identity(n);
                default -> false;
            };
            if (!lowered) hostNodes.add(n);
        }
        List<String> outputs = new ArrayList<>();
        for (OnnxValue o : model.outputs()) outputs.add(o.name());
        Slice tailSlice = sliceFor(outputs);
        int[] inputLayers = new int[tailSlice.inputs.size()];
        for (int i = 0; i < inputLayers.length; i++) inputLayers[i] = wholeLayer(tailSlice.inputs.get(i), -1);
        OnnxTail tail = new OnnxTail(interpreter, tailSlice.nodes, tailSlice.inputs, inputLayers, inputShapes(tailSlice.inputs),
                outputs, inputShapes(outputs));
        if (layers.isEmpty()) {
            throw new OnnxModelException(model.file(), "no convolution, pool or other layer to run: the graph is "
                    + model.nodes().size() + " nodes of " + opsOf(model.nodes()));
        }
        NetworkSpec spec = NetworkSpec.of(model.file(), NetSettings.ofInput(inputShape.width(), inputShape.height(),
                inputShape.channels()), layers);
        return new Lowered(spec, new ModelWeights(0, 2, 5, 0, conv), tail, tailSlice.nodes.size());
    }

    // ---------------------------------------------------------------- lowered operators

    private boolean conv(OnnxNode n) {
        OnnxTensor w = constant(n.input(1));
        OnnxTensor b = n.input(2).isEmpty() ? null : constant(n.input(2));
        if (w == null || (!n.input(2).isEmpty() && b == null) || w.shape().length != 4
                || model.value(n.input(0)).rank() != 4) return false;
        long[] ws = w.shape();
        int filters = (int) ws[0], k = (int) ws[2];
        if (ws[3] != k) return false;
        long[] dil = n.intsAttribute("dilations");
        if (dil != null) for (long d : dil) if (d != 1) return false;
        int groups = (int) n.intAttribute("group", 1);
        long[] strides = n.intsAttribute("strides");
        int sy = strides == null ? 1 : (int) strides[0], sx = strides == null ? 1 : (int) strides[1];
        String autoPad = n.stringAttribute("auto_pad", "NOTSET");
        int pad;
        if (autoPad.equals("NOTSET") || autoPad.equals("VALID")) {
            long[] pads = autoPad.equals("VALID") ? null : n.intsAttribute("pads");
            pad = pads == null ? 0 : (int) pads[0];
            if (pads != null) for (long p : pads) if (p != pad) return false;
        } else if (sx == 1 && sy == 1 && k % 2 == 1) {
            pad = k / 2;                           // SAME_UPPER and SAME_LOWER agree for odd kernels at stride 1
        } else {
            return false;
        }
        String y = n.outputs().get(0);
        long[] ys = model.value(y).shape();
        Shape in = shapeOf(n.input(0));
        Shape out = new Shape(filters, (int) ys[2], (int) ys[3]);
        if ((in.width() + 2 * pad - k) / sx + 1 != out.width() || (in.height() + 2 * pad - k) / sy + 1 != out.height()) {
            return false;
        }
        // a convolution of what host nodes computed becomes a layer, its input brought in, unless it has a single
        // output channel: then it is a weighted sum (DFL's expectation over bins) cheaper than the reorders around it
        Resident x = filters > 1 ? residentOrBroughtIn(n.input(0)) : resident.get(n.input(0));
        if (x == null) return false;
        float[] weights = floats(w);
        float[] bias = b == null ? new float[filters] : floats(b);
        // a BatchNormalization that alone reads the convolution folds into it
        OnnxNode bn = only(y, "BatchNormalization");
        if (bn != null && !graphOutputs.contains(y)) {
            OnnxTensor scale = constant(bn.input(1)), beta = constant(bn.input(2)), mean = constant(bn.input(3)),
                    var = constant(bn.input(4));
            if (scale != null && beta != null && mean != null && var != null) {
                float eps = bn.floatAttribute("epsilon", 1e-5f);
                float[] s = floats(scale), bt = floats(beta), m = floats(mean), v = floats(var);
                int per = weights.length / filters;
                for (int f = 0; f < filters; f++) {
                    float g = (float) (s[f] / Math.sqrt(v[f] + eps));
                    for (int i = 0; i < per; i++) weights[f * per + i] *= g;
                    bias[f] = (bias[f] - m[f]) * g + bt[f];
                }
                fused.add(bn);
                y = bn.outputs().get(0);
            }
        }
        Activation act = Activation.LINEAR;
        String result = y;
        if (!graphOutputs.contains(y)) {
            List<OnnxNode> readers = consumers.getOrDefault(y, List.of());
            if (readers.size() == 2) {
                OnnxNode sig = readers.get(0).op().equals("Sigmoid") ? readers.get(0) : readers.get(1);
                OnnxNode mul = sig == readers.get(0) ? readers.get(1) : readers.get(0);
                String s = sig.outputs().get(0);
                if (sig.op().equals("Sigmoid") && mul.op().equals("Mul") && mul.inputs().contains(y)
                        && mul.inputs().contains(s) && consumers.getOrDefault(s, List.of()).size() == 1
                        && !graphOutputs.contains(s)) {
                    act = Activation.SWISH;
                    fused.add(sig);
                    fused.add(mul);
                    result = mul.outputs().get(0);
                } else if (readers.get(0).op().equals("Softplus") || readers.get(1).op().equals("Softplus")) {
                    OnnxNode sp = readers.get(0).op().equals("Softplus") ? readers.get(0) : readers.get(1);
                    OnnxNode m = sp == readers.get(0) ? readers.get(1) : readers.get(0);
                    OnnxNode tanh = only(sp.outputs().get(0), "Tanh");
                    if (tanh != null && m.op().equals("Mul") && m.inputs().contains(y)
                            && m.inputs().contains(tanh.outputs().get(0))
                            && consumers.getOrDefault(tanh.outputs().get(0), List.of()).size() == 1) {
                        act = Activation.MISH;
                        fused.addAll(List.of(sp, tanh, m));
                        result = m.outputs().get(0);
                    }
                }
            } else if (readers.size() == 1) {
                OnnxNode a = readers.get(0);
                Activation single = switch (a.op()) {
                    case "Sigmoid" -> Activation.LOGISTIC;
                    case "Relu" -> Activation.RELU;
                    case "LeakyRelu" -> Math.abs(a.floatAttribute("alpha", 0.01f) - 0.1f) < 1e-6f ? Activation.LEAKY : null;
                    default -> null;
                };
                if (single != null) {
                    act = single;
                    fused.add(a);
                    result = a.outputs().get(0);
                }
            }
        }
        x = asPrevious(x);
        int index = layers.size();
        layers.add(new ConvolutionalSpec(index, position.get(n), in, out, filters, k, sx, sy, pad, groups, act, false));
        conv.put(index, new ConvWeights(bias, null, null, null, weights));
        resident.put(result, new Resident(index, 0, filters, out));
        return true;
    }

    private boolean maxPool(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        if (x == null || n.outputs().size() > 1 && !n.outputs().get(1).isEmpty()) return false;
        long[] kernel = n.intsAttribute("kernel_shape");
        long[] strides = n.intsAttribute("strides");
        long[] pads = n.intsAttribute("pads");
        long[] dil = n.intsAttribute("dilations");
        if (kernel == null || kernel.length != 2 || kernel[0] != kernel[1]) return false;
        if (!n.stringAttribute("auto_pad", "NOTSET").equals("NOTSET") || n.intAttribute("ceil_mode", 0) != 0
                || n.intAttribute("storage_order", 0) != 0) return false;
        if (dil != null) for (long d : dil) if (d != 1) return false;
        int pad = pads == null ? 0 : (int) pads[0];
        if (pads != null) for (long p : pads) if (p != pad) return false;
        int size = (int) kernel[0];
        int sy = strides == null ? 1 : (int) strides[0], sx = strides == null ? 1 : (int) strides[1];
        Shape in = shapeOf(n.input(0));
        long[] ys = model.value(n.outputs().get(0)).shape();
        // Darknet's padding is the total over both sides, half of it before
        if ((in.width() + 2 * pad - size) / sx + 1 != ys[3] || (in.height() + 2 * pad - size) / sy + 1 != ys[2]) {
            return false;
        }
        asPrevious(x);
        int index = layers.size();
        Shape out = new Shape(in.channels(), (int) ys[2], (int) ys[3]);
        layers.add(new MaxPoolSpec(index, position.get(n), in, out, size, sx, sy, 2 * pad));
        resident.put(n.outputs().get(0), new Resident(index, 0, out.channels(), out));
        return true;
    }

    /**
     * AveragePool as what it computes: a depthwise convolution whose weights are all 1 / (k x k), so that it runs as a
     * [convolutional] layer on every backend. Exact where every window counts k x k taps: no padding, or padding
     * counted (count_include_pad); otherwise it stays on the host.
     */
    private boolean averagePool(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        long[] kernel = n.intsAttribute("kernel_shape");
        long[] strides = n.intsAttribute("strides");
        long[] pads = n.intsAttribute("pads");
        long[] dil = n.intsAttribute("dilations");
        if (x == null || kernel == null || kernel.length != 2 || kernel[0] != kernel[1]) return false;
        if (!n.stringAttribute("auto_pad", "NOTSET").equals("NOTSET") || n.intAttribute("ceil_mode", 0) != 0) return false;
        if (dil != null) for (long d : dil) if (d != 1) return false;
        int pad = pads == null ? 0 : (int) pads[0];
        if (pads != null) for (long p : pads) if (p != pad) return false;
        if (pad > 0 && n.intAttribute("count_include_pad", 0) == 0) return false;
        int k = (int) kernel[0];
        int sy = strides == null ? 1 : (int) strides[0], sx = strides == null ? 1 : (int) strides[1];
        Shape in = shapeOf(n.input(0));
        long[] ys = model.value(n.outputs().get(0)).shape();
        if ((in.width() + 2 * pad - k) / sx + 1 != ys[3] || (in.height() + 2 * pad - k) / sy + 1 != ys[2]) return false;
        asPrevious(x);
        int index = layers.size(), c = in.channels();
        Shape out = new Shape(c, (int) ys[2], (int) ys[3]);
        layers.add(new ConvolutionalSpec(index, position.get(n), in, out, c, k, sx, sy, pad, c, Activation.LINEAR, false));
        float[] weights = new float[c * k * k];
        java.util.Arrays.fill(weights, 1f / (k * k));
        conv.put(index, new ConvWeights(new float[c], null, null, null, weights));
        resident.put(n.outputs().get(0), new Resident(index, 0, c, out));
        return true;
    }

    /** Resize by an integer factor that repeats each pixel (nearest, whatever the coordinate mode maps to that). */
    private boolean resize(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        if (x == null || !n.stringAttribute("mode", "nearest").equals("nearest")) return false;
        Shape in = shapeOf(n.input(0));
        long[] ys = model.value(n.outputs().get(0)).shape();
        if (ys.length != 4 || ys[1] != in.channels() || ys[2] % in.height() != 0 || ys[3] % in.width() != 0) return false;
        int stride = (int) (ys[2] / in.height());
        if (ys[3] / in.width() != stride || stride < 1) return false;
        String coordinates = n.stringAttribute("coordinate_transformation_mode", "half_pixel");
        String rounding = n.stringAttribute("nearest_mode", "round_prefer_floor");
        if (!repeats(coordinates, rounding, in.height(), stride) || !repeats(coordinates, rounding, in.width(), stride)) {
            return false;
        }
        asPrevious(x);
        int index = layers.size();
        Shape out = new Shape(in.channels(), (int) ys[2], (int) ys[3]);
        layers.add(new UpsampleSpec(index, position.get(n), in, out, stride, 1f));
        resident.put(n.outputs().get(0), new Resident(index, 0, out.channels(), out));
        return true;
    }

    /** Whether ONNX's nearest Resize of {@code size} pixels by {@code factor} maps output pixel i to i / factor. */
    static boolean repeats(String coordinates, String rounding, int size, int factor) {
        int out = size * factor;
        for (int i = 0; i < out; i++) {
            double x = switch (coordinates) {
                case "asymmetric" -> (double) i / factor;
                case "half_pixel" -> (i + 0.5) / factor - 0.5;
                case "pytorch_half_pixel" -> out > 1 ? (i + 0.5) / factor - 0.5 : 0;
                case "align_corners" -> out == 1 ? 0 : (double) i * (size - 1) / (out - 1);
                case "tf_half_pixel_for_nearest" -> (i + 0.5) / factor;
                default -> Double.NaN;
            };
            if (Double.isNaN(x)) return false;
            long r = switch (rounding) {
                case "floor" -> (long) Math.floor(x);
                case "ceil" -> (long) Math.ceil(x);
                case "round_prefer_ceil" -> (long) Math.floor(x + 0.5);
                case "round_prefer_floor" -> (long) Math.ceil(x - 0.5);
                default -> Long.MIN_VALUE;
            };
            if (r == Long.MIN_VALUE) return false;
            r = Math.max(0, Math.min(size - 1, r));
            if (r != i / factor) return false;
        }
        return true;
    }

    private boolean concat(OnnxNode n) {
        if (!channelAxis(n.intAttribute("axis", 0), n.outputs().get(0))) return false;
        int k = n.inputs().size();
        int[] from = new int[k], offsets = new int[k], counts = new int[k];
        Shape[] shapes = new Shape[k];
        for (int i = 0; i < k; i++) {
            Resident r = resident.get(n.input(i));
            if (r == null) return false;
            from[i] = r.layer();
            offsets[i] = r.offset();
            counts[i] = r.count();
            shapes[i] = r.layerShape();
        }
        if (k == 1) {
            resident.put(n.outputs().get(0), resident.get(n.input(0)));
            return true;
        }
        int index = layers.size();
        RouteSpec route = RouteSpec.ofRanges(index, position.get(n), from, shapes, offsets, counts);
        layers.add(route);
        resident.put(n.outputs().get(0), new Resident(index, 0, route.output().channels(), route.output()));
        return true;
    }

    /** Split on channels: views of the input, no layer. */
    private boolean split(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        if (x == null || !channelAxis(n.intAttribute("axis", 0), n.input(0))) return false;
        if (n.outputs().contains("")) return false;         // an output left out: its size is not known here
        int offset = x.offset();
        for (String out : n.outputs()) {
            int count = (int) model.value(out).shape()[1];
            resident.put(out, new Resident(x.layer(), offset, count, x.layerShape()));
            offset += count;
        }
        return true;
    }

    /** Slice of a channel range with step 1: a view of the input, no layer. */
    private boolean slice(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        if (x == null || n.inputs().size() < 3) return false;
        OnnxTensor starts = constant(n.input(1)), axes = n.input(3).isEmpty() ? null : constant(n.input(3)),
                steps = n.input(4).isEmpty() ? null : constant(n.input(4));
        // without axes a one-element Slice is of axis 0, the batch, not channels
        if (starts == null || axes == null || starts.size() != 1 || axes.size() != 1
                || !channelAxis(axes.longValue(0), n.input(0))) return false;
        if (steps != null && steps.longValue(0) != 1) return false;
        long start = starts.longValue(0);
        if (start < 0) start += x.count();
        start = Math.max(0, Math.min(x.count(), start));
        int count = (int) model.value(n.outputs().get(0)).shape()[1];
        if (count <= 0) return false;
        resident.put(n.outputs().get(0), new Resident(x.layer(), x.offset() + (int) start, count, x.layerShape()));
        return true;
    }

    private boolean add(OnnxNode n) {
        Resident a = resident.get(n.input(0)), b = resident.get(n.input(1));
        if (a == null || b == null) return false;
        long[] sa = model.value(n.input(0)).shape(), sb = model.value(n.input(1)).shape();
        if (!Arrays.equals(sa, sb) || sa.length != 4) return false;
        // [shortcut] adds layer `from` to the previous layer: take as previous whichever input already is
        int prev = layers.size() - 1;
        boolean bIsPrevious = b.whole() && b.layer() == prev && prev >= 0 && !(a.whole() && a.layer() == prev);
        Resident first = bIsPrevious ? b : a, second = bIsPrevious ? a : b;
        int from = wholeLayerOf(second);
        asPrevious(first);
        int index = layers.size();
        Shape out = new Shape((int) sa[1], (int) sa[2], (int) sa[3]);
        layers.add(new ShortcutSpec(index, position.get(n), from, out, Activation.LINEAR));
        resident.put(n.outputs().get(0), new Resident(index, 0, out.channels(), out));
        return true;
    }

    private boolean identity(OnnxNode n) {
        Resident x = resident.get(n.input(0));
        if (x == null) return false;
        resident.put(n.outputs().get(0), x);
        return true;
    }

    // ---------------------------------------------------------------- layers that move data

    /** {@code x} as the output of the last layer, whole: a [route] copy unless it already is. */
    private Resident asPrevious(Resident x) {
        if (x.whole() && x.layer() == layers.size() - 1 && (x.layer() >= 0 || layers.isEmpty())) return x;
        if (x.layer() == -1 && layers.isEmpty()) return x;
        int index = layers.size();
        RouteSpec route = RouteSpec.ofRanges(index, 0, new int[] {x.layer()}, new Shape[] {x.layerShape()},
                new int[] {x.offset()}, new int[] {x.count()});
        layers.add(route);
        copies.put(x.layer() + ":" + x.offset() + ":" + x.count(), index);
        return new Resident(index, 0, x.count(), route.output());
    }

    /** The layer holding exactly {@code x}: its own layer when whole, else a [route] copy of the range (made once). */
    private int wholeLayerOf(Resident x) {
        if (x.whole()) return x.layer();
        String key = x.layer() + ":" + x.offset() + ":" + x.count();
        Integer copy = copies.get(key);
        if (copy != null) return copy;
        int index = layers.size();
        layers.add(RouteSpec.ofRanges(index, 0, new int[] {x.layer()}, new Shape[] {x.layerShape()},
                new int[] {x.offset()}, new int[] {x.count()}));
        copies.put(key, index);
        return index;
    }

    private int wholeLayer(String tensor, int otherwise) {
        Resident r = resident.get(tensor);
        return r == null ? otherwise : wholeLayerOf(r);
    }

    /**
     * The tensor as the layers hold it; a 4-D tensor that host nodes compute becomes a {@link HostOpsSpec} layer first
     * (so the convolution reading it runs as a layer). Null when it is neither.
     */
    private Resident residentOrBroughtIn(String tensor) {
        Resident r = resident.get(tensor);
        if (r != null) return r;
        OnnxValue v = model.value(tensor);
        if (v.constant() != null || v.rank() != 4 || v.shape()[0] != 1 || v.upperBound()) return null;
        Slice s = sliceFor(List.of(tensor));
        int[] from = new int[s.inputs.size()];
        Shape[] shapes = new Shape[from.length];
        for (int i = 0; i < from.length; i++) {
            from[i] = wholeLayer(s.inputs.get(i), Integer.MIN_VALUE);
            shapes[i] = from[i] == -1 ? inputShape : layers.get(from[i]).output();
        }
        long[] d = v.shape();
        Shape out = new Shape((int) d[1], (int) d[2], (int) d[3]);
        int index = layers.size();
        OnnxHostOps ops = new OnnxHostOps(interpreter, s.nodes, s.inputs, inputShapes(s.inputs), tensor);
        layers.add(new HostOpsSpec(index, position.get(producer.get(tensor)), from, shapes, out, ops));
        Resident made = new Resident(index, 0, out.channels(), out);
        resident.put(tensor, made);
        return made;
    }

    /** Host nodes computing {@code targets} from tensors the layers hold: the nodes in graph order, and those tensors. */
    private record Slice(List<OnnxNode> nodes, List<String> inputs) {}

    private Slice sliceFor(List<String> targets) {
        TreeSet<Integer> picked = new TreeSet<>();
        Set<String> inputs = new java.util.LinkedHashSet<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(targets);
        Set<String> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            String t = todo.pop();
            if (t.isEmpty() || !seen.add(t)) continue;
            if (resident.containsKey(t)) {
                inputs.add(t);
                continue;
            }
            OnnxValue v = model.value(t);
            if (v.constant() != null) continue;
            OnnxNode p = producer.get(t);
            if (p == null) throw new IllegalStateException(model.file() + ": no node computes '" + t + "'");
            if (!hostNodes.contains(p)) {
                throw new IllegalStateException(model.file() + ": '" + t + "' of node '" + p.name() + "' (" + p.op()
                        + ") was fused into a layer but is read elsewhere");
            }
            picked.add(position.get(p));
            for (String in : p.inputs()) todo.push(in);
        }
        List<OnnxNode> nodes = new ArrayList<>();
        for (int pos : picked) nodes.add(model.nodes().get(pos - 1));
        // inputs in graph order (the heads' levels in the order the graph computes them), the image input first
        List<String> ordered = new ArrayList<>(inputs);
        ordered.sort(java.util.Comparator.comparingInt(t -> producer.containsKey(t) ? position.get(producer.get(t)) : 0));
        return new Slice(nodes, ordered);
    }

    private List<long[]> inputShapes(List<String> names) {
        List<long[]> out = new ArrayList<>();
        for (String name : names) out.add(model.value(name).shape());
        return out;
    }

    // ---------------------------------------------------------------- helpers

    private boolean channelAxis(long axis, String tensor) {
        int rank = model.value(tensor).rank();
        return rank == 4 && (axis == 1 || axis == 1 - rank);
    }

    /** The single reader of {@code tensor} when it is of {@code op} and nothing else reads the tensor. */
    private OnnxNode only(String tensor, String op) {
        List<OnnxNode> readers = consumers.getOrDefault(tensor, List.of());
        return readers.size() == 1 && readers.get(0).op().equals(op) ? readers.get(0) : null;
    }

    private OnnxTensor constant(String name) {
        if (name.isEmpty()) return null;
        OnnxValue v = model.value(name);
        return v.constant();
    }

    private Shape shapeOf(String tensor) {
        long[] s = model.value(tensor).shape();
        return new Shape((int) s[1], (int) s[2], (int) s[3]);
    }

    private static float[] floats(OnnxTensor t) {
        FloatBuffer b = t.floats();
        float[] out = new float[b.remaining()];
        b.get(out);
        return out;
    }

    /** Whether a tensor of this shape has at most 2^31 - 1 values (computed without overflowing). */
    static boolean fitsAnArray(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) return false;
            if (d != 0 && n > Integer.MAX_VALUE / d) return false;
            n *= d;
        }
        return true;
    }

    private static String opsOf(List<OnnxNode> nodes) {
        TreeSet<String> ops = new TreeSet<>();
        for (OnnxNode n : nodes) ops.add(n.op());
        return String.join(", ", ops);
    }
}
