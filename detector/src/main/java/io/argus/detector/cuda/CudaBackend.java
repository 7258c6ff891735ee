package io.argus.detector.cuda;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.Int8Calibration;
import io.argus.detector.nn.InferenceBackend;
import io.argus.detector.nn.StageTimes;
import io.argus.detector.onnx.OnnxHead;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.post.InputGeometry;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.EventMarks;
import io.argus.gpu.MemoryMode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The CUDA backend (FP16; its convolutions optionally FP8, {@link CudaPrecision}): frames to the input tensor in one
 * kernel, the network on cuDNN and our kernels (a CUDA graph per batch size), decode and NMS on the GPU; only
 * detections come back. One instance is owned by one thread (an inference worker); several instances may share a
 * device.
 *
 * <p>A batch may mix host BGR images (uploaded, then resized by one kernel: {@link FrameInput}) and NV12 surfaces
 * NVDEC left on this GPU (one conversion kernel per slot: {@link Nv12Input}); host images take the first slots, and
 * the detections are handed back in the caller's order. CUDA events around the stages time what the device ran
 * ({@link #lastStageTimes}).
 *
 * <p>An imported ONNX model ({@link Model#onnx()}) runs the same way with its family's conventions: the preprocess
 * kernel letterboxes by {@link OnnxInput}'s rules, the network runs its layers and then its graph's tail as one kernel
 * ({@link OnnxTailKernel}, checked against the graph at open; else on the host), and {@link OnnxPostprocess} decodes
 * and suppresses as {@link OnnxHead#detections} does. It reads host BGR images only (no NV12 surfaces yet).
 */
public final class CudaBackend implements InferenceBackend {
    private final Model model;
    private final CudaOptions options;
    private final MemoryMode memory;
    private final CudaNetwork network;
    private final FrameInput frames;
    private final GpuPostprocess post;            // a Darknet model's
    private final OnnxPostprocess importedPost;   // an imported model's
    private final EventMarks marks;
    private Nv12Input nv12;   // made on the first NV12 picture: a model fed only host frames never compiles nv12.cu
    private int lastBatch;
    private StageTimes lastStages;

    private CudaBackend(Model model, int maxBatch, CudaOptions options) {
        this.model = model;
        this.options = options;
        OnnxHead head = OnnxHead.in(model);
        CudaNetwork net = new CudaNetwork(model.spec(), model.weights(), maxBatch, options, head,
                options.precision().quantizes() ? measuredRanges(model, options.calibration()) : null);
        FrameInput in = null;
        GpuPostprocess darknet = null;
        OnnxPostprocess imported = null;
        try {
            this.memory = options.memory().resolve(net.device());
            in = new FrameInput(net.context(), memory, maxBatch, model.spec(), net.input(),
                    head == null ? null : head.convention());
            if (head == null) darknet = new GpuPostprocess(net.context(), memory, net.heads(), maxBatch);
            else imported = new OnnxPostprocess(net.context(), memory, head, net, maxBatch);
            this.marks = new EventMarks(4);
        } catch (RuntimeException e) {
            if (darknet != null) darknet.close();
            if (imported != null) imported.close();
            if (in != null) in.close();
            net.close();
            throw e;
        }
        this.post = darknet;
        this.importedPost = imported;
        this.network = net;
        this.frames = in;
    }

    /**
     * Every layer output's largest magnitude over the first {@link CpuOptions#CALIBRATION_FRAMES} sample frames at
     * {@code frames} (a folder of images or a list file), measured in FP32 on the CPU with the frames prepared as
     * detection prepares them, the same measurement as the CPU's INT8 calibration: the ranges an FP8 network scales
     * its convolutions' inputs by (NaN for a layer without a feature map).
     */
    public static float[] outputRanges(Model model, Path frames) {
        Int8Calibration c = Int8Calibration.ranges(model,
                Int8Calibration.readImages(frames, CpuOptions.CALIBRATION_FRAMES), CpuOptions.DEFAULTS);
        float[] ranges = new float[c.layers()];
        for (int i = 0; i < ranges.length; i++) ranges[i] = c.absMax(i);
        return ranges;
    }

    /**
     * Ranges already measured, per model and frames: every backend of one model (a GPU worker per device, a memory
     * mode each in a benchmark) opens with the same ranges, measured once, not once per backend. Weak keys: a model
     * no longer served takes its ranges with it; a new version of a model is a new model and is measured again.
     */
    private static final Map<Model, Map<Path, float[]>> MEASURED = new WeakHashMap<>();

    /** {@link #outputRanges}, measured once per model and frames in this process. */
    private static float[] measuredRanges(Model model, Path frames) {
        synchronized (MEASURED) {   // the workers of one model wait for the first one's measurement
            return MEASURED.computeIfAbsent(model, m -> new HashMap<>())
                    .computeIfAbsent(frames, f -> outputRanges(model, f));
        }
    }

    /** Opens the model on a GPU; throws {@link CudaUnavailableException} naming what is missing when CUDA is not usable. */
    public static CudaBackend open(Model model, int maxBatch, CudaOptions options) {
        CudaRuntime.require();
        return new CudaBackend(model, maxBatch, options);
    }

    @Override
    public String name() { return "cuda"; }

    @Override
    public int maxBatch() { return network.maxBatch(); }

    public MemoryMode memoryMode() { return memory; }

    public CudaOptions options() { return options; }

    public CudaNetwork network() { return network; }

    @Override
    public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params) {
        return detect(pictures, params, null);
    }

    /**
     * As {@link #detect(List, DetectParams)}; {@code next}'s host frames, when all of them are host images and fit a
     * batch, are copied and uploaded ({@link FrameInput#prestage}) once this call's forward is enqueued, while the GPU
     * runs it.
     */
    @Override
    public List<List<Detection>> detect(List<? extends Picture> pictures, DetectParams params,
                                        List<? extends Picture> next) {
        int n = pictures.size();
        if (n == 0) return List.of();
        if (n > maxBatch()) throw new IllegalArgumentException(n + " images, max batch " + maxBatch());
        network.device().makeCurrent();
        if (importedPost != null) return detectImported(pictures, params, next);
        // slots: host images first (one upload and one resize kernel for all of them), then the GPU surfaces
        List<BgrImage> host = new ArrayList<>(n);
        List<Nv12Surface> surfaces = new ArrayList<>();
        int[] slotOf = new int[n];
        for (int i = 0; i < n; i++) {
            Picture p = pictures.get(i);
            if (p instanceof BgrImage im) {
                slotOf[i] = host.size();
                host.add(im);
            } else if (p instanceof Nv12Surface s) {
                slotOf[i] = -1 - surfaces.size();
                surfaces.add(s);
            } else {
                throw new IllegalArgumentException("picture " + i + ": the CUDA backend reads BgrImage or Nv12Surface, not "
                        + p.getClass().getName());
            }
        }
        InputGeometry[] geometry = new InputGeometry[n];
        marks.mark(0, network.stream());
        if (!host.isEmpty()) System.arraycopy(frames.stage(host, network.stream()), 0, geometry, 0, host.size());
        for (int j = 0; j < surfaces.size(); j++) {
            geometry[host.size() + j] = nv12().stage(surfaces.get(j), host.size() + j, network.stream());
        }
        marks.mark(1, network.stream());
        network.forward(n);
        marks.mark(2, network.stream());
        stageAhead(next);
        lastBatch = n;
        List<List<Detection>> bySlot = post.run(n, geometry, params, model.names(), network);
        marks.mark(3, network.stream());
        lastStages = new StageTimes(marks.millisBetween(0, 1), marks.millisBetween(1, 2), marks.millisBetween(2, 3));
        if (surfaces.isEmpty()) return bySlot;
        List<List<Detection>> ordered = new ArrayList<>(n);
        for (int i = 0; i < n; i++) ordered.add(bySlot.get(slotOf[i] >= 0 ? slotOf[i] : host.size() - 1 - slotOf[i]));
        return ordered;
    }

    /** An imported model: its convention's preprocess, the layers and the tail, its family's decoding. */
    private List<List<Detection>> detectImported(List<? extends Picture> pictures, DetectParams params,
                                                 List<? extends Picture> next) {
        int n = pictures.size();
        List<BgrImage> images = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (!(pictures.get(i) instanceof BgrImage im)) {
                throw new IllegalArgumentException("picture " + i + ": an imported ONNX model on the CUDA backend reads "
                        + "host BGR images only, not " + pictures.get(i).getClass().getSimpleName());
            }
            images.add(im);
        }
        marks.mark(0, network.stream());
        OnnxInput.Geometry[] geometry = frames.stageImported(images, network.stream());
        marks.mark(1, network.stream());
        network.forward(n);
        marks.mark(2, network.stream());
        stageAhead(next);
        lastBatch = n;
        List<List<Detection>> out = importedPost.run(n, geometry, params, model.names(), network);
        marks.mark(3, network.stream());
        lastStages = new StageTimes(marks.millisBetween(0, 1), marks.millisBetween(1, 2), marks.millisBetween(2, 3));
        return out;
    }

    /** The next call's frames into the second frame area while the GPU computes, when all are host images. */
    private void stageAhead(List<? extends Picture> next) {
        if (next == null || next.isEmpty() || next.size() > maxBatch() || frames == null) return;
        List<BgrImage> images = new ArrayList<>(next.size());
        for (Picture p : next) {
            if (!(p instanceof BgrImage im)) return;
            images.add(im);
        }
        frames.prestage(images);
    }

    private Nv12Input nv12() {
        if (nv12 == null) nv12 = new Nv12Input(network.context(), network.input(), model.spec().net().letterBox());
        return nv12;
    }

    @Override
    public StageTimes lastStageTimes() { return lastStages; }

    /**
     * In unified memory mode, a buffer in managed memory to decode frame {@code slot} into: a {@link BgrImage} over it
     * passed to {@link #detect} is read by the GPU where it is, with no copy. Valid until a larger batch of frames
     * that are not in slots makes the frame area grow.
     */
    public ByteBuffer frameSlot(int slot, int bytes) {
        if (slot < 0 || slot >= maxBatch()) throw new IndexOutOfBoundsException("slot " + slot + " of " + maxBatch());
        return frames.frameSlot(slot, bytes);
    }

    /** Host frame bytes copied on the host since open (tests: page-locked frames skip the copy). */
    long hostCopiedBytes() { return frames == null ? 0 : frames.copiedBytes(); }

    /** Anchors over the threshold in all images of the last detect call (before NMS). */
    public int lastCandidates() { return post != null ? post.lastCandidates() : importedPost.lastCandidates(); }

    /** Images of the last detect call post-processed on the CPU (more candidates than the GPU buffers hold). */
    public int lastCpuFallbacks() { return post != null ? post.lastFallbacks() : importedPost.lastFallbacks(); }

    /** For an imported model, graph output {@code head} (only 0) of image {@code image} of the last call, row-major. */
    @Override
    public float[] headOutput(int head, int image) {
        if (image < 0 || image >= lastBatch) throw new IndexOutOfBoundsException("image " + image + " of " + lastBatch);
        if (importedPost != null) {
            if (head != 0) throw new IndexOutOfBoundsException("output " + head + ": the detection output is output 0");
            return importedPost.output(image, network).data().clone();
        }
        return network.headOutput(head, image);
    }

    @Override
    public void close() {
        marks.close();
        if (post != null) post.close();
        if (importedPost != null) importedPost.close();
        frames.close();
        network.close();
    }
}
