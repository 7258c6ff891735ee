package io.argus.pipeline.inference;

import io.argus.detector.cuda.GpuWorkers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one inference worker: where its time goes. Written by the worker, read by the API and benchmarks. */
public final class ModelStats {
    final LongAdder batches = new LongAdder();
    final LongAdder frames = new LongAdder();
    final LongAdder detections = new LongAdder();
    final LongAdder inferenceNanos = new LongAdder();
    final LongAdder queueNanos = new LongAdder();
    final LongAdder publishNanos = new LongAdder();
    final LongAdder trackNanos = new LongAdder();
    final LongAdder decodeNanos = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder swaps = new LongAdder();
    // device time per stage, summed over the batches the backend timed (CUDA events; the CPU backend does not)
    final LongAdder timedBatches = new LongAdder();
    final LongAdder gpuInputNanos = new LongAdder();
    final LongAdder gpuNetworkNanos = new LongAdder();
    final LongAdder gpuPostNanos = new LongAdder();
    volatile boolean loaded;
    volatile boolean alive;
    volatile String backend;
    volatile String error;
    volatile GpuWorkers gpus;   // the GPU workers serving, when the model runs on several GPUs

    public long batches() { return batches.sum(); }

    public long frames() { return frames.sum(); }

    /** The detector's backend as it names itself ("cpu ...", "cuda ..."), null until the model is loaded. */
    public String backend() { return backend; }

    public long detections() { return detections.sum(); }

    /** Total detector time (all batches). */
    public long inferenceNanos() { return inferenceNanos.sum(); }

    /** Summed over frames: capture to batch start. */
    public long queueNanos() { return queueNanos.sum(); }

    /** Summed over frames: building and publishing the detection message. */
    public long publishNanos() { return publishNanos.sum(); }

    /** Summed over frames: the camera's tracker (part of {@link #publishNanos}). */
    public long trackNanos() { return trackNanos.sum(); }

    /** Summed over frames: decode time of the processed frames. */
    public long decodeNanos() { return decodeNanos.sum(); }

    /** Batches whose stages the device timed (the CUDA backend's), and the device time of each stage summed. */
    public long timedBatches() { return timedBatches.sum(); }

    public long gpuInputNanos() { return gpuInputNanos.sum(); }

    public long gpuNetworkNanos() { return gpuNetworkNanos.sum(); }

    public long gpuPostNanos() { return gpuPostNanos.sum(); }

    /** Models switched in while running. */
    public long swaps() { return swaps.sum(); }

    /** GPUs taking the model's batches when it runs on several; 0 with one detector. */
    public int liveGpus() {
        GpuWorkers g = gpus;
        return g != null ? g.liveDevices().length : 0;
    }

    /** GPUs of the serving workers taken out after a CUDA error. */
    public int removedGpus() {
        GpuWorkers g = gpus;
        return g != null ? g.removals().size() : 0;
    }

    public boolean loaded() { return loaded; }

    public boolean alive() { return alive; }

    public String error() { return error; }

    public JsonObject toJson() {
        long b = batches(), f = frames();
        JsonObject j = new JsonObject().put("loaded", loaded).put("alive", alive).put("backend", backend)
                .put("batches", b).put("frames", f).put("detections", detections())
                .put("meanBatchSize", b > 0 ? Math.round(100.0 * f / b) / 100.0 : 0)
                .put("meanInferenceMsPerBatch", b > 0 ? Math.round(inferenceNanos() / 1e4 / b) / 100.0 : 0)
                .put("meanTrackMsPerFrame", f > 0 ? Math.round(trackNanos() / 1e3 / f) / 1000.0 : 0)
                .put("failures", failures.sum()).put("swaps", swaps.sum());
        long t = timedBatches();
        if (t > 0) {
            j.put("gpuMsPerBatch", new JsonObject().put("input", Math.round(gpuInputNanos() / 1e4 / t) / 100.0)
                    .put("network", Math.round(gpuNetworkNanos() / 1e4 / t) / 100.0)
                    .put("postprocess", Math.round(gpuPostNanos() / 1e4 / t) / 100.0));
        }
        GpuWorkers g = gpus;
        if (g != null) j.put("gpus", gpusJson(g));
        if (error != null) j.put("error", error);
        return j;
    }

    /** Per GPU worker: device, whether it still takes batches, what it ran, its measured ms per image, why it left. */
    private static JsonArray gpusJson(GpuWorkers g) {
        int[] devices = g.devices();
        int[] batches = g.completedBatches();
        long[] images = g.completedImages();
        double[] ms = g.msPerImage();
        java.util.Set<Integer> live = java.util.Arrays.stream(g.liveDevices()).boxed()
                .collect(java.util.stream.Collectors.toSet());
        JsonArray out = new JsonArray();
        for (int i = 0; i < devices.length; i++) {
            JsonObject w = new JsonObject().put("device", devices[i]).put("live", live.contains(devices[i]))
                    .put("batches", batches[i]).put("images", images[i])
                    .put("msPerImage", Math.round(ms[i] * 1000) / 1000.0);
            for (GpuWorkers.Removal r : g.removals()) {
                if (r.device() == devices[i]) w.put("removed", r.cause().getMessage());
            }
            out.add(w);
        }
        return out;
    }
}
