package io.argus.pipeline.cli;

import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.CudaPrecision;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.onnx.OnnxImport;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.eval.Evaluator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code argus eval}: mAP of a model on the validation list of a dataset; {@code argus eval track}, tracking metrics,
 * comes with the tools jar ({@link ExtraCommands}). picocli checks a parent's required options even when a subcommand
 * runs, so --cfg, --weights and --data are checked here, with picocli's own message.
 */
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Measure a model's mAP on a dataset's validation images.",
                "mAP@0.5 and mAP@0.5:0.95 (COCO 101-point); the last line is 'mAP@0.5 = X'."},
        customSynopsis = {"argus eval [-hV] [--batch=<batch>] [--backend=cpu|cuda]",
                "                  [--precision=fp32|bf16|int8 (cpu) | fp16|fp8|auto (cuda)] [--calibration=<images>]",
                "                  --cfg=<cfg> --data=<data>",
                "                  --weights=<weights>",
                "       argus eval track --gt=<gt> --video=<video> [OPTIONS] (see its --help)"})
final class EvalCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--cfg", description = "Darknet cfg file, or an ONNX model (.onnx) of a YOLO family")
    Path cfg;

    @Option(names = "--weights", description = "Darknet .weights file")
    Path weights;

    @Option(names = "--data", description = "Darknet .data file (classes, valid, names)")
    Path data;

    @Option(names = "--batch", defaultValue = "8", description = "images per forward pass (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--backend", defaultValue = "cpu", description = "cpu (default) or cuda (the GPU of "
            + "-Dargus.cuda.device, its other -Dargus.cuda.* settings)")
    String backend;

    @Option(names = "--precision", description = "cpu: fp32 (default), bf16 or int8; cuda: fp16 (default), fp8 or auto")
    String precision;

    @Option(names = "--calibration", description = "int8, fp8, auto: sample frames for the activation ranges, a folder "
            + "of images or a list file (default: the .data file's train list; the first " + CpuOptions.CALIBRATION_FRAMES
            + " images)")
    Path calibration;

    @Override
    public Integer call() {
        List<String> missing = new ArrayList<>();
        if (cfg == null) missing.add("'--cfg=<cfg>'");
        boolean onnx = cfg != null && OnnxImport.isOnnx(cfg);
        if (weights == null && !onnx) missing.add("'--weights=<weights>'");
        if (data == null) missing.add("'--data=<data>'");
        if (!missing.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "Missing required option" + (missing.size() > 1 ? "s: " : ": ")
                    + String.join(", ", missing));
        }
        if (onnx && weights != null) throw new IllegalArgumentException("--weights: an ONNX model holds its weights (" + cfg + ")");
        Model model = onnx ? onnxModel() : darknetModel();
        DataFile d = DataFile.read(data);
        List<String> names = model.names();
        Dataset valid = Dataset.open(d.requireValid(), d.classes());
        if (batch <= 0) throw new IllegalArgumentException("--batch: expected a positive number, found " + batch);
        Detector.Options options = options(d);
        Evaluator.Result r = Evaluator.evaluate(model, valid, options);
        System.out.printf(Locale.ROOT, "%d images, %d objects, %d detections (confidence >= %s, NMS %s; %s)%n",
                r.images(), r.truths(), r.detections(), Evaluator.THRESHOLD, Evaluator.NMS, describe(options));
        for (int c = 0; c < names.size(); c++) {
            double ap = r.ap50()[c];
            System.out.printf(Locale.ROOT, "  class %d %-20s AP@0.5 = %s%n", c, names.get(c),
                    Double.isNaN(ap) ? "n/a (no objects)" : String.format(Locale.ROOT, "%.4f", ap));
        }
        System.out.printf(Locale.ROOT, "mAP@0.5:0.95 = %.4f%n", r.map50to95());
        System.out.printf(Locale.ROOT, "mAP@0.5 = %.4f%n", r.map50());
        return 0;
    }

    /** The backend and precision asked for; calibration frames default to the dataset's train list. */
    private Detector.Options options(DataFile d) {
        switch (backend.strip().toLowerCase(Locale.ROOT)) {
            case "cpu" -> {
                CpuPrecision p = CpuPrecision.parse(precision == null ? "fp32" : precision);
                CpuOptions cpu = CpuOptions.DEFAULTS;
                if (p == CpuPrecision.INT8) cpu = cpu.withCalibration(calibrationFrames(d));
                return Detector.Options.cpu(batch).withCpu(cpu.withPrecision(p));
            }
            case "cuda" -> {
                CudaPrecision p;
                try {
                    p = CudaPrecision.parse(precision == null ? "fp16" : precision);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--precision: " + e.getMessage().replace("CUDA precision: ", "")
                            + " (the cuda backend's precisions)");
                }
                CudaOptions cuda = CudaSystemProperties.inference()
                        .withPrecision(p, p.quantizes() ? calibrationFrames(d) : null);
                return new Detector.Options(Detector.Backend.CUDA, batch, DetectParams.DEFAULT, cuda);
            }
            default -> throw new IllegalArgumentException("--backend: expected cpu or cuda, found \"" + backend + "\"");
        }
    }

    /** --calibration, else the dataset's train list (asked for only by a precision that calibrates). */
    private Path calibrationFrames(DataFile d) {
        return calibration != null ? calibration : d.requireTrain();
    }

    /** "cpu fp32", "cuda fp8": what the options ran. */
    private static String describe(Detector.Options o) {
        return o.backend() == Detector.Backend.CUDA ? "cuda " + o.cuda().precision().label()
                : "cpu " + o.cpu().precision().name().toLowerCase(Locale.ROOT);
    }

    /** An imported ONNX model, its class names from the .data file's names (else its metadata). */
    private Model onnxModel() {
        DataFile d = DataFile.read(data);
        Model m = OnnxImport.load(cfg, d.names(), null);
        if (d.classes() != m.names().size()) {
            throw new IllegalArgumentException(data + ": classes=" + d.classes() + ", but the model " + cfg + " has "
                    + m.names().size() + " classes");
        }
        return m;
    }

    private Model darknetModel() {
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
        return new Model(spec, WeightsFile.read(weights, spec), names);
    }
}
