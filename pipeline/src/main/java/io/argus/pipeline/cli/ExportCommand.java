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
                    + "their anchors in the model's metadata. Checked against ONNX Runtime on the seven official "
                    + "cfgs (OnnxExportTest)."})
    static final class Onnx implements Callable<Integer> {
        @Mixin
        ModelOptions model = new ModelOptions();

        @Option(names = "--out", required = true, description = "the .onnx file to write")
        Path out;

        @Option(names = "--nms", description = "decode boxes and run NMS inside the graph (not supported yet)")
        boolean nms;

        @Override
        public Integer call() throws Exception {
            if (nms) {
                throw new IllegalArgumentException("--nms: decoding and NMS inside the graph are not supported yet; "
                        + "export the raw heads (without --nms) and decode them as docs/onnx.md shows");
            }
            Model m = model.load(false);
            byte[] onnx = OnnxExport.export(m.spec(), m.weights(), "0.1.0");
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
            return 0;
        }
    }
}
