package io.argus.pipeline.cli;

import io.argus.detector.Model;
import io.argus.detector.onnx.OnnxExport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code argus export onnx}: a Darknet model as an ONNX graph, for onnxruntime, TensorRT, OpenVINO. */
@Command(name = "export", mixinStandardHelpOptions = true, description = "Export a model to other formats.",
        subcommands = {ExportCommand.Onnx.class})
final class ExportCommand {
    @Command(name = "onnx", mixinStandardHelpOptions = true,
            description = {"Write a Darknet model as an ONNX graph (opset 17).",
                    "Batch normalisation folded into the convolutions; input 'input' [batch, 3, height, width] RGB "
                    + "0..1; outputs the raw [yolo] heads 'head0', 'head1'... [batch, anchors*(5+classes), h, w], "
                    + "their anchors in the model's metadata; with --nms also decoded boxes, scores and NMS selections. Checked against ONNX Runtime on the seven official "
                    + "cfgs (OnnxExportTest)."})
    static final class Onnx implements Callable<Integer> {
        @Mixin
        ModelOptions model = new ModelOptions();

        @Option(names = "--out", required = true, description = "the .onnx file to write")
        Path out;

        @Option(names = "--nms", description = "also decode the boxes and run NMS in the graph: outputs 'boxes' "
                + "[batch, B, 4] (cx, cy, w, h, input pixels), 'scores' [batch, B, classes], 'selected' [K, 3] (batch, "
                + "class, box) INT64")
        boolean nms;

        @Option(names = "--threshold", defaultValue = "0.25", description = "with --nms: the least score kept (default ${DEFAULT-VALUE})")
        float threshold;

        @Option(names = "--nms-iou", defaultValue = "0.45", description = "with --nms: IoU above which a box is suppressed (default ${DEFAULT-VALUE})")
        float iou;

        @Option(names = "--max-per-class", defaultValue = "100", description = "with --nms: boxes kept per class and image (default ${DEFAULT-VALUE})")
        long maxPerClass;

        @Override
        public Integer call() throws Exception {
            OnnxExport.Decode decode;
            try {
                decode = nms ? new OnnxExport.Decode(threshold, iou, maxPerClass) : null;
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--nms: " + e.getMessage());
            }
            if (model.onnx()) {
                throw new IllegalArgumentException("--cfg " + model.cfg + ": already an ONNX model (export onnx writes "
                        + "Darknet models as ONNX graphs; run this one as it is)");
            }
            Model m = model.load(false);
            byte[] onnx = OnnxExport.export(m.spec(), m.weights(), "0.1.0", decode);
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Path partial = out.resolveSibling(out.getFileName() + ".partial");
            Files.write(partial, onnx);
            Files.move(partial, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            var in = m.spec().inputShape();
            System.out.printf(java.util.Locale.ROOT, "wrote %s (%,d bytes): %s, input %dx%dx%d, %d heads%s%n", out,
                    onnx.length, m.spec().name(), in.channels(), in.height(), in.width(), m.spec().yoloLayers().size(),
                    model.weights == null ? ", random weights (seed " + model.seed + ")" : "");
            if (decode != null) {
                System.out.printf(java.util.Locale.ROOT, "with decoding and NMS: score > %s, IoU %s, at most %d per class%n",
                        decode.threshold(), decode.iou(), decode.maxPerClass());
            }
            return 0;
        }
    }
}
