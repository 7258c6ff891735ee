package io.argus.detector.cpu;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.YoloSpec;
import io.argus.detector.nn.InferenceBackend;
import io.argus.detector.onnx.HeadDecoder;
import io.argus.detector.onnx.OnnxHead;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.onnx.OnnxInterpreter;
import io.argus.detector.post.Candidate;
import io.argus.detector.post.Detections;
import io.argus.detector.post.InputGeometry;
import io.argus.detector.post.Preprocess;
import io.argus.detector.post.YoloDecoder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU backend (FP32, BF16 or INT8, {@link CpuOptions}): Darknet pre-processing, {@link CpuNetwork}, decode and NMS
 * on the calling thread. INT8 is calibrated at start on the configured sample frames (an FP32 pass over each).
 */
public final class CpuBackend implements InferenceBackend {
    private final Model model;
    private final CpuNetwork network;
    private final Preprocess preprocess = new Preprocess();
    private final List<YoloSpec> heads;
    private final InputGeometry[] geometry;
    private final OnnxInput onnxInput;                   // imported models: their family's input
    private final OnnxInput.Geometry[] onnxGeometry;
    private final float[][] tailInputs;
    private int lastBatch;

    public CpuBackend(Model model, int maxBatch) {
        this(model, maxBatch, CpuOptions.DEFAULTS);
    }

    public CpuBackend(Model model, int maxBatch, CpuOptions options) {
        this.model = model;
        Int8Calibration calibration = options.precision() == CpuPrecision.INT8
                ? Int8Calibration.measure(model,
                        Int8Calibration.readImages(options.calibration(), CpuOptions.CALIBRATION_FRAMES), options)
                : null;
        this.network = WinogradInNetwork.open(model.spec(), model.weights(), maxBatch, options, calibration);
        this.heads = model.spec().yoloLayers();
        this.geometry = new InputGeometry[maxBatch];
        OnnxHead onnx = OnnxHead.in(model);
        this.onnxInput = onnx == null ? null : new OnnxInput(onnx.convention());
        this.onnxGeometry = new OnnxInput.Geometry[maxBatch];
        this.tailInputs = onnx == null ? new float[0][] : tailScratch(model);
    }

    @Override
    public String name() { return "cpu"; }

    @Override
    public int maxBatch() { return network.maxBatch(); }

    public CpuNetwork network() { return network; }

