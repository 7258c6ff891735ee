package io.argus.pipeline.config;

import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.cuda.CudaTrainingOptions;
import io.argus.trainer.train.MultiScale;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code training:} section of argus.yaml: online fine-tuning of one model from frames of its cameras (see
 * docs/online-training.md for every key). Absent or {@code enabled: false}: nothing is collected or trained.
 *
 * @param model           the model that learns (its cameras' frames are collected)
 * @param dataDir         dataset store, runs and model versions ({@code <dataDir>/<model>/...})
 * @param schedule        when fine-tunes start by themselves (null: only on demand, POST /api/training/runs)
 * @param backend         training backend: cpu, cuda or auto (CUDA when usable; see {@link TrainingBackends})
 * @param cuda            the GPU a fine-tune runs on and how ({@code training.cuda}, see {@link CudaSections#training})
 * @param iterations      SGD updates per fine-tune
 * @param batch           images per update, in {@code subdivisions} passes
 * @param learningRate    constant rate of a fine-tune (no burn-in: it starts from trained weights)
 * @param threads         training threads (the CPU backend)
 * @param cpuShare        largest fraction of wall time the training thread computes (it sleeps the rest; on CUDA the
 *                        GPU's passes count, as the thread waits for each)
 * @param minTrainFrames  labelled training frames needed before a run
 * @param minValFrames    labelled held-out frames needed before a run
 * @param minValObjectsPerClass held-out objects each class seen in the labels needs before a run (and a swap): with
 *                        fewer, a class's AP is too coarse to tell a candidate that forgot it (default 10; 0: off)
 * @param mapTolerance    a candidate is swapped in when its held-out mAP@0.5 >= the serving one's minus this
 * @param resume          at start, serve the version the registry had active (else the configured weights)
 * @param importDir       the directory whose files an operator may adopt as weights by name; null: adoption by file
 *                        name is off (weights are then adopted by uploading them)
 * @param maxWeightsBytes the largest weights file adopted (uploaded or imported); a network whose weights are
 *                        larger cannot be given new weights from outside
 * @param multiScale      multi-scale training ({@link MultiScale}) in a fine-tune: off by default (a fine-tune adapts
 *                        trained weights at the size they serve at), on, or as the cfg's [yolo] random says (cfg)
 */
public record TrainingConfig(boolean enabled, String model, Path dataDir, CronSchedule schedule,
                             TrainingBackends.Kind backend, CudaTrainingOptions cuda, int iterations, int batch,
                             int subdivisions, float learningRate, int threads, double cpuShare, int minTrainFrames,
                             int minValFrames, int minValObjectsPerClass, double mapTolerance, boolean resume,
                             long seed, Collect collect, Teacher teacher, Path importDir, long maxWeightsBytes,
                             MultiScale.Mode multiScale) {
    /**
     * Default of {@code maxWeightsBytes}: above the largest common Darknet networks (yolov4 at 608x608 is 246 MB) and
     * half of what one weights file can be (the reader holds it in one buffer of at most 2 GiB).
     */
    public static final long DEFAULT_MAX_WEIGHTS_BYTES = 1L << 30;

    /** Default of {@code minValObjectsPerClass}: AP then moves in steps of at most a tenth. */
    public static final int DEFAULT_MIN_VAL_OBJECTS_PER_CLASS = 10;

    /**
     * Frame collection: per camera at most one frame per {@code intervalMs}, chosen among candidates looked at every
     * {@code candidateIntervalMs}: the least confident whose thumbnail differs from the frames already kept by at
     * least {@code minSceneChange} (mean absolute difference, 0..1). {@code maxFrames} bounds the store (the oldest
     * unlabelled frame makes room); every {@code valEvery}-th kept frame is held out for evaluation.
     */
    public record Collect(boolean enabled, long intervalMs, long candidateIntervalMs, double minSceneChange,
                          int maxFrames, int valEvery) {
        static Collect read(ConfigNode n) {
            boolean enabled = n.bool("enabled", true);
            long interval = n.longValue("intervalMs", 10_000, 10, 86_400_000);
            long candidate = n.longValue("candidateIntervalMs", 500, 10, 86_400_000);
            if (candidate > interval) {
                throw new ConfigException(n.key("candidateIntervalMs"), "must be <= intervalMs (" + interval + "), found " + candidate);
            }
            double change = n.number("minSceneChange", 0.04, 0, 1);
            int max = n.integer("maxFrames", 500, 1, 1_000_000);
            int valEvery = n.integer("valEvery", 4, 2, 1000);
            n.finish();
            return new Collect(enabled, interval, candidate, change, max, valEvery);
        }
    }

    /**
     * An optional teacher: a (larger) model run on each collected frame; its boxes at or above {@code threshold}
     * become the frame's labels until someone annotates it. Classes are matched to the student's by name.
     */
    public record Teacher(Path cfg, Path weights, Path names, int width, int height, float threshold) {
        static Teacher read(ConfigNode n) {
            Path cfg = n.path("cfg", null, true);
            Path weights = n.path("weights", null, true);
            Path names = n.path("names", null, true);
            int width = n.integer("width", 0, 0, 4096);
            int height = n.integer("height", 0, 0, 4096);
            double threshold = n.number("threshold", 0.5, 0, 1);
            n.finish();
            if (cfg == null) return null;
            if (weights == null) throw new ConfigException(n.key("weights"), "missing: a teacher needs trained weights");
            if (names == null) throw new ConfigException(n.key("names"), "missing: the teacher's class names (matched to the model's by name)");
            if (width % 32 != 0 || height % 32 != 0) {
                throw new ConfigException(n.key("width"), "expected multiples of 32 (or 0 for the cfg's), found " + width + "x" + height);
            }
            return new Teacher(cfg, weights, names, width, height, (float) threshold);
        }
    }

    /** Reads the section; {@code models}: known model ids (first = default), {@code cacheDir}: default home of dataDir. */
    public static TrainingConfig read(ConfigNode n, List<String> models, Path cacheDir) {
        boolean enabled = n.bool("enabled", false);
        String model = n.string("model", models.isEmpty() ? null : models.get(0));
        if (model == null || !models.contains(model)) {
            throw new ConfigException(n.key("model"), "unknown model \"" + model + "\" (models: " + String.join(", ", models) + ")");
        }
        Path dataDir = n.path("dataDir", cacheDir.resolve("training"), false);
        String cron = n.string("schedule", "");
        CronSchedule schedule = null;
        if (!cron.isBlank()) {
            try {
                schedule = CronSchedule.parse(cron);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(n.key("schedule"), e.getMessage());
            }
        }
        String backend = n.oneOf("backend", "auto", "auto", "cpu", "cuda");
        CudaTrainingOptions cuda = CudaSections.training(n.child("cuda"), cacheDir);
        int iterations = n.integer("iterations", 100, 1, 1_000_000);
        int batch = n.integer("batch", 16, 1, 1024);
        int subdivisions = n.integer("subdivisions", 4, 1, 1024);
        if (batch % subdivisions != 0) {
            throw new ConfigException(n.key("subdivisions"), "must divide batch (" + batch + "), found " + subdivisions);
        }
        double rate = n.number("learningRate", 0.001, 0, 1);
        int threads = n.integer("threads", 1, 1, 256);
        double share = n.number("cpuShare", 0.5, 0.01, 1);
        int minTrain = n.integer("minTrainFrames", 4, 1, 1_000_000);
        int minVal = n.integer("minValFrames", 1, 1, 1_000_000);
        int minValPerClass = n.integer("minValObjectsPerClass", DEFAULT_MIN_VAL_OBJECTS_PER_CLASS, 0, 1_000_000);
        double tolerance = n.number("mapTolerance", 0, 0, 1);
        boolean resume = n.bool("resume", true);
        long seed = n.longValue("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);
        Collect collect = Collect.read(n.child("collect"));
        Teacher teacher = Teacher.read(n.child("teacher"));
        Path importDir = n.path("importDir", null, false);
        if (importDir != null && !java.nio.file.Files.isDirectory(importDir)) {
            throw new ConfigException(n.key("importDir"), "expected a directory (whose files may be adopted as weights), found " + importDir);
        }
        long maxWeights = n.longValue("maxWeightsBytes", DEFAULT_MAX_WEIGHTS_BYTES, 1024, Integer.MAX_VALUE);
        MultiScale.Mode multiScale = MultiScale.Mode.parse(n.oneOf("multiScale", "off", "off", "on", "cfg"),
                n.key("multiScale"));
        n.finish();
        return new TrainingConfig(enabled, model, dataDir, schedule, TrainingBackends.Kind.parse(backend, n.key("backend")),
                cuda, iterations, batch, subdivisions, (float) rate, threads, share, minTrain, minVal, minValPerClass,
                tolerance, resume, seed, collect, teacher, importDir, maxWeights, multiScale);
    }

    /** The same settings with another number of SGD updates per fine-tune. */
    public TrainingConfig withIterations(int n) {
        return new TrainingConfig(enabled, model, dataDir, schedule, backend, cuda, n, batch, subdivisions, learningRate,
                threads, cpuShare, minTrainFrames, minValFrames, minValObjectsPerClass, mapTolerance, resume, seed,
                collect, teacher, importDir, maxWeightsBytes, multiScale);
    }

    /** "cpu", "cuda" or "auto", as configured. */
    public String backendWord() { return backend.name().toLowerCase(java.util.Locale.ROOT); }

    /** The store, runs and versions of the trained model. */
    public Path modelDir() { return dataDir.resolve(model); }
}
