package io.argus.detector.onnx;

import io.argus.detector.darknet.Activation;
import io.argus.detector.darknet.ConvWeights;
import io.argus.detector.darknet.ConvolutionalSpec;
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
 */
public final class OnnxExport {
    private final NetworkSpec spec;
    private final ModelWeights weights;
    private final OnnxGraph graph;
    /** Each layer's output tensor name. */
    private final String[] outputs;

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
        OnnxExport e = new OnnxExport(spec, weights);
        e.build();
        return e.graph.toBytes(producerVersion, "exported by argus export onnx from " + spec.file());
    }

    private void build() {
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
            if (r.groups() == 1) {
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
