package io.argus.pipeline.inference;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.gpu.CudaException;
import io.argus.gpu.CudaRuntime;
import io.argus.pipeline.config.ModelConfig;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What runs one model's batches: one {@link Detector} called on the inference thread (the CPU, or one GPU), or one
 * worker per GPU ({@link GpuWorkers}) when the model's {@code cuda.devices} names several and CUDA runs it. Opened at
 * start and for every hot swap, beside the serving one.
 */
sealed interface ModelEngine extends AutoCloseable {
    /** How a model's engine is opened: {@link ModelEngine#open}, or CPU stand-ins for GPUs in tests. */
    @FunctionalInterface
    interface Opener {
        ModelEngine open(Model model, ModelConfig config);
    }

    /** "cpu", "cuda", or "cuda x N GPUs (devices 0, 1)". */
    String backendName();

    /**
     * Runs every batch size 1..{@code maxBatch} once on blank frames ({@code width} x {@code height}, or the network's
     * input size when 0), so the first real batches do not pay for building primitives (oneDNN) or graphs (CUDA).
     */
    void warmUp(int maxBatch, int width, int height);

    @Override
    void close();

    /** One detector, called on the inference thread: the CPU, or the one GPU of the model. */
    record OneDetector(Detector detector) implements ModelEngine {
        @Override
        public String backendName() { return detector.backendName(); }

        @Override
        public void warmUp(int maxBatch, int width, int height) {
            BgrImage blank = blank(detector.model(), width, height);
            for (int n = 1; n <= maxBatch; n++) detector.detect(Collections.nCopies(n, blank));
        }

        @Override
        public void close() { detector.close(); }
    }

    /** One worker per GPU; batches go to the one expected to finish first, frames on a GPU to theirs. */
    record SeveralGpus(GpuWorkers workers, Model model, DetectParams params) implements ModelEngine {
        @Override
        public String backendName() {
            int[] devices = workers.devices();
            return "cuda x " + devices.length + " GPUs (devices " + String.join(", ",
                    Arrays.stream(devices).mapToObj(String::valueOf).toList()) + ")";
        }

        /** Every GPU at once: each batch size pinned to each worker. */
        @Override
        public void warmUp(int maxBatch, int width, int height) {
            BgrImage blank = blank(model, width, height);
            List<CompletableFuture<GpuWorkers.Done>> runs = new ArrayList<>();
            for (int device : workers.liveDevices()) {
                for (int n = 1; n <= maxBatch; n++) runs.add(workers.submit(Collections.nCopies(n, blank), params, device));
            }
            runs.forEach(CompletableFuture::join);
        }

        @Override
        public void close() { workers.close(); }
    }

    private static BgrImage blank(Model model, int width, int height) {
        int w = width > 0 ? width : model.spec().net().width();
        int h = height > 0 ? height : model.spec().net().height();
        return BgrImage.of(w, h, new byte[w * h * 3]);
    }

    /**
     * Opens {@code model} as {@code config} says: several GPUs when its devices are several (all of the host's, or
     * two or more listed) and it runs on CUDA (backend cuda, or auto with CUDA usable); otherwise one detector, as
     * {@link Detector#open} chooses (auto without CUDA: the CPU, after one message saying why). With backend auto, GPUs
     * that fail to open fall back to the CPU the same way; with backend cuda the error names the device.
     */
    static ModelEngine open(Model model, ModelConfig config) {
        Detector.Options options = config.detectorOptions();
        boolean cuda = config.runsOnGpu();
        if (!cuda || !config.cudaDevices().several()) return new OneDetector(Detector.open(model, options));
        CudaRuntime.require();   // backend cuda without CUDA: the reason, as for one GPU
        int[] devices = config.cudaDevices().resolve(CudaRuntime.deviceCount());
        if (devices.length == 1) {
            return new OneDetector(Detector.open(model, options.withCuda(config.cuda().withDevice(devices[0]))));
        }
        try {
            GpuWorkers workers = new GpuWorkers(devices,
                    d -> CudaBackend.open(model, config.maxBatch(), config.cuda().withDevice(d)));
            return new SeveralGpus(workers, model, options.params());
        } catch (CudaException e) {
            if (config.backend() == Detector.Backend.CUDA) throw e;
            System.getLogger("argus.inference." + config.id()).log(Level.WARNING, "model " + config.id()
                    + ": backend auto: using the CPU, the GPUs " + config.cudaDevices().describe() + " did not open: "
                    + e.getMessage());
            return new OneDetector(Detector.open(model, new Detector.Options(Detector.Backend.CPU, options.maxBatch(),
                    options.params(), options.cuda(), options.cpu())));
        }
    }
}
