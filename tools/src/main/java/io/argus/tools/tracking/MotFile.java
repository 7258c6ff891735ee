package io.argus.tools.tracking;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * MOTChallenge ground-truth and result files: one {@link MotRow} a line, comma-separated,
 * {@code frame,id,left,top,width,height,conf,class,visibility}. Reading accepts what MOTChallenge tools write: 6 to 10
 * fields (a results file's {@code x,y,z} are -1: no class, visibility not given), blank lines. A bad line fails with
 * {@code file:line: field N (name): what was expected, what was found}.
 */
public final class MotFile {
    private static final String[] FIELDS = {"frame", "id", "left", "top", "width", "height", "conf", "class",
            "visibility", "z"};

    private MotFile() {}

    public static List<MotRow> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": cannot read: " + e.getMessage(), e));
        }
        return parse(lines, file.toString());
    }

    /** The rows of {@code lines}; {@code name} (a file name) starts each error message. */
    public static List<MotRow> parse(List<String> lines, String name) {
        List<MotRow> rows = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            rows.add(parseLine(line, name + ":" + (i + 1)));
        }
        return rows;
    }

    private static MotRow parseLine(String line, String where) {
        String[] f = line.split(",", -1);
        if (f.length < 6 || f.length > FIELDS.length) {
            throw new IllegalArgumentException(where + ": expected 6 to 10 comma-separated fields "
                    + "(frame,id,left,top,width,height,conf,class,visibility), found " + f.length + ": " + line);
        }
        long frame = integer(f, 0, where);
        if (frame < 1 || frame > Integer.MAX_VALUE) throw error(where, 0, "expected 1 or more (frames count from 1)", f[0]);
        long id = integer(f, 1, where);
        double left = number(f, 2, where), top = number(f, 3, where);
        double width = number(f, 4, where), height = number(f, 5, where);
        if (width < 0) throw error(where, 4, "expected a size >= 0", f[4]);
        if (height < 0) throw error(where, 5, "expected a size >= 0", f[5]);
        double conf = f.length > 6 ? number(f, 6, where) : 1;
        int cls = MotRow.NO_CLASS;
        if (f.length > 7) {
            long c = integer(f, 7, where);
            if (c < MotRow.NO_CLASS || c > Integer.MAX_VALUE) throw error(where, 7, "expected a class index >= 0 or -1", f[7]);
            cls = (int) c;
        }
        double visibility = 1;
        if (f.length > 8) {
            double v = number(f, 8, where);
            if (v == -1) v = 1; // a results file's y: not given
            else if (!(v >= 0 && v <= 1)) throw error(where, 8, "expected 0..1 (or -1: not given)", f[8]);
            visibility = v;
        }
        if (f.length > 9) number(f, 9, where); // z: unused, but a typo there is still a broken file
        return new MotRow((int) frame, id, left, top, width, height, conf, cls, visibility);
    }

    private static double number(String[] f, int i, String where) {
        try {
            double v = Double.parseDouble(f[i].strip());
            if (Double.isFinite(v)) return v;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw error(where, i, "expected a number", f[i]);
    }

    /** An integer field; MOTChallenge tools also write them as "3.0" or "-1.00000". */
    private static long integer(String[] f, int i, String where) {
        double v = number(f, i, where);
        if (v != Math.rint(v) || Math.abs(v) > 1e15) throw error(where, i, "expected an integer", f[i]);
        return (long) v;
    }

    private static IllegalArgumentException error(String where, int field, String expected, String found) {
        return new IllegalArgumentException(where + ": field " + (field + 1) + " (" + FIELDS[field] + "): " + expected
                + ", found \"" + found.strip() + "\"");
    }

    /** Writes {@code rows} sorted by frame, then id: the order MOTChallenge files come in. */
    public static void write(Path file, List<MotRow> rows) {
        write(file, rows, false);
    }

    /**
     * As {@link #write(Path, List)}; with {@code exact}, boxes and scores are written as the shortest decimals that
     * read back to the same float (a detector's output, to be tracked again exactly), not rounded to 2 and 4 places.
     * Rows of one frame and id keep their order.
     */
    public static void write(Path file, List<MotRow> rows, boolean exact) {
        StringBuilder b = new StringBuilder();
        for (MotRow r : rows.stream().sorted(Comparator.comparingInt(MotRow::frame).thenComparingLong(MotRow::id)).toList()) {
            b.append(r.frame()).append(',').append(r.id()).append(',')
                    .append(number(r.left(), 2, exact)).append(',').append(number(r.top(), 2, exact)).append(',')
                    .append(number(r.width(), 2, exact)).append(',').append(number(r.height(), 2, exact)).append(',')
                    .append(number(r.confidence(), 4, exact)).append(',').append(r.classId()).append(',')
                    .append(decimal(r.visibility(), 4)).append('\n');
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.writeString(file, b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": cannot write: " + e.getMessage(), e));
        }
    }

    private static String number(double v, int places, boolean exact) {
        return exact ? Float.toString((float) v) : decimal(v, places);
    }

    /** {@code v} rounded to {@code places} decimals, without trailing zeros ("12.5", "1", "0.3333"). */
    static String decimal(double v, int places) {
        BigDecimal d = new BigDecimal(v).setScale(places, RoundingMode.HALF_EVEN).stripTrailingZeros();
        if (d.signum() == 0) return "0";
        return d.toPlainString();
    }
}
