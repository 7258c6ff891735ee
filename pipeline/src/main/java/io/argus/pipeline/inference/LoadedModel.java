package io.argus.pipeline.inference;

import io.argus.detector.Model;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.onnx.OnnxImport;
import io.argus.pipeline.config.ModelConfig;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A model ready to run: the engine's {@link Model} plus the id and version stamped on every detection message.
 *
 * @param weightsFile where the weights came from (null: generated from the seed)
 */
public record LoadedModel(ModelConfig config, Model model, String version, Path weightsFile) {

    /** Loads cfg, weights (or generates them from the seed) and names; errors name the model and the file. */
    public static LoadedModel load(ModelConfig c) {
        return load(c, c.weights(), null);
    }

    /**
     * The model of {@code c} with other weights (a version from the model registry); {@code version} null derives
     * it from the file as for the configured weights.
     */
    public static LoadedModel load(ModelConfig c, Path weightsFile, String version) {
        try {
            if (c.onnx()) {
                if (weightsFile != null && weightsFile != c.weights()) {
                    throw new IllegalArgumentException("an imported ONNX model has no other weights versions: " + weightsFile);
                }
                Model m = OnnxImport.load(c.cfg(), c.names(), c.head());
                String v = version != null ? version : c.version() != null ? c.version() : fileVersion(c.cfg());
                return new LoadedModel(c, m, v, null);
            }
            NetworkSpec spec = NetworkSpec.load(c.cfg(), c.width(), c.height());
            ModelWeights weights = weightsFile != null ? WeightsFile.read(weightsFile, spec) : WeightsInit.darknet(spec, c.seed());
            List<String> names = c.names() != null ? Model.readNames(c.names()) : Model.genericNames(spec.classes());
            if (names.size() != spec.classes()) {
                throw new IllegalArgumentException(c.names() + ": " + names.size() + " class names, but " + c.cfg().getFileName()
                        + " has classes=" + spec.classes());
            }
            String v = version != null ? version
                    : c.version() != null && weightsFile == c.weights() ? c.version()
                    : weightsFile != null ? fileVersion(weightsFile) : "random-seed-" + c.seed();
            return new LoadedModel(c, new Model(spec, weights, names), v, weightsFile);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("model \"" + c.id() + "\": " + e.getMessage(), e);
        }
    }

    public String id() { return config.id(); }

    public JsonObject toJson() {
        var net = model.spec().net();
        return new JsonObject().put("id", id()).put("version", version)
                .put("format", config.format())
                .put(config.onnx() ? "model" : "cfg", config.cfg().toString())
                .put("weights", weightsFile != null ? weightsFile.toString() : null)
                .put("input", new JsonObject().put("width", net.width()).put("height", net.height()))
                .put("classes", model.names().size())
                .put("maxBatch", config.maxBatch()).put("maxWaitMs", config.maxWaitMs())
                .put("threshold", config.threshold()).put("nms", config.nms())
                .put("maxDetections", config.maxDetections());
    }

    /** The version of a weights file: {@code sha256:} and the first 12 hex digits of its SHA-256. */
    public static String fileVersion(Path file) {
        return "sha256:" + sha256Prefix(file);
    }

    private static String sha256Prefix(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
            return HexFormat.of().formatHex(md.digest()).substring(0, 12);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
