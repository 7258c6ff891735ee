package io.argus.detector.onnx;

import io.argus.detector.Model;
import java.nio.file.Path;
import java.util.List;

/**
 * Loads an ONNX detector as a {@link Model}: read and checked ({@link OnnxModel}), lowered into layers
 * ({@link OnnxLowering}), its head recognised or named ({@link OnnxHead}), class names from a names file, else the
 * model's {@code names} metadata, else class0..classN-1.
 */
public final class OnnxImport {
    private OnnxImport() {}

    /** {@code names} and {@code head} may be null (metadata; auto). */
    public static Model load(Path file, Path names, OnnxHead.Family head) {
        OnnxModel model = OnnxModel.read(file);
        OnnxLowering.Lowered lowered;
        try {
            lowered = OnnxLowering.lower(model);
        } catch (OnnxModelException e) {
            throw e;
        } catch (RuntimeException e) {
            // a graph whose nodes passed the checks but do not fit together as layers (a broken or hostile file)
            throw new OnnxModelException(file, "cannot be lowered into layers: " + e.getClass().getSimpleName() + ": "
                    + e.getMessage(), e);
        }
        OnnxHead h = OnnxHead.of(model, lowered.tail(), head);
        List<io.argus.detector.darknet.Shape> tailInputs = new java.util.ArrayList<>();
        for (int layer : lowered.tail().inputLayers()) tailInputs.add(lowered.spec().layers().get(layer).output());
        h = h.withDecoder(HeadDecoder.probe(h, tailInputs));
        List<String> classNames;
        if (names != null) {
            classNames = Model.readNames(names);
            if (classNames.size() != h.classes()) {
                throw new IllegalArgumentException(names + ": " + classNames.size() + " class names, expected "
                        + h.classes() + " (the " + h.family().configName() + " head of " + file + ")");
            }
        } else if (!model.names().isEmpty()) {
            classNames = model.names();
            if (classNames.size() != h.classes()) {
                throw new OnnxModelException(file, "its names metadata has " + classNames.size() + " classes but its "
                        + h.family().configName() + " head " + h.classes() + ": give a names file");
            }
        } else {
            classNames = Model.genericNames(h.classes());
        }
        return new Model(lowered.spec(), lowered.weights(), classNames, h);
    }

    /** Whether a model path names an ONNX file (by its extension, as the CLI and config decide). */
    public static boolean isOnnx(Path file) {
        return file.getFileName() != null && file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".onnx");
    }
}
