package io.argus.trainer.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Darknet's .data file: {@code classes}, {@code train} and {@code valid} (lists of image paths), {@code names}, and
 * optionally {@code backup}. Relative paths resolve against the .data file's directory (then the working
 * directory, as Darknet does).
 */
public record DataFile(Path file, int classes, Path train, Path valid, Path names) {

    public static DataFile read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read the .data file: " + e.getMessage(), e);
        }
        Map<String, String> keys = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected key=value, found '" + line + "'");
            }
            keys.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
        String classes = keys.get("classes");
        if (classes == null) throw new IllegalArgumentException(file + ": missing required key 'classes'");
        int n;
        try {
            n = Integer.parseInt(classes);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": classes: expected a positive integer, found '" + classes + "'");
        }
        if (n <= 0) throw new IllegalArgumentException(file + ": classes: expected a positive integer, found " + n);
        Path dir = file.toAbsolutePath().getParent();
        return new DataFile(file, n, resolve(dir, keys.get("train")), resolve(dir, keys.get("valid")),
                resolve(dir, keys.get("names")));
    }

    static Path resolve(Path dir, String value) {
        if (value == null || value.isEmpty()) return null;
        Path p = Path.of(value);
        if (p.isAbsolute()) return p;
        Path near = dir.resolve(p);
        return Files.exists(near) || !Files.exists(p) ? near : p.toAbsolutePath();
    }

    public Path requireTrain() {
        if (train == null) throw new IllegalArgumentException(file + ": missing required key 'train' (list of images)");
        return train;
    }

    public Path requireValid() {
        if (valid == null) throw new IllegalArgumentException(file + ": missing required key 'valid' (list of images)");
        return valid;
    }
}
