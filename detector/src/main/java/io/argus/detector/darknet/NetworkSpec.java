package io.argus.detector.darknet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Darknet network as described by its cfg, with every layer's shape resolved and checked.
 * Build one with {@link #load(Path)}; unknown keys end up in {@link #warnings()}, once per section kind and key.
 */
public final class NetworkSpec {
    private final Path file;
    private final NetSettings net;
    private final List<LayerSpec> layers;
    private final List<String> warnings;
    /** The cfg's sections, kept so {@link #withInput} can build the same network at another size; null for {@link #of}. */
    private final List<CfgSection> sections;

    private NetworkSpec(Path file, NetSettings net, List<LayerSpec> layers, List<String> warnings,
                        List<CfgSection> sections) {
        this.file = file;
        this.net = net;
        this.layers = List.copyOf(layers);
        this.warnings = List.copyOf(warnings);
        this.sections = sections == null ? null : List.copyOf(sections);
    }

    public static NetworkSpec load(Path cfg) {
        return build(cfg, CfgFile.read(cfg), 0, 0);
    }

    /** Loads with the input size overridden (0 keeps the cfg's), as Darknet's -width/-height do. */
    public static NetworkSpec load(Path cfg, int width, int height) {
        return build(cfg, CfgFile.read(cfg), width, height);
    }

    public static NetworkSpec parse(Path name, String text, int width, int height) {
        return build(name, CfgFile.parse(name, text), width, height);
    }

    /** A network built from sections already read ({@link CfgFile#parse}), which then tell what the builder read. */
    public static NetworkSpec fromSections(Path file, List<CfgSection> sections) {
        return build(file, sections, 0, 0);
    }

    /**
     * A network built from layers rather than a cfg (an imported ONNX graph): {@code file} names it in messages. Each
     * layer's inputs must be earlier layers (or -1, the input) and its index its position.
     */
    public static NetworkSpec of(Path file, NetSettings net, List<LayerSpec> layers) {
        for (int i = 0; i < layers.size(); i++) {
            LayerSpec l = layers.get(i);
            if (l.index() != i) throw new IllegalArgumentException(file + ": layer at " + i + " has index " + l.index());
            for (int from : l.inputs()) {
                if (from < -1 || from >= i) {
                    throw new IllegalArgumentException(file + ": layer " + i + " (" + l.kind() + ") reads layer " + from
                            + ", expected -1.." + (i - 1));
                }
            }
        }
        if (layers.isEmpty()) throw new IllegalArgumentException(file + ": no layers");
        return new NetworkSpec(file, net, layers, List.of(), null);
    }

    public Path file() { return file; }

    /**
     * The same cfg built for a {@code width} x {@code height} input, as Darknet's resize_network does while training at
     * several sizes: every layer's shape follows the input, the parameters are the same. Only for a network read from a
     * cfg (an imported graph has no sections to rebuild from).
     */
    public NetworkSpec withInput(int width, int height) {
        if (sections == null) throw new IllegalStateException(name() + ": built from layers, not a cfg: no other sizes");
        if (width == net.width() && height == net.height()) return this;
        synchronized (sections) {   // building marks the keys it reads in the shared sections
            return build(file, sections, width, height);
        }
    }

    public NetSettings net() { return net; }

    public List<LayerSpec> layers() { return layers; }

    public List<String> warnings() { return warnings; }

    public Shape inputShape() { return new Shape(net.channels(), net.height(), net.width()); }

    public List<YoloSpec> yoloLayers() {
        List<YoloSpec> out = new ArrayList<>();
        for (LayerSpec l : layers) if (l instanceof YoloSpec y) out.add(y);
        return out;
    }

    public List<ConvolutionalSpec> convolutionalLayers() {
        List<ConvolutionalSpec> out = new ArrayList<>();
        for (LayerSpec l : layers) if (l instanceof ConvolutionalSpec c) out.add(c);
        return out;
    }

    /** Number of classes (every [yolo] head must agree). */
    public int classes() {
        List<YoloSpec> heads = yoloLayers();
        return heads.isEmpty() ? 0 : heads.get(0).classes();
    }

    /** Convolution FLOPs for one image. */
    public long flops() {
        long f = 0;
        for (ConvolutionalSpec c : convolutionalLayers()) f += c.flops();
        return f;
    }

    /** Cfg file name without directory and extension, e.g. "yolov4-tiny". */
    public String name() {
        String n = file == null ? "network" : file.getFileName().toString();
        if (n.endsWith(".onnx")) return n.substring(0, n.length() - 5);
        return n.endsWith(".cfg") ? n.substring(0, n.length() - 4) : n;
    }

    // ---------------------------------------------------------------- building

    private static NetworkSpec build(Path file, List<CfgSection> sections, int width, int height) {
        CfgSection first = sections.get(0);
        if (!first.name().equals("net") && !first.name().equals("network")) {
            throw new CfgException(file, first.line(), "expected [net] as the first section, found [" + first.name() + "]");
        }
        NetSettings net = NetSettings.from(first);
        if (width > 0 || height > 0) {
            net = net.withInput(width > 0 ? width : net.width(), height > 0 ? height : net.height());
        }
        if ((long) net.channels() * net.height() * net.width() > Integer.MAX_VALUE) {
            throw new CfgException(file, first.line(), "[net] input " + net.channels() + "x" + net.height() + "x"
                    + net.width() + " holds more than 2^31 - 1 values per image");
        }
        Shape input = new Shape(net.channels(), net.height(), net.width());
        List<LayerSpec> layers = new ArrayList<>();
        for (int i = 1; i < sections.size(); i++) {
            CfgSection s = sections.get(i);
            int index = layers.size();
            Shape prev = index == 0 ? input : layers.get(index - 1).output();
            LayerSpec layer;
            try {
                layer = switch (s.name()) {
                    case "convolutional", "conv" -> convolutional(s, index, prev);
                    case "maxpool", "max" -> maxpool(s, index, prev);
                    case "route" -> route(s, index, layers);
                    case "shortcut" -> shortcut(s, index, prev, layers);
                    case "upsample" -> upsample(s, index, prev);
                    case "yolo" -> yolo(s, index, prev, net);
                    case "net", "network" -> throw s.error("[net] may only be the first section");
                    default -> throw s.error("unknown section (supported: [net], [convolutional], [maxpool], [route], "
                            + "[shortcut], [upsample], [yolo])");
                };
            } catch (IllegalArgumentException e) {   // a shape the settings make impossible (Shape's check)
                throw s.error(e.getMessage());
            }
            Shape out = layer.output();
            if ((long) out.channels() * out.height() * out.width() > Integer.MAX_VALUE) {
                throw s.error("output " + out + " holds more than 2^31 - 1 values per image");
            }
            layers.add(layer);
        }
        if (layers.isEmpty()) throw new CfgException(file, first.line(), "no layers after [net]");
        List<YoloSpec> heads = new ArrayList<>();
        for (LayerSpec l : layers) if (l instanceof YoloSpec y) heads.add(y);
        for (YoloSpec y : heads) {
            if (y.classes() != heads.get(0).classes()) {
                throw new CfgException(file, y.line(), "[yolo] classes: expected " + heads.get(0).classes()
                        + " as in the [yolo] at line " + heads.get(0).line() + ", found " + y.classes());
            }
        }
        return new NetworkSpec(file, net, layers, unknownKeys(file, sections), sections);
    }

    /** One warning per (section kind, key) that no builder read, with the first line and the count. */
    private static List<String> unknownKeys(Path file, List<CfgSection> sections) {
        Map<String, int[]> seen = new LinkedHashMap<>(); // "[kind] key" -> {firstLine, count}
        for (CfgSection s : sections) {
            for (String key : s.unreadKeys()) {
                int line = s.entries().get(key).line();
                seen.computeIfAbsent("[" + s.name() + "] " + key, k -> new int[] {line, 0})[1]++;
            }
        }
        List<String> warnings = new ArrayList<>();
        seen.forEach((k, v) -> warnings.add(CfgException.location(file, v[0]) + ": unknown key " + k
                + " ignored" + (v[1] > 1 ? " (" + v[1] + " occurrences)" : "")));
        return warnings;
    }

    private static ConvolutionalSpec convolutional(CfgSection s, int index, Shape in) {
        int filters = s.getInt("filters", 1);
        int size = s.getInt("size", 1);
        int stride = s.getInt("stride", 1);
        int strideX = s.getInt("stride_x", stride);
        int strideY = s.getInt("stride_y", stride);
        int padding = s.getInt("padding", 0);
        if (s.getFlag("pad", false)) padding = size / 2;
        int groups = s.getInt("groups", 1);
        int dilation = s.getInt("dilation", 1);
        boolean bn = s.getFlag("batch_normalize", false);
        Activation act = Activation.parse(s.getChoice("activation", "logistic", Activation.names()));
        if (filters <= 0) throw s.error("filters", "expected a positive integer, found " + filters);
        if (size <= 0) throw s.error("size", "expected a positive integer, found " + size);
        if (strideX <= 0 || strideY <= 0) throw s.error("stride", "expected a positive integer");
        if (padding < 0) throw s.error("padding", "expected a non-negative integer, found " + padding);
        if (dilation != 1) throw s.error("dilation", "only dilation=1 is supported, found " + dilation);
        if (groups <= 0 || in.channels() % groups != 0 || filters % groups != 0) {
            throw s.error("groups", "expected a divisor of input channels " + in.channels() + " and filters "
                    + filters + ", found " + groups);
        }
        int outW = (in.width() + 2 * padding - size) / strideX + 1;
        int outH = (in.height() + 2 * padding - size) / strideY + 1;
        if (outW <= 0 || outH <= 0) {
            throw s.error("size " + size + " with padding " + padding + " does not fit input " + in);
        }
        return new ConvolutionalSpec(index, s.line(), in, new Shape(filters, outH, outW), filters, size, strideX,
                strideY, padding, groups, act, bn);
    }

    private static MaxPoolSpec maxpool(CfgSection s, int index, Shape in) {
        int stride = s.getInt("stride", 1);
        int strideX = s.getInt("stride_x", stride);
        int strideY = s.getInt("stride_y", stride);
        int size = s.getInt("size", stride);
        int padding = s.getInt("padding", size - 1);
        if (size <= 0) throw s.error("size", "expected a positive integer, found " + size);
        if (strideX <= 0 || strideY <= 0) throw s.error("stride", "expected a positive integer");
        if (padding < 0) throw s.error("padding", "expected a non-negative integer, found " + padding);
        int outW = (in.width() + padding - size) / strideX + 1;
        int outH = (in.height() + padding - size) / strideY + 1;
        if (outW <= 0 || outH <= 0) throw s.error("size " + size + " does not fit input " + in);
        return new MaxPoolSpec(index, s.line(), in, new Shape(in.channels(), outH, outW), size, strideX, strideY,
                padding);
    }

    private static int resolve(CfgSection s, String key, int ref, int index) {
        int abs = ref < 0 ? index + ref : ref;
        if (abs < 0 || abs >= index) {
            throw s.error(key, "layer " + ref + " resolves to " + abs + ", expected an earlier layer in 0.."
                    + (index - 1));
        }
        return abs;
    }

    private static RouteSpec route(CfgSection s, int index, List<LayerSpec> layers) {
        int[] refs = s.getIntList("layers");
        if (refs == null || refs.length == 0) throw s.error("missing required key 'layers' (expected layer indices)");
        int groups = s.getInt("groups", 1);
        int groupId = s.getInt("group_id", 0);
        if (groups <= 0) throw s.error("groups", "expected a positive integer, found " + groups);
        if (groupId < 0 || groupId >= groups) {
            throw s.error("group_id", "expected 0.." + (groups - 1) + ", found " + groupId);
        }
        int[] abs = new int[refs.length];
        Shape[] shapes = new Shape[refs.length];
        int channels = 0;
        for (int i = 0; i < refs.length; i++) {
            abs[i] = resolve(s, "layers", refs[i], index);
            shapes[i] = layers.get(abs[i]).output();
            if (shapes[i].channels() % groups != 0) {
                throw s.error("groups", "layer " + abs[i] + " has " + shapes[i].channels()
                        + " channels, not divisible by groups=" + groups);
            }
            if (shapes[i].height() != shapes[0].height() || shapes[i].width() != shapes[0].width()) {
                throw s.error("layers", "shapes do not fit: layer " + abs[0] + " is " + shapes[0] + " but layer "
                        + abs[i] + " is " + shapes[i] + " (expected equal height and width)");
            }
            channels += shapes[i].channels() / groups;
        }
        return new RouteSpec(index, s.line(), abs, shapes,
                new Shape(channels, shapes[0].height(), shapes[0].width()), groups, groupId);
    }

    private static ShortcutSpec shortcut(CfgSection s, int index, Shape prev, List<LayerSpec> layers) {
        int[] from = s.getIntList("from");
        if (from == null) throw s.error("missing required key 'from' (expected a layer index)");
        if (from.length != 1) throw s.error("from", "expected one layer, found " + from.length);
        if (index == 0) throw s.error("a [shortcut] cannot be the first layer");
        int abs = resolve(s, "from", from[0], index);
        Shape other = layers.get(abs).output();
        if (!other.equals(prev)) {
            throw s.error("from", "shapes do not fit: layer " + abs + " is " + other + " but the previous layer is "
                    + prev + " (expected equal shapes)");
        }
        String weights = s.getChoice("weights_type", "none", "none");
        assert weights.equals("none");
        Activation act = Activation.parse(s.getChoice("activation", "linear", Activation.names()));
        return new ShortcutSpec(index, s.line(), abs, prev, act);
    }

    private static UpsampleSpec upsample(CfgSection s, int index, Shape in) {
        int stride = s.getInt("stride", 2);
        float scale = s.getFloat("scale", 1f);
        if (stride <= 0) throw s.error("stride", "expected a positive integer (downsampling is not supported), found "
                + stride);
        long h = (long) in.height() * stride, w = (long) in.width() * stride;
        if (h > Integer.MAX_VALUE || w > Integer.MAX_VALUE) {
            throw s.error("stride", "an input of " + in.height() + "x" + in.width() + " times " + stride + " is too large");
        }
        return new UpsampleSpec(index, s.line(), in, new Shape(in.channels(), (int) h, (int) w), stride, scale);
    }

    private static YoloSpec yolo(CfgSection s, int index, Shape in, NetSettings net) {
        int classes = s.getInt("classes", 20);
        int num = s.getInt("num", 1);
        int[] mask = s.getIntList("mask");
        float[] anchors = s.getFloatList("anchors");
        if (classes <= 0) throw s.error("classes", "expected a positive integer, found " + classes);
        if (num <= 0) throw s.error("num", "expected a positive integer, found " + num);
        if (anchors == null) anchors = new float[2 * num]; // Darknet's default: zeros (boxes of size 0)
        if (anchors.length != 2 * num) {
            throw s.error("anchors", "expected " + (2 * num) + " numbers (num=" + num + " w,h pairs), found "
                    + anchors.length);
        }
        if (mask == null) {
            mask = new int[num];
            for (int i = 0; i < num; i++) mask[i] = i;
        }
        for (int m : mask) {
            if (m < 0 || m >= num) throw s.error("mask", "expected anchor indices in 0.." + (num - 1) + ", found " + m);
        }
        int expected = mask.length * (classes + 5);
        if (in.channels() != expected) {
            throw s.error("shapes do not fit: input has " + in.channels() + " channels, expected " + expected
                    + " = " + mask.length + " anchors x (" + classes + " classes + 5)");
        }
        float scaleXY = s.getFloat("scale_x_y", 1f);
        boolean newCoords = s.getFlag("new_coords", false);
        String nms = s.getChoice("nms_kind", "default", "default", "greedynms", "diounms", "cornersnms");
        YoloSpec.NmsKind kind = switch (nms) {
            case "greedynms" -> YoloSpec.NmsKind.GREEDY;
            case "diounms" -> YoloSpec.NmsKind.DIOU;
            case "cornersnms" -> YoloSpec.NmsKind.CORNERS;
            default -> YoloSpec.NmsKind.DEFAULT;
        };
        float beta = s.getFloat("beta_nms", 0.6f);
        YoloSpec.YoloTraining training = new YoloSpec.YoloTraining(
                s.getFloat("jitter", 0.2f),
                s.getFloat("ignore_thresh", 0.5f),
                s.getFloat("truth_thresh", 1f),
                s.getFloat("random", 0f),
                s.getFloat("iou_thresh", 1f),
                s.getFloat("iou_normalizer", 0.75f),
                s.getFloat("cls_normalizer", 1f),
                s.getFloat("obj_normalizer", 1f),
                s.getChoice("iou_loss", "mse", "mse", "iou", "giou", "diou", "ciou"),
                s.getFloat("max_delta", Float.MAX_VALUE),
                s.getFlag("objectness_smooth", false),
                s.getFloat("resize", 1f),
                s.getFloat("label_smooth_eps", 0f));
        assert net.width() > 0;
        return new YoloSpec(index, s.line(), in, classes, mask, anchors, scaleXY, newCoords, kind, beta, training);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s: %dx%dx%d input, %d layers, %.3f GFLOPs", name(), net.width(),
                net.height(), net.channels(), layers.size(), flops() / 1e9);
    }
}
