package io.argus.pipeline.config;

import io.argus.detector.DetectParams;
import io.argus.detector.backends.Detector;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.onnx.OnnxHead;
import io.argus.gpu.CudaRuntime;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One model the pipeline runs: a Darknet cfg, its weights and class names, the input size, and how frames are
 * batched for it; or an ONNX file of a YOLO family ({@code format: onnx}, {@code model: yolov8n.onnx}, {@code head:
 * auto|yolov5|yolov8|yolox|nms}), whose graph holds its layers, weights and input size. Swapping in another model
 * (e.g. the trained demo model) changes only these keys.
 *
 * @param cfg     the model's description: the Darknet .cfg, or the .onnx file ({@code model:}) with format onnx
 * @param format  {@code darknet} or {@code onnx}
 * @param head    an ONNX model's head family; null: recognised from the graph's output
 * @param weights null: weights generated at start with Darknet's initialisation from {@code seed} (a demo without a
 *                trained model; boxes are meaningless but the pipeline runs end to end)
 * @param names   null: generic names class0..classN-1
 * @param version null: derived (a hash of the weights file, or "random-seed-N")
 * @param maxDetections at most this many boxes per frame, the most confident (bounds message size)
 * @param cuda    the GPU it runs on and how ({@code cuda:}, see {@link CudaSections#inference}); used when the backend
 *                is cuda, or auto and CUDA is usable
 * @param cpu     precision and convolution tuning on the CPU ({@code cpu:}, see {@link CpuSection})
 * @param cudaDevices the GPUs it runs on ({@code cuda.device} or {@code cuda.devices}); {@code cuda}'s device is the
 *                first of them
 */
public record ModelConfig(String id, Path cfg, Path weights, Path names, int width, int height, long seed,
                          String version, Detector.Backend backend, int maxBatch, int maxWaitMs, float threshold,
                          float nms, int maxDetections, CudaOptions cuda, CpuOptions cpu, CudaDevices cudaDevices,
                          String format, OnnxHead.Family head) {
    public static final String DARKNET = "darknet", ONNX = "onnx";

    /** Whether this model runs on CUDA: backend cuda, or auto with CUDA usable on this host. */
    public boolean runsOnGpu() {
        return backend == Detector.Backend.CUDA
                || (backend == Detector.Backend.AUTO && CudaRuntime.problem() == null);
    }

    /** {@code cacheDir}: the default home of the model's caches (CPU tuning, cuDNN plans). */
    static ModelConfig read(ConfigNode n, Path cacheDir) {
        String id = n.requiredString("id");
        // a model id appears in URL paths, event-bus addresses and metrics: a name, never a path
        if (!Names.valid(id)) throw new ConfigException(n.key("id"), Names.expectation(Names.MAX) + ", found " + Names.quoted(id));
        String format = n.oneOf("format", n.has("model") ? ONNX : DARKNET, DARKNET, ONNX);
        OnnxHead.Family head = null;
        Path cfg;
        if (format.equals(ONNX)) {
            for (String darknetOnly : new String[] {"cfg", "weights", "width", "height", "seed"}) {
                if (n.has(darknetOnly)) {
                    throw new ConfigException(n.key(darknetOnly), "not used with format onnx: the graph holds its layers, "
                            + "weights and input size");
                }
            }
            cfg = n.path("model", null, true);
            if (cfg == null) throw new ConfigException(n.key("model"), "missing (required with format onnx): the .onnx file");
            String h = n.oneOf("head", "auto", "auto", "yolov5", "yolov8", "yolox", "nms");
            head = OnnxHead.Family.parse(h);
        } else {
            if (n.has("model") || n.has("head")) {
                String key = n.has("model") ? "model" : "head";
                throw new ConfigException(n.key(key), "only with format onnx (a Darknet model is cfg + weights)");
            }
            cfg = n.path("cfg", null, true);
            if (cfg == null) throw new ConfigException(n.key("cfg"), "missing (required): the Darknet .cfg file");
        }
        Path weights = n.path("weights", null, true);
        Path names = n.path("names", null, true);
        int width = n.integer("width", 0, 0, 4096);
        int height = n.integer("height", 0, 0, 4096);
        if (width % 32 != 0) throw new ConfigException(n.key("width"), "expected a multiple of 32 (or 0 for the cfg's), found " + width);
        if (height % 32 != 0) throw new ConfigException(n.key("height"), "expected a multiple of 32 (or 0 for the cfg's), found " + height);
        long seed = n.longValue("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);
        String version = n.string("version", null);
        String backend = n.oneOf("backend", "auto", "auto", "cpu", "cuda");
        int maxBatch = n.integer("maxBatch", 4, 1, 64);
        int maxWaitMs = n.integer("maxWaitMs", 10, 0, 10_000);
        double threshold = n.number("threshold", 0.25, 0, 1);
        double nms = n.number("nms", 0.45, 0, 1);
        int maxDetections = n.integer("maxDetections", 100, 1, 100_000);
        CudaSections.ModelCuda cuda = CudaSections.model(n.child("cuda"), cacheDir);
        CpuOptions cpu = CpuSection.read(n.child("cpu"), cacheDir);
        n.finish();
        return new ModelConfig(id, cfg, weights, names, width, height, seed, version == null || version.isBlank() ? null : version,
                Detector.Backend.valueOf(backend.toUpperCase(Locale.ROOT)), maxBatch, maxWaitMs, (float) threshold, (float) nms, maxDetections, cuda.options(), cpu, cuda.devices(),
                format, head);
    }

    /** On the one GPU of {@code cuda.device()} (or the CPU). */
    public ModelConfig(String id, Path cfg, Path weights, Path names, int width, int height, long seed, String version,
                       Detector.Backend backend, int maxBatch, int maxWaitMs, float threshold, float nms,
                       int maxDetections, CudaOptions cuda, CpuOptions cpu) {
        this(id, cfg, weights, names, width, height, seed, version, backend, maxBatch, maxWaitMs, threshold, nms,
                maxDetections, cuda, cpu, CudaDevices.of(cuda.device()));
    }

    /** A Darknet model on the GPUs of {@code cudaDevices}. */
    public ModelConfig(String id, Path cfg, Path weights, Path names, int width, int height, long seed, String version,
                       Detector.Backend backend, int maxBatch, int maxWaitMs, float threshold, float nms,
                       int maxDetections, CudaOptions cuda, CpuOptions cpu, CudaDevices cudaDevices) {
        this(id, cfg, weights, names, width, height, seed, version, backend, maxBatch, maxWaitMs, threshold, nms,
                maxDetections, cuda, cpu, cudaDevices, DARKNET, null);
    }

    /** Whether the model is an imported ONNX graph. */
    public boolean onnx() { return ONNX.equals(format); }

    /** How this model's detector is opened (at start and for every hot swap): backend, batch, thresholds, GPU. */
    public Detector.Options detectorOptions() {
        return new Detector.Options(backend, maxBatch, new DetectParams(threshold, nms, null), cuda, cpu);
    }
}
