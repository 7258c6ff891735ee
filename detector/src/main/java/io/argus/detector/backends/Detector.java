package io.argus.detector.backends;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.Picture;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.nn.InferenceBackend;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudaRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The one public door to the engine: load a model, detect on batches of BGR images of any size, close.
 * Owned by one thread (the inference worker); buffers are allocated once for {@code maxBatch} images. It sits above
 * the backends it opens; what it takes and gives ({@link Model}, {@link BgrImage}, {@link Detection}...) is
 * {@code io.argus.detector}'s, which every backend uses.
 *
 * <pre>{@code
 * try (Detector d = Detector.open(Model.load(cfg, weights, names, 0, 0), Detector.Options.cpu(1))) {
 *     List<Detection> found = d.detect(BgrImage.read(image));
 * }
 * }</pre>
 */
public final class Detector implements AutoCloseable {
    /** Which backend runs the network. AUTO picks CUDA when a usable GPU is present, else the CPU. */
    public enum Backend { CPU, CUDA, AUTO }

    /**
     * How a detector is opened. {@code cuda}: the GPU, memory mode, graphs and autotuning when the backend is CUDA
     * (or AUTO picks it); ignored on the CPU. Passed in by the caller, never read from system properties, so each
     * model of a process can have its own.
     */
    public record Options(Backend backend, int maxBatch, DetectParams params, CudaOptions cuda, CpuOptions cpu) {
        public Options {
            if (maxBatch <= 0) throw new IllegalArgumentException("maxBatch must be positive, got " + maxBatch);
            if (cuda == null) throw new IllegalArgumentException("cuda options are required (CudaOptions.defaults())");
            if (cpu == null) throw new IllegalArgumentException("cpu options are required (CpuOptions.DEFAULTS)");
        }

        /** With {@link CpuOptions#DEFAULTS}: FP32, tuned in this process. */
        public Options(Backend backend, int maxBatch, DetectParams params, CudaOptions cuda) {
            this(backend, maxBatch, params, cuda, CpuOptions.DEFAULTS);
        }

        /** With {@link CudaOptions#defaults()}: device 0, memory mode auto. */
        public Options(Backend backend, int maxBatch, DetectParams params) {
            this(backend, maxBatch, params, CudaOptions.defaults());
        }

        public static Options cpu(int maxBatch) { return new Options(Backend.CPU, maxBatch, DetectParams.DEFAULT); }

        public Options withParams(DetectParams p) { return new Options(backend, maxBatch, p, cuda, cpu); }

        public Options withCuda(CudaOptions c) { return new Options(backend, maxBatch, params, c, cpu); }

        public Options withCpu(CpuOptions c) { return new Options(backend, maxBatch, params, cuda, c); }
    }

    private final Model model;
    private final Options options;
    private final InferenceBackend backend;

    private Detector(Model model, Options options, InferenceBackend backend) {
        this.model = model;
        this.options = options;
        this.backend = backend;
    }

    public static Detector open(Model model, Options options) {
        return new Detector(model, options, Backends.create(model, options));
    }

    public static Detector open(Path cfg, Path weights, Path names, Options options) {
        return open(Model.load(cfg, weights, names, 0, 0), options);
    }

    public Model model() { return model; }

    public Options options() { return options; }

    /** "cpu" or "cuda": the backend actually running. */
    public String backendName() { return backend.name(); }

    public InferenceBackend backend() { return backend; }

    public List<Detection> detect(BgrImage image) {
        return detect(List.of(image)).get(0);
    }

    public List<List<Detection>> detect(List<? extends Picture> images) {
        return detect(images, options.params());
    }

    /** Any number of images; runs them in chunks of at most maxBatch. */
    public List<List<Detection>> detect(List<? extends Picture> images, DetectParams params) {
        int max = backend.maxBatch();
        if (images.size() <= max) return backend.detect(images, params);
        List<List<Detection>> out = new ArrayList<>(images.size());
        for (int i = 0; i < images.size(); i += max) {
            out.addAll(backend.detect(images.subList(i, Math.min(images.size(), i + max)), params));
        }
        return out;
    }

    @Override
    public void close() { backend.close(); }

    /**
     * Backend selection. CUDA: the GPU or a {@link io.argus.gpu.CudaUnavailableException} naming the
     * missing library or driver. AUTO: the GPU when CUDA is usable, else the CPU after one message on stderr saying
     * why. CUDA settings (device, memory mode, ...) are the options' {@link Options#cuda()}.
     */
    static final class Backends {
        private Backends() {}

        static InferenceBackend create(Model model, Options options) {
            int maxBatch = options.maxBatch();
            return switch (options.backend()) {
                case CPU -> new CpuBackend(model, maxBatch, options.cpu());
                case CUDA -> CudaBackend.open(model, maxBatch, options.cuda());
                case AUTO -> {
                    String problem = CudaRuntime.problem();
                    if (problem == null) {
                        try {
                            yield CudaBackend.open(model, maxBatch, options.cuda());
                        } catch (CudaException e) {
                            problem = e.getMessage();
                        }
                    }
                    if (CudaRuntime.claimFallbackNotice()) {
                        System.err.println("argus: backend auto: using the CPU, CUDA is not usable: " + problem);
                    }
                    yield new CpuBackend(model, maxBatch, options.cpu());
                }
            };
        }
    }
}
