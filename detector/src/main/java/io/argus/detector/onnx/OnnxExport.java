package io.argus.detector.onnx;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.HostOpsSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.MaxPoolSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.RouteSpec;
import io.argus.detector.darknet.Shape;
import io.argus.detector.darknet.ShortcutSpec;
import io.argus.detector.darknet.UpsampleSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.onnx.OnnxGraph.Attribute;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Darknet network (cfg + weights) as an ONNX graph (opset {@value OnnxGraph#OPSET}), layer by layer:
 * <ul>
 *   <li>[convolutional]: Conv with batch normalisation folded into its weights and bias, then the activation
 *       (leaky: LeakyRelu 0.1; logistic: Sigmoid; relu: Relu; mish: x * Tanh(Softplus(x)); swish: x * Sigmoid(x));</li>
 *   <li>[maxpool]: MaxPool with Darknet's padding (padding/2 before, the rest after, as the engine's oneDNN layer);</li>
 *   <li>[route]: Concat of the layers named, or a Slice of each for {@code groups}/{@code group_id};</li>
 *   <li>[shortcut]: Add, then its activation;</li>
 *   <li>[upsample]: Resize, nearest, asymmetric (each pixel repeated stride times), times {@code scale} if not 1;</li>
 *   <li>[yolo]: nothing is computed; its input, the head's raw convolution output [N, anchors*(5+classes), H, W],
 *       is a graph output {@code head0}, {@code head1}... in cfg order. The anchors, masks and scale_x_y a decoder
 *       needs are in the model's metadata.</li>
 * </ul>
 * The input is {@code input}: [batch, channels, height, width] FP32, RGB in 0..1, resized or letterboxed as the
 * engine does before its first layer.
 *
 * <p>With {@link Decode} the graph also decodes the heads as {@link io.argus.detector.post.YoloBox} does and runs
 * NonMaxSuppression per class: outputs {@code boxes} [batch, B, 4] (centre x, centre y, width, height in input
 * pixels), {@code scores} [batch, B, classes] (objectness x class probability) and {@code selected} [K, 3] INT64
 * (batch index, class, box index) of the boxes kept.
 */
public final class OnnxExport {
    private final NetworkSpec spec;
    private final ModelWeights weights;
    private final OnnxGraph graph;
    /** Each layer's output tensor name. */
    private final String[] outputs;

    /**
     * Decoding and NMS inside the graph: a box of a class is kept when its score is above {@code threshold} and no
     * higher-scoring box of that class overlaps it by IoU above {@code iou}; at most {@code maxPerClass} per class
     * and image.
     */
    public record Decode(float threshold, float iou, long maxPerClass) {
        public Decode {
            if (!(threshold >= 0 && threshold < 1)) throw new IllegalArgumentException("threshold must be in 0..1, got " + threshold);
            if (!(iou > 0 && iou <= 1)) throw new IllegalArgumentException("NMS IoU must be in (0, 1], got " + iou);
            if (maxPerClass <= 0) throw new IllegalArgumentException("maxPerClass must be positive, got " + maxPerClass);
        }
    }

    private OnnxExport(NetworkSpec spec, ModelWeights weights) {
        this.spec = spec;
        this.weights = weights;
        this.graph = new OnnxGraph(spec.name());
        this.outputs = new String[spec.layers().size()];
    }

    /**
     * The network as a serialised ONNX model. Every network {@link NetworkSpec} accepts can be expressed: a layer kind
     * it does not know fails there already, naming the cfg's file and line.
     */
    public static byte[] export(NetworkSpec spec, ModelWeights weights, String producerVersion) {
        return export(spec, weights, producerVersion, null);
    }

    /** As {@link #export(NetworkSpec, ModelWeights, String)}, with decoding and NMS when {@code decode} is not null. */
    public static byte[] export(NetworkSpec spec, ModelWeights weights, String producerVersion, Decode decode) {
        OnnxExport e = new OnnxExport(spec, weights);
        List<String> heads = e.build();
        if (decode != null) e.decode(heads, decode);
        return e.graph.toBytes(producerVersion, "exported by argus export onnx from " + spec.file());
    }

    /** The layers; returns the raw head tensors in cfg order. */
    private List<String> build() {
        Shape in = spec.inputShape();
        graph.input("input", -1, in.channels(), in.height(), in.width());
        List<String> heads = new ArrayList<>();
        for (LayerSpec layer : spec.layers()) {
            String previous = layer.index() == 0 ? "input" : outputs[layer.index() - 1];
            outputs[layer.index()] = switch (layer) {
                case ConvolutionalSpec c -> convolutional(c, previous);
                case MaxPoolSpec m -> maxPool(m, previous);
                case RouteSpec r -> route(r);
                case ShortcutSpec s -> shortcut(s, previous);
                case UpsampleSpec u -> upsample(u, previous);
                case HostOpsSpec h -> throw new IllegalArgumentException(spec.file() + ": layer " + h.index()
                        + " runs " + h.ops().describe() + " on the host: an imported graph is exported already");
                case YoloSpec y -> {
                    String head = "head" + heads.size();
                    graph.node("Identity", List.of(previous), head);
                    graph.output(head, -1, y.output().channels(), y.output().height(), y.output().width());
                    graph.metadata(head, yoloMetadata(y));
                    heads.add(head);
                    yield previous;
                }
            };
        }
        if (heads.isEmpty()) throw new IllegalArgumentException(spec.file() + ": no [yolo] layer: nothing to export");
        graph.metadata("heads", String.valueOf(heads.size()));
        graph.metadata("classes", String.valueOf(spec.classes()));
        graph.metadata("input", in.channels() + "x" + in.height() + "x" + in.width() + " RGB 0..1"
                + (spec.net().letterBox() ? ", letterboxed" : ", resized"));
        return heads;
    }

    /** Every head decoded to boxes and scores, concatenated, then NonMaxSuppression per class. */
    private void decode(List<String> heads, Decode d) {
        List<YoloSpec> yolos = spec.yoloLayers();
        List<String> boxes = new ArrayList<>(), scores = new ArrayList<>();
        long total = 0;
        for (int h = 0; h < heads.size(); h++) {
            String[] bs = decodeHead(yolos.get(h), heads.get(h), "d" + h + "_");
            boxes.add(bs[0]);
            scores.add(bs[1]);
            total += (long) yolos.get(h).anchorsPerCell() * yolos.get(h).output().plane();
        }
        String allBoxes = graph.node("Concat", boxes, "boxes", Attribute.of("axis", 1L));
        String allScores = graph.node("Concat", scores, "scores", Attribute.of("axis", 1L));
        String perClass = graph.node("Transpose", List.of(allScores), "nms_scores", Attribute.of("perm", new long[] {0, 2, 1}));
        graph.node("NonMaxSuppression", List.of(allBoxes, perClass, graph.longs("nms_max_per_class", d.maxPerClass()),
                graph.floats("nms_iou", new float[] {d.iou()}, 1), graph.floats("nms_threshold", new float[] {d.threshold()}, 1)),
                "selected", Attribute.of("center_point_box", 1L));
        graph.output("boxes", -1, total, 4);
        graph.output("scores", -1, total, spec.classes());
        graph.outputLongs("selected", "selected", 3);
        graph.metadata("decode", String.format(Locale.ROOT, "boxes: cx, cy, w, h in input pixels; scores: objectness x "
                + "class; selected: batch, class, box; score > %s, NMS IoU %s, at most %d per class", trim(d.threshold()),
                trim(d.iou()), d.maxPerClass()));
    }

    /**
     * One head as {boxes [N, A*H*W, 4], scores [N, A*H*W, classes]}, box index = anchor x H*W + row x W + column: the
     * raw [N, A*(5+C), H, W] reshaped to [N, A, 5+C, H*W], entries moved last, then x, y, w, h, objectness and classes
     * activated as Darknet's [yolo] layer and get_yolo_box do.
     */
    private String[] decodeHead(YoloSpec y, String raw, String p) {
        int a = y.anchorsPerCell(), e = y.entries(), lh = y.output().height(), lw = y.output().width(), hw = lh * lw;
        int netW = spec.net().width(), netH = spec.net().height();
        String r1 = graph.node("Reshape", List.of(raw, graph.longs(p + "shape1", 0, a, e, hw)), p + "r1");
        String t = graph.node("Transpose", List.of(r1), p + "t", Attribute.of("perm", new long[] {0, 1, 3, 2}));
        String rows = graph.node("Reshape", List.of(t, graph.longs(p + "shape2", 0, (long) a * hw, e)), p + "rows");
        String xy = slice(rows, 0, 2, p + "xy"), wh = slice(rows, 2, 4, p + "wh");
        String obj = slice(rows, 4, 5, p + "obj"), cls = slice(rows, 5, e, p + "cls");
        if (!y.newCoords()) {
            xy = graph.node("Sigmoid", List.of(xy), p + "xy_sig");
            obj = graph.node("Sigmoid", List.of(obj), p + "obj_sig");
            cls = graph.node("Sigmoid", List.of(cls), p + "cls_sig");
        }
        float s = y.scaleXY();
        if (s != 1f) {
            xy = graph.node("Mul", List.of(xy, graph.floats(p + "scale_xy", new float[] {s})), p + "xy_scaled");
            xy = graph.node("Add", List.of(xy, graph.floats(p + "shift_xy", new float[] {-0.5f * (s - 1)})), p + "xy_shifted");
        }
        float[] grid = new float[a * hw * 2], anchors = new float[a * hw * 2];
        for (int n = 0; n < a; n++) {
            for (int cell = 0; cell < hw; cell++) {
                int i = (n * hw + cell) * 2;
                grid[i] = cell % lw;
                grid[i + 1] = cell / lw;
                anchors[i] = y.anchorWidth(n);
                anchors[i + 1] = y.anchorHeight(n);
            }
        }
        String centre = graph.node("Add", List.of(xy, graph.floats(p + "grid", grid, (long) a * hw, 2)), p + "centre_cells");
        centre = graph.node("Mul", List.of(centre, graph.floats(p + "cell_size", new float[] {(float) netW / lw, (float) netH / lh}, 2)),
                p + "centre");
        String size;
        if (y.newCoords()) {
            String sq = graph.node("Mul", List.of(wh, wh), p + "wh_sq");
            size = graph.node("Mul", List.of(sq, graph.floats(p + "four", new float[] {4})), p + "wh_4sq");
        } else {
            size = graph.node("Exp", List.of(wh), p + "wh_exp");
        }
        size = graph.node("Mul", List.of(size, graph.floats(p + "anchors", anchors, (long) a * hw, 2)), p + "size");
        String box = graph.node("Concat", List.of(centre, size), p + "box", Attribute.of("axis", 2L));
        String score = graph.node("Mul", List.of(obj, cls), p + "score");
        return new String[] {box, score};
    }

    private String slice(String x, long from, long to, String out) {
        return graph.node("Slice", List.of(x, graph.longs(out + "_starts", from), graph.longs(out + "_ends", to),
                graph.longs(out + "_axes", 2)), out);
    }

    private String convolutional(ConvolutionalSpec c, String input) {
        float[][] folded = weights.conv(c.index()).folded(); // {weights, bias}
        String w = graph.floats(name(c, "weight"), folded[0], c.filters(), c.groupChannels(), c.size(), c.size());
        String b = graph.floats(name(c, "bias"), folded[1], c.filters());
        long p = c.pad();
        String conv = graph.node("Conv", List.of(input, w, b), name(c, "conv"),
                Attribute.of("kernel_shape", new long[] {c.size(), c.size()}),
                Attribute.of("strides", new long[] {c.strideY(), c.strideX()}),
                Attribute.of("pads", new long[] {p, p, p, p}),
                Attribute.of("group", (long) c.groups()));
        return activation(c, c.activation(), conv);
    }

    private String maxPool(MaxPoolSpec m, String input) {
        Shape in = m.input(), out = m.output();
        long before = -m.offset();
        long afterY = Math.max(0, (out.height() - 1L) * m.strideY() + m.size() - in.height() - before);
        long afterX = Math.max(0, (out.width() - 1L) * m.strideX() + m.size() - in.width() - before);
        return graph.node("MaxPool", List.of(input), name(m, "maxpool"),
                Attribute.of("kernel_shape", new long[] {m.size(), m.size()}),
                Attribute.of("strides", new long[] {m.strideY(), m.strideX()}),
                Attribute.of("pads", new long[] {before, before, afterY, afterX}));
    }

    private String route(RouteSpec r) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < r.layers().length; i++) {
            String source = outputs[r.layers()[i]];
            if (r.whole()) {
                parts.add(source);
                continue;
            }
            long from = r.channelOffset(i), to = from + r.channelCount(i);
            String suffix = "slice" + i;
            parts.add(graph.node("Slice", List.of(source, graph.longs(name(r, suffix + "_starts"), from),
                    graph.longs(name(r, suffix + "_ends"), to), graph.longs(name(r, suffix + "_axes"), 1)),
                    name(r, suffix)));
        }
        if (parts.size() == 1) return graph.node("Identity", parts, name(r, "route"));
        return graph.node("Concat", parts, name(r, "concat"), Attribute.of("axis", 1L));
    }

    /** The parser has checked that both inputs have one shape. */
    private String shortcut(ShortcutSpec s, String previous) {
        String sum = graph.node("Add", List.of(previous, outputs[s.from()]), name(s, "add"));
        return activation(s, s.activation(), sum);
    }

    private String upsample(UpsampleSpec u, String input) {
        String scales = graph.floats(name(u, "scales"), new float[] {1, 1, u.stride(), u.stride()}, 4);
        String up = graph.node("Resize", List.of(input, "", scales), name(u, "resize"),
                Attribute.of("mode", "nearest"),
                Attribute.of("coordinate_transformation_mode", "asymmetric"),
                Attribute.of("nearest_mode", "floor"));
        if (u.scale() == 1f) return up;
        return graph.node("Mul", List.of(up, graph.floats(name(u, "scale"), new float[] {u.scale()})), name(u, "scaled"));
    }

    private String activation(LayerSpec layer, Activation a, String x) {
        return switch (a) {
            case LINEAR -> x;
            case LEAKY -> graph.node("LeakyRelu", List.of(x), name(layer, "leaky"), Attribute.of("alpha", 0.1f));
            case RELU -> graph.node("Relu", List.of(x), name(layer, "relu"));
            case LOGISTIC -> graph.node("Sigmoid", List.of(x), name(layer, "logistic"));
            case MISH -> {
                String softplus = graph.node("Softplus", List.of(x), name(layer, "softplus"));
                String tanh = graph.node("Tanh", List.of(softplus), name(layer, "tanh"));
                yield graph.node("Mul", List.of(x, tanh), name(layer, "mish"));
            }
            case SWISH -> {
                String sigmoid = graph.node("Sigmoid", List.of(x), name(layer, "sigmoid"));
                yield graph.node("Mul", List.of(x, sigmoid), name(layer, "swish"));
            }
        };
    }

    private static String yoloMetadata(YoloSpec y) {
        StringBuilder anchors = new StringBuilder();
        for (int m : y.mask()) {
            if (!anchors.isEmpty()) anchors.append(", ");
            anchors.append(String.format(Locale.ROOT, "%s,%s", trim(y.anchors()[2 * m]), trim(y.anchors()[2 * m + 1])));
        }
        return String.format(Locale.ROOT, "anchors %s; classes %d; scale_x_y %s; new_coords %d", anchors, y.classes(),
                trim(y.scaleXY()), y.newCoords() ? 1 : 0);
    }

    private static String trim(float f) {
        return f == (long) f ? Long.toString((long) f) : Float.toString(f);
    }

    private static String name(LayerSpec layer, String what) {
        return "l" + layer.index() + "_" + what;
    }

}
