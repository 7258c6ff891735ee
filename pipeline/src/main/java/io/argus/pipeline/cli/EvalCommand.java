package io.argus.pipeline.cli;

import io.argus.detector.Model;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.eval.Evaluator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code argus eval}: mAP of a model on the validation list of a dataset. */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Measure a model's mAP on a dataset's validation images.",
                "mAP@0.5 and mAP@0.5:0.95 (COCO 101-point); the last line is 'mAP@0.5 = X'."})
final class EvalCommand implements Callable<Integer> {
    @Option(names = "--cfg", required = true, description = "Darknet cfg file")
    Path cfg;

    @Option(names = "--weights", required = true, description = "Darknet .weights file")
    Path weights;

    @Option(names = "--data", required = true, description = "Darknet .data file (classes, valid, names)")
    Path data;

    @Option(names = "--batch", defaultValue = "8", description = "images per forward pass (default ${DEFAULT-VALUE})")
    int batch;

    @Override
    public Integer call() {
        if (!Files.isRegularFile(weights)) throw new IllegalArgumentException("--weights: no such file " + weights);
        NetworkSpec spec = NetworkSpec.load(cfg);
        for (String w : spec.warnings()) System.err.println("warning: " + w);
        DataFile d = DataFile.read(data);
        if (d.classes() != spec.classes()) {
            throw new IllegalArgumentException(data + ": classes=" + d.classes() + ", but the cfg " + cfg
                    + " has classes=" + spec.classes() + " in its [yolo] layers");
        }
        List<String> names = d.names() != null ? Model.readNames(d.names()) : Model.genericNames(spec.classes());
        if (names.size() != spec.classes()) {
            throw new IllegalArgumentException(d.names() + ": " + names.size() + " class names, expected "
                    + spec.classes());
        }
        Model model = new Model(spec, WeightsFile.read(weights, spec), names);
        Dataset valid = Dataset.fromList(d.requireValid(), d.classes());
        Evaluator.Result r = Evaluator.evaluate(model, valid, batch);
        System.out.printf(Locale.ROOT, "%d images, %d objects, %d detections (confidence >= %s, NMS %s)%n", r.images(),
                r.truths(), r.detections(), Evaluator.THRESHOLD, Evaluator.NMS);
        for (int c = 0; c < names.size(); c++) {
            double ap = r.ap50()[c];
            System.out.printf(Locale.ROOT, "  class %d %-20s AP@0.5 = %s%n", c, names.get(c),
                    Double.isNaN(ap) ? "n/a (no objects)" : String.format(Locale.ROOT, "%.4f", ap));
        }
        System.out.printf(Locale.ROOT, "mAP@0.5:0.95 = %.4f%n", r.map50to95());
        System.out.printf(Locale.ROOT, "mAP@0.5 = %.4f%n", r.map50());
        return 0;
    }
}
