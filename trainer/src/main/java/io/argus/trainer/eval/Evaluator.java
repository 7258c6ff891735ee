package io.argus.trainer.eval;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.cpu.CpuOptions;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.loss.Truth;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Runs the inference engine (the CPU backend unless told otherwise) over a labelled dataset and scores it: detections at
 * Darknet's mAP threshold 0.005 with the cfg's NMS at 0.45, against the labels in source pixels.
 */
public final class Evaluator {
    /** Darknet's validate_detector_map keeps detections down to this confidence. */
    public static final float THRESHOLD = 0.005f;
    public static final float NMS = 0.45f;
    /** COCO's maxDets: the best 100 detections of an image count. */
    public static final int MAX_PER_IMAGE = 100;

    /** mAP@0.5, mAP@0.5:0.95, per-class AP@0.5, and the counts behind them. */
    public record Result(double map50, double map50to95, double[] ap50, int images, int truths, int detections) {}

    private Evaluator() {}

    public static Result evaluate(Model model, Dataset data, int batch) {
        return evaluate(model, data, batch, CpuOptions.DEFAULTS);
    }

    /** With the CPU backend in {@code cpu}'s precision (to measure what BF16 costs in mAP). */
    public static Result evaluate(Model model, Dataset data, int batch, CpuOptions cpu) {
        return evaluate(model, data.size(), data::image, i -> data.sample(i).truths(), batch, cpu);
    }

    /** Scores {@code count} images given by index, with their objects relative to each image. */
    public static Result evaluate(Model model, int count, IntFunction<BgrImage> image,
                                  IntFunction<List<Truth>> truths, int batch) {
        return evaluate(model, count, image, truths, batch, CpuOptions.DEFAULTS);
    }

    public static Result evaluate(Model model, int count, IntFunction<BgrImage> image,
                                  IntFunction<List<Truth>> truths, int batch, CpuOptions cpu) {
        return evaluate(model, count, image, truths, Detector.Options.cpu(batch).withCpu(cpu));
    }

    /**
     * With the backend {@code options} name (CUDA in FP16 or FP8, to measure what FP8 costs in mAP), its batch their
     * maxBatch; the detection thresholds are the evaluator's whatever the options say.
     */
    public static Result evaluate(Model model, Dataset data, Detector.Options options) {
        return evaluate(model, data.size(), data::image, i -> data.sample(i).truths(), options);
    }

    public static Result evaluate(Model model, int count, IntFunction<BgrImage> image,
                                  IntFunction<List<Truth>> truths, Detector.Options options) {
        MeanAveragePrecision map = new MeanAveragePrecision(model.spec().classes());
        int detections = 0;
        int batch = options.maxBatch();
        try (Detector backend = Detector.open(model, options)) {
            DetectParams params = new DetectParams(THRESHOLD, NMS, null);
            for (int start = 0; start < count; start += batch) {
                int end = Math.min(count, start + batch);
                List<BgrImage> images = new ArrayList<>();
                for (int i = start; i < end; i++) images.add(image.apply(i));
                List<List<Detection>> found = backend.detect(images, params);
                for (int i = start; i < end; i++) {
                    BgrImage img = images.get(i - start);
                    List<Detection> ranked = found.get(i - start);   // sorted by confidence, best first
                    for (Detection d : ranked.subList(0, Math.min(MAX_PER_IMAGE, ranked.size()))) {
                        map.addDetection(i, d.classId(), d.confidence(), d.box());
                        detections++;
                    }
                    for (Truth t : truths.apply(i)) {
                        map.addTruth(i, t.classId(), new Box(t.left() * img.width(), t.top() * img.height(),
                                t.w() * img.width(), t.h() * img.height()));
                    }
                }
            }
        }
        return new Result(map.meanAveragePrecision(0.5), map.meanAveragePrecision50to95(),
                map.averagePrecisions(0.5), count, map.truthCount(), detections);
    }
}