    @Override
    public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params) {
        List<BgrImage> images = hostImages(pictures);
        int n = images.size();
        if (n == 0) return List.of();
        if (n > maxBatch()) throw new IllegalArgumentException(n + " images, max batch " + maxBatch());
        if (OnnxHead.in(model) != null) return detectImported(images, params);
        NetworkSpec spec = model.spec();
        int w = spec.net().width();
        int h = spec.net().height();
        int inputSize = spec.inputShape().size();
        for (int i = 0; i < n; i++) {
            geometry[i] = preprocess.into(images.get(i), w, h, spec.net().letterBox(), network.input(), i * inputSize);
        }
        network.forward(n);
        lastBatch = n;
        List<List<Detection>> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            List<Candidate> candidates = new ArrayList<>();
            for (YoloSpec head : heads) {
                YoloDecoder.decode(head, network.output(head.index()), i * head.output().size(), w, h,
                        params.threshold(), geometry[i], candidates);
            }
            result.add(Detections.finish(candidates, heads, model.names(), geometry[i], params.threshold(),
                    params.nms(), params.nmsKind()));
        }
        return result;
    }

    /** An imported model: its family's input, the layers, the graph's tail per image, the family's decoding. */
    private List<List<Detection>> detectImported(List<BgrImage> images, DetectParams params) {
        int n = images.size();
        NetworkSpec spec = model.spec();
        int w = spec.net().width(), h = spec.net().height(), inputSize = spec.inputShape().size();
        for (int i = 0; i < n; i++) onnxGeometry[i] = onnxInput.write(images.get(i), w, h, network.input(), i * inputSize);
        network.forward(n);
        lastBatch = n;
        OnnxHead head = OnnxHead.in(model);
        List<List<Detection>> result = new ArrayList<>(n);
        if (head.decoder() == null) {
            List<List<OnnxInterpreter.Tensor>> outputs = tailOutputs(network, head, n, tailInputs);
            for (int i = 0; i < n; i++) {
                result.add(head.detections(outputs.get(i).get(0), onnxGeometry[i], model.names(), params.threshold(),
                        params.nms()));
            }
            return result;
        }
        // the family's decoding off the head layers: only anchors above the threshold pay for it
        FloatBuffer[] layerOutputs = headLayerOutputs(network, head);
        for (int i = 0; i < n; i++) {
            copyImage(layerOutputs, i, tailInputs);
            List<Candidate> candidates = new ArrayList<>();
            head.decoder().candidates(tailInputs, params.threshold(), onnxGeometry[i], candidates);
            result.add(head.finish(candidates, onnxGeometry[i], model.names(), params.threshold(), params.nms()));
        }
        return result;
    }

    /**
     * An imported graph's outputs for the {@code n} images of {@code network}'s last forward: its tail run per image on
     * the layers' outputs. {@code scratch}: one array per tail input, of its layer's output size (reused).
     */
    public static List<List<OnnxInterpreter.Tensor>> tailOutputs(CpuNetwork network, OnnxHead head, int n,
                                                                float[][] scratch) {
        return tailOutputs(network, head, n, scratch, null);
    }

    /**
     * As {@link #tailOutputs(CpuNetwork, OnnxHead, int, float[][])}, a decoded output of image i written into
     * {@code reuse[i]} when given (an array per image of the decoder's output size: a caller that reads the values
     * before the next call saves allocating and zeroing them, 2.8 MB per image for yolov8n).
     */
    public static List<List<OnnxInterpreter.Tensor>> tailOutputs(CpuNetwork network, OnnxHead head, int n,
                                                                float[][] scratch, float[][] reuse) {
        FloatBuffer[] layerOutputs = headLayerOutputs(network, head);
        List<List<OnnxInterpreter.Tensor>> out = new ArrayList<>(n);
        HeadDecoder decoder = head.decoder();
        for (int i = 0; i < n; i++) {
            copyImage(layerOutputs, i, scratch);
            if (decoder == null) {
                out.add(head.tail().run(scratch));
                continue;
            }
            // the family's decoding computes the very output (HeadDecoder.probe checked it), on every core
            float[] values = reuse != null ? reuse[i] : new float[decoder.outputSize()];
            network.forRange(decoder.anchors(), (from, to) -> decoder.fullOutput(scratch, values, from, to));
            out.add(List.of(new OnnxInterpreter.Tensor(head.outputShape(), values)));
        }
        return out;
    }

    /** The last forward's outputs of the layers the head reads, FP32 NCHW (image i at i x a layer's output size). */
    private static FloatBuffer[] headLayerOutputs(CpuNetwork network, OnnxHead head) {
        int[] layers = head.tail().inputLayers();
        FloatBuffer[] out = new FloatBuffer[layers.length];
        for (int k = 0; k < layers.length; k++) out[k] = network.outputNchw(layers[k]);
        return out;
    }

    /** Image {@code image} of each head layer's output into its scratch array. */
    private static void copyImage(FloatBuffer[] layerOutputs, int image, float[][] scratch) {
        for (int k = 0; k < layerOutputs.length; k++) layerOutputs[k].get(image * scratch[k].length, scratch[k]);
    }

    /** Scratch arrays for {@link #tailOutputs}: one per tail input, of its layer's output size. */
    public static float[][] tailScratch(Model model) {
        int[] tailLayers = OnnxHead.in(model).tail().inputLayers();
        float[][] s = new float[tailLayers.length][];
        for (int i = 0; i < tailLayers.length; i++) s[i] = new float[model.spec().layers().get(tailLayers[i]).output().size()];
        return s;
    }

    /** For an imported model, graph output {@code head} of image {@code image} of the last call, row-major. */
    @Override
    public float[] headOutput(int head, int image) {
        if (image < 0 || image >= lastBatch) throw new IndexOutOfBoundsException("image " + image + " of " + lastBatch);
        if (OnnxHead.in(model) != null) {
            // computed when asked: detection decodes off the layers without the graph's outputs
            return tailOutputs(network, OnnxHead.in(model), lastBatch, tailScratch(model)).get(image).get(head).data();
        }
        YoloSpec y = heads.get(head);
        float[] out = new float[y.output().size()];
        FloatBuffer buf = network.output(y.index());
        buf.get(image * out.length, out);
        return out;
    }

    @Override
    public void close() { network.close(); }

    /** The pictures as host images; a GPU picture here is a wiring mistake (NVDEC frames for a model on the CPU). */
    private static List<BgrImage> hostImages(List<? extends Picture> pictures) {
        List<BgrImage> images = new ArrayList<>(pictures.size());
        for (int i = 0; i < pictures.size(); i++) {
            if (!(pictures.get(i) instanceof BgrImage im)) {
                throw new IllegalArgumentException("picture " + i + " is a " + pictures.get(i).getClass().getSimpleName()
                        + " (on the GPU); the CPU backend reads host BGR images only");
            }
            images.add(im);
        }
        return images;
    }
}
