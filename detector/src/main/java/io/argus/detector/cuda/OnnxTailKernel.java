package io.argus.detector.cuda;

import io.argus.detector.darknet.Shape;
import io.argus.detector.onnx.OnnxHead;
import io.argus.detector.onnx.OnnxInterpreter;
import io.argus.gpu.CudaLog;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuDevice;
import io.argus.gpu.GpuStream;
import io.argus.gpu.KernelLaunch;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * An imported model's tail ({@link io.argus.detector.onnx.OnnxTail}: the graph's nodes after its last layers) as one
 * kernel of its family (kernels/onnx_heads.cu), enqueued after the layers so a CUDA graph captures it: from the tail's
 * input layers (FP16 NHWC) to the graph's output (FP32, the graph's own layout) for the whole batch, instead of
 * downloading every layer's output and interpreting the nodes per image on the host.
 *
 * <p>The kernel computes what the family's exporters put in the graph (DFL, anchor points and strides; YOLOv5's
 * sigmoid and anchor grids; YOLOX's concatenation), which is an assumption about nodes it never reads. So
 * {@link #create} checks it: the constants it needs and cannot derive from the shapes (YOLOv5's anchor sizes, which of
 * YOLOX's fields the graph still passes through a sigmoid) are read off the graph's own tail run on zeros, and then
 * the kernel and the graph's tail run on the same random FP16 layer outputs of one image must agree within 1e-3
 * relative L2, as a whole and in every output field. Anything else (a family without a kernel, a layout that does not
 * fit, a difference) leaves the tail on the host, with the reason logged and kept ({@link CudaNetwork#tailProblem}).
 */
final class OnnxTailKernel implements AutoCloseable {
    static final String FILE = "onnx_heads.cu";
    static final double TOLERANCE = 1e-3;
    private static final int LEVEL_BYTES = 80;   // struct Level in onnx_heads.cu
    private static final int MAX_LEVELS = 8;
    private static final int MAX_ANCHORS = 4;

    /** A level of the head: the tail input it reads, its grid and stride, the first output anchor or row. */
    private record Level(int input, TensorView view, float stride, int start, int anchors, float[] anchorSizes) {}

    private final OnnxHead.Family family;
    private final int classes;
    private final long[] shape;         // the graph's output for one image: [1, a, b]
    private final int items;            // threads' items per image: anchors (yolov8) or values (rows x fields)
    private final GpuBuffer levels;
    private final GpuBuffer output;
    private final KernelLaunch launch;
    private final int nSlot;
    private final GpuDevice device;
    private final String describe;

    private OnnxTailKernel(DeviceContext ctx, int maxBatch, OnnxHead head, List<Level> lv, long[] shape, int bins,
                           int objectSigmoid, int sigmoidFrom) {
        this.family = head.family();
        this.classes = head.classes();
        this.shape = shape;
        this.device = ctx.device();
        int perImage = (int) (shape[1] * shape[2]);
        this.items = family == OnnxHead.Family.YOLOV8 ? (int) shape[2] : perImage;
        ByteBuffer b = ByteBuffer.allocate(LEVEL_BYTES * lv.size()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < lv.size(); i++) {
            Level l = lv.get(i);
            int o = i * LEVEL_BYTES;
            b.putLong(o, l.view().base());
            b.putLong(o + 8, l.view().imageStride());
            b.putInt(o + 16, l.view().pixelStride());
            b.putInt(o + 20, l.view().channelOffset());
            b.putInt(o + 24, l.view().height());
            b.putInt(o + 28, l.view().width());
            b.putFloat(o + 32, l.stride());
            b.putInt(o + 36, l.start());
            b.putInt(o + 40, l.anchors());
            for (int k = 0; k < l.anchorSizes().length; k++) b.putFloat(o + 48 + 4 * k, l.anchorSizes()[k]);
        }
        GpuBuffer levelBuffer = GpuBuffer.device(b.capacity(), "head levels");
        GpuBuffer out = null;
        try {
            Transfers.upload(levelBuffer.address(), b.array());
            out = GpuBuffer.device(4L * perImage * maxBatch, "graph output");
            switch (family) {
                case YOLOV8 -> {
                    launch = KernelLaunch.of(ctx.kernels(), FILE, "yolov8_tail");
                    launch.pointer(levelBuffer.address());
                    launch.i32(lv.size());
                    launch.i32(items);
                    launch.i32(bins);
                    launch.i32(classes);
                }
                case YOLOV5 -> {
                    launch = KernelLaunch.of(ctx.kernels(), FILE, "yolov5_tail");
                    launch.pointer(levelBuffer.address());
                    launch.i32(lv.size());
                    launch.i32((int) shape[1]);
                    launch.i32((int) shape[2]);
                }
                case YOLOX -> {
                    launch = KernelLaunch.of(ctx.kernels(), FILE, "yolox_tail");
                    launch.pointer(levelBuffer.address());
                    launch.i32(lv.size());
                    launch.i32((int) shape[1]);
                    launch.i32((int) shape[2]);
                    launch.i32(objectSigmoid);
                    launch.i32(sigmoidFrom);
                }
                default -> throw new IllegalStateException("no tail kernel for " + family);
            }
            launch.pointer(out.address());
            nSlot = launch.i32(1);
        } catch (RuntimeException e) {
            levelBuffer.close();
            if (out != null) out.close();
            throw e;
        }
        this.levels = levelBuffer;
        this.output = out;
        StringBuilder d = new StringBuilder(family.configName() + " tail kernel over " + lv.size() + " levels");
        if (family == OnnxHead.Family.YOLOV5) {
            d.append(", anchors");
            for (Level l : lv) d.append(' ').append(Arrays.toString(l.anchorSizes()));
        }
        if (family == OnnxHead.Family.YOLOX) d.append(", sigmoid on objectness ").append(objectSigmoid != 0)
                .append(", on classes ").append(sigmoidFrom == 5);
        this.describe = d.toString();
    }

    /**
     * The family's kernel for {@code net}'s tail, checked against the graph's tail, or null when the tail stays on the
     * host; {@code problem[0]} then says why. Writes random values into image 0 of the tail's input layers (at load,
     * before any frame) and waits for the stream.
     */
    static OnnxTailKernel create(CudaNetwork net, OnnxHead head, int maxBatch, String[] problem) {
        try {
            OnnxTailKernel k = build(net, head, maxBatch, problem);
            if (k == null) return null;
            String failed = k.verify(net, head);
            if (failed != null) {
                k.close();
                problem[0] = failed;
                return null;
            }
            return k;
        } catch (RuntimeException e) {
            problem[0] = "the tail kernel failed to build: " + e;
            return null;
        }
    }

    private static OnnxTailKernel build(CudaNetwork net, OnnxHead head, int maxBatch, String[] problem) {
        OnnxHead.Family family = head.family();
        if (family == OnnxHead.Family.NMS) {
            problem[0] = "a graph with NMS keeps its tail (its selections are data-dependent) on the host";
            return null;
        }
        int nc = head.classes();
        int[] layers = head.tail().inputLayers();
        if (layers.length == 0 || layers.length > MAX_LEVELS) {
            problem[0] = "the tail reads " + layers.length + " layers, the kernel takes 1.." + MAX_LEVELS;
            return null;
        }
        // the finest level first: the order every family concatenates its levels in
        Integer[] order = new Integer[layers.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, Comparator.comparingInt((Integer i) -> -net.spec().layers().get(layers[i]).output().plane()));
        int no = 5 + nc;
        int bins = 0;
        for (int i : order) {
            Shape s = net.spec().layers().get(layers[i]).output();
            boolean fits = switch (family) {
                case YOLOV8 -> s.channels() > nc && (s.channels() - nc) % 4 == 0
                        && (bins == 0 || bins == (s.channels() - nc) / 4);
                case YOLOV5 -> s.channels() % no == 0 && s.channels() / no <= MAX_ANCHORS;
                case YOLOX -> s.channels() == no;
                default -> false;
            };
            if (!fits) {
                problem[0] = "tail input layer " + layers[i] + " has " + s.channels() + " channels, which the "
                        + family.configName() + " kernel does not lay out for " + nc + " classes";
                return null;
            }
            if (family == OnnxHead.Family.YOLOV8) bins = (s.channels() - nc) / 4;
        }
        int inputW = net.spec().inputShape().width();
        List<Level> lv = new ArrayList<>();
        int start = 0;
        for (int i : order) {
            TensorView v = net.layerView(layers[i]);
            int anchors = family == OnnxHead.Family.YOLOV5 ? v.channels() / no : 1;
            lv.add(new Level(i, v, (float) inputW / v.width(), start, anchors, new float[2 * anchors]));
            start += anchors * v.pixels();
        }
        long[] shape = family == OnnxHead.Family.YOLOV8 ? new long[] {1, 4 + nc, start} : new long[] {1, start, no};
        // what the shapes cannot say, from the graph's tail on zeros: sigmoid(0) = 0.5, so a YOLOv5 row's w and h are
        // its anchor's size, and a YOLOX field that reads 0.5 went through a sigmoid
        float[][] zeros = new float[layers.length][];
        for (int i = 0; i < layers.length; i++) zeros[i] = new float[net.spec().layers().get(layers[i]).output().size()];
        OnnxInterpreter.Tensor probe = head.tail().run(zeros).get(0);
        if (!Arrays.equals(probe.shape(), shape)) {
            problem[0] = "the graph's output is " + Arrays.toString(probe.shape()) + ", the " + family.configName()
                    + " kernel would write " + Arrays.toString(shape);
            return null;
        }
        int objectSigmoid = 0, sigmoidFrom = no;
        if (family == OnnxHead.Family.YOLOV5) {
            for (Level l : lv) {
                for (int a = 0; a < l.anchors(); a++) {
                    int row = l.start() + a * l.view().pixels();
                    l.anchorSizes()[2 * a] = probe.data()[row * no + 2];
                    l.anchorSizes()[2 * a + 1] = probe.data()[row * no + 3];
                }
            }
        } else if (family == OnnxHead.Family.YOLOX) {
            objectSigmoid = probe.data()[4] == 0.5f ? 1 : 0;
            sigmoidFrom = probe.data()[5] == 0.5f ? 5 : no;
        }
        return new OnnxTailKernel(net.context(), maxBatch, head, lv, shape, bins, objectSigmoid, sigmoidFrom);
    }

    /** Null when the kernel and the graph's tail agree on random inputs of image 0, else what differed. */
    private String verify(CudaNetwork net, OnnxHead head) {
        int[] layers = head.tail().inputLayers();
        Random random = new Random(7);
        GpuStream stream = net.stream();
        stream.synchronize();
        for (int layer : layers) {
            TensorView v = net.layerView(layer);
            short[] image = Transfers.downloadHalves(v.base(), v.imageStride());
            for (int p = 0; p < v.pixels(); p++) {
                for (int c = 0; c < v.channels(); c++) {
                    image[p * v.pixelStride() + v.channelOffset() + c] = Float.floatToFloat16(random.nextFloat() * 8 - 4);
                }
            }
            Transfers.upload(v.base(), image);
        }
        forward(1, stream);
        stream.synchronize();
        float[] mine = Transfers.downloadFloats(output.address(), shape[1] * shape[2]);
        float[][] in = new float[layers.length][];
        for (int i = 0; i < layers.length; i++) in[i] = net.layerOutput(layers[i], 0);
        float[] theirs = head.tail().run(in).get(0).data();
        double whole = relativeL2(mine, theirs, 0, 1, mine.length);
        double worst = 0;
        int worstField = -1;
        boolean columns = family == OnnxHead.Family.YOLOV8;   // fields are rows of [4 + nc, anchors], else columns
        int fields = (int) (columns ? shape[1] : shape[2]);
        int count = (int) (columns ? shape[2] : shape[1]);
        for (int f = 0; f < fields; f++) {
            double e = columns ? relativeL2(mine, theirs, f * count, 1, count) : relativeL2(mine, theirs, f, fields, count);
            if (!(e <= worst)) {
                worst = e;
                worstField = f;
            }
        }
        String summary = String.format(Locale.ROOT, "relative L2 %.2e over the output, %.2e in field %d (worst)",
                whole, worst, worstField);
        if (!(whole <= TOLERANCE) || !(worst <= TOLERANCE)) {
            return "the " + family.configName() + " tail kernel differs from the graph's tail on random inputs: "
                    + summary + " > " + TOLERANCE;
        }
        CudaLog.info(net.spec().name() + ": " + describe + " matches the graph's tail (" + summary + ")");
        return null;
    }

    /** ||a - b|| / ||b|| over count values from offset, step apart; NaN or infinity anywhere gives infinity. */
    static double relativeL2(float[] a, float[] b, int offset, int step, int count) {
        double num = 0, den = 0;
        for (int i = 0, j = offset; i < count; i++, j += step) {
            if (!Float.isFinite(a[j]) || !Float.isFinite(b[j])) return Double.POSITIVE_INFINITY;
            double d = (double) a[j] - b[j];
            num += d * d;
            den += (double) b[j] * b[j];
        }
        return den == 0 ? Math.sqrt(num) : Math.sqrt(num / den);
    }

    /** Enqueues the kernel for the first n images (a bucket's worth inside a CUDA graph). */
    void forward(int n, GpuStream stream) {
        launch.setInt(nSlot, n).launch(KernelLaunch.grid((long) n * items, device), stream.handle());
    }

    OnnxHead.Family family() { return family; }

    int classes() { return classes; }

    /** The graph's output shape for one image, [1, a, b]. */
    long[] shape() { return shape.clone(); }

    /** Floats of one image's output. */
    int perImage() { return (int) (shape[1] * shape[2]); }

    /** The FP32 output of all images, {@link #perImage} floats apart. */
    long output() { return output.address(); }

    String describe() { return describe; }

    @Override
    public void close() {
        output.close();
        levels.close();
    }
}
