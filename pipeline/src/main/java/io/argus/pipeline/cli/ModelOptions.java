package io.argus.pipeline.cli;

import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.onnx.OnnxHead;
import io.argus.detector.onnx.OnnxImport;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** --cfg/--weights/--names/--width/--height, shared by the commands that load a model. */
public final class ModelOptions {
    @Option(names = "--cfg", required = true, description = "Darknet cfg file, or an ONNX model (.onnx) of a YOLO family")
    public Path cfg;

    @Option(names = "--head", defaultValue = "auto",
            description = "an ONNX model's head: auto (from the graph's output), yolov5, yolov8, yolox or nms")
    public String head;

    @Option(names = "--weights", description = "Darknet .weights file (bench: random weights when absent)")
    public Path weights;

    @Option(names = "--names", description = "class names, one per line (default: class0..classN-1)")
    public Path names;

    @Option(names = "--width", defaultValue = "0", description = "network input width (default: the cfg's)")
    public int width;

    @Option(names = "--height", defaultValue = "0", description = "network input height (default: the cfg's)")
    public int height;

    @Option(names = "--seed", defaultValue = "1", description = "seed of random weights when --weights is absent")
    public long seed;

    public NetworkSpec spec() {
        NetworkSpec spec = NetworkSpec.load(cfg, width, height);
        for (String w : spec.warnings()) System.err.println("warning: " + w);
        return spec;
    }

    /** Whether --cfg names an ONNX model. */
    public boolean onnx() { return OnnxImport.isOnnx(cfg); }

    public Model load(boolean weightsRequired) {
        if (onnx()) {
            if (weights != null) throw new IllegalArgumentException("--weights: an ONNX model holds its weights (" + cfg + ")");
            if (width != 0 || height != 0) {
                throw new IllegalArgumentException("--width/--height: an ONNX model's input size is fixed in its graph ("
                        + cfg + ")");
            }
            return OnnxImport.load(cfg, names, OnnxHead.Family.parse(head));
        }
        NetworkSpec spec = spec();
        if (weights == null && weightsRequired) throw new IllegalArgumentException("--weights is required");
        ModelWeights w = weights != null ? WeightsFile.read(weights, spec) : WeightsInit.darknet(spec, seed);
        var classNames = names != null ? Model.readNames(names) : Model.genericNames(spec.classes());
        if (names != null && classNames.size() != spec.classes()) {
            throw new IllegalArgumentException(names + ": " + classNames.size() + " class names, expected "
                    + spec.classes() + " (classes= of the [yolo] layers in " + cfg + ")");
        }
        return new Model(spec, w, classNames);
    }
}
