package io.argus.trainer.data;

import io.argus.trainer.loss.Truth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Darknet's label files: one object per line, {@code class x y w h}, centre and size relative to the image (0..1).
 * The label of {@code .../images/a.png} is {@code .../labels/a.txt} (Darknet's replacement), or {@code a.txt}
 * beside the image.
 */
public final class LabelFile {
    private LabelFile() {}

    /** Where Darknet looks for an image's labels; the file beside the image when that does not exist. */
    public static Path forImage(Path image) {
        String s = image.toString();
        String sep = image.getFileSystem().getSeparator();
        int dot = s.lastIndexOf('.');
        String base = dot > s.lastIndexOf(sep) ? s.substring(0, dot) : s;
        String marker = sep + "images" + sep;
        int at = base.lastIndexOf(marker);
        if (at >= 0) {
            Path darknet = Path.of(base.substring(0, at) + sep + "labels" + sep + base.substring(at + marker.length())
                    + ".txt");
            if (Files.exists(darknet)) return darknet;
        }
        return Path.of(base + ".txt");
    }

    public static List<Truth> read(Path file, int classes) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read labels: " + e.getMessage(), e);
        }
        List<Truth> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            String[] f = line.split("\\s+");
            String where = file + ":" + (i + 1) + ": ";
            if (f.length != 5) {
                throw new IllegalArgumentException(where + "expected 5 fields 'class x y w h', found " + f.length);
            }
            int c;
            float[] v = new float[4];
            try {
                c = Integer.parseInt(f[0]);
                for (int k = 0; k < 4; k++) v[k] = Float.parseFloat(f[k + 1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + "expected 'class x y w h' numbers, found '" + line + "'");
            }
            if (c < 0 || c >= classes) {
                throw new IllegalArgumentException(where + "class " + c + " outside 0.." + (classes - 1));
            }
            for (int k = 0; k < 4; k++) {
                if (!(v[k] >= 0 && v[k] <= 1)) {
                    throw new IllegalArgumentException(where + "xywh".charAt(k) + " = " + v[k]
                            + ": expected a value relative to the image in 0..1");
                }
            }
            if (v[2] == 0 || v[3] == 0) continue;      // empty boxes teach nothing
            out.add(new Truth(v[0], v[1], v[2], v[3], c));
        }
        return out;
    }

    public static String format(Truth t) {
        return String.format(Locale.ROOT, "%d %.6f %.6f %.6f %.6f", t.classId(), t.x(), t.y(), t.w(), t.h());
    }
}
