package io.argus.detector;

import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A loaded model: the network description, its parameters and one class name per class. A Darknet model's heads are
 * its [yolo] layers; an imported model's ({@code io.argus.detector.onnx.OnnxImport}) are its graph's outputs, computed
 * from the layers and read per family by its {@code imported} head (null for Darknet models).
 */
public record Model(NetworkSpec spec, ModelWeights weights, List<String> names, ImportedHead imported) {
    public Model(NetworkSpec spec, ModelWeights weights, List<String> names) {
        this(spec, weights, names, null);
    }

    public Model {
        names = List.copyOf(names);
        if (imported != null) {
            if (names.size() != imported.classes()) {
                throw new IllegalArgumentException("names: " + names.size() + " class names, but " + spec.file()
                        + " has " + imported.classes() + " classes (" + imported.describe() + ")");
            }
        } else if (names.size() != spec.classes()) {
            throw new IllegalArgumentException("names: " + names.size() + " class names, but the cfg " + spec.name()
                    + " has classes=" + spec.classes() + " in its [yolo] layers");
        }
    }

    /** Loads cfg + weights + names; width/height 0 keep the cfg's input size. */
    public static Model load(Path cfg, Path weights, Path names, int width, int height) {
        NetworkSpec spec = NetworkSpec.load(cfg, width, height);
        List<String> classNames = readNames(names);
        if (classNames.size() != spec.classes()) {
            throw new IllegalArgumentException(names + ": " + classNames.size() + " class names, expected "
                    + spec.classes() + " (classes= of the [yolo] layers in " + cfg + ")");
        }
        return new Model(spec, WeightsFile.read(weights, spec), classNames);
    }

    /**
     * One name per non-empty line, trimmed (Darknet's .names format). A file that is not UTF-8 text is refused with
     * an IllegalArgumentException naming the file and line (a names file in another encoding would otherwise become
     * class names with replacement characters on every dashboard and MQTT topic).
     */
    public static List<String> readNames(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read names " + file + ": " + e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            int line = 1;
            String good = new String(bytes, StandardCharsets.UTF_8);
            int bad = good.indexOf('\uFFFD');
            for (int i = 0; i < Math.max(bad, 0); i++) if (good.charAt(i) == '\n') line++;
            throw new IllegalArgumentException(file + ":" + line + ": not UTF-8 text (expected one class name per line)");
        }
        List<String> out = new ArrayList<>();
        for (String line : text.split("\r?\n|\r")) {
            String t = line.strip();
            if (!t.isEmpty()) out.add(t);
        }
        return out;
    }

    /** Generic names class0..classN-1, for models shipped without a .names file. */
    public static List<String> genericNames(int classes) {
        List<String> out = new ArrayList<>(classes);
        for (int i = 0; i < classes; i++) out.add("class" + i);
        return out;
    }
}
