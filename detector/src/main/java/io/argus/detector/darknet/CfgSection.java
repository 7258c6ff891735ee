package io.argus.detector.darknet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One {@code [section]} of a Darknet cfg with its {@code key=value} options, each remembering its line.
 * Typed getters fail with file:line, the key and expected vs. found; every key read is marked, so the keys
 * nobody read can be reported as unknown.
 */
public final class CfgSection {
    /** A value as written, with the line it came from. */
    public record Entry(String value, int line) {}

    private final Path file;
    private final String name;
    private final int line;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final Set<String> read = new HashSet<>();

    CfgSection(Path file, String name, int line) {
        this.file = file;
        this.name = name;
        this.line = line;
    }

    void put(String key, String value, int atLine) {
        Entry previous = entries.put(key, new Entry(value, atLine));
        if (previous != null) {
            throw new CfgException(file, atLine, "[" + name + "] key '" + key + "' given twice (first at line "
                    + previous.line() + ")");
        }
    }

    public Path file() { return file; }

    /** Section name without brackets, e.g. {@code convolutional}. */
    public String name() { return name; }

    /** Line of the {@code [section]} header. */
    public int line() { return line; }

    public Map<String, Entry> entries() { return Collections.unmodifiableMap(entries); }

    public boolean has(String key) { return entries.containsKey(key); }

    /** Keys present but never read by the builder. */
    public List<String> unreadKeys() {
        List<String> unread = new ArrayList<>();
        for (String key : entries.keySet()) if (!read.contains(key)) unread.add(key);
        return unread;
    }

    /** Keys the builder asked for so far, present in the section or not: the keys this section kind understands. */
    public Set<String> readKeys() { return Set.copyOf(read); }

    /** Marks a key as understood without reading it (e.g. keys only the trainer uses). */
    public void accept(String... keys) {
        Collections.addAll(read, keys);
    }

    public CfgException error(String key, String message) {
        Entry e = entries.get(key);
        return new CfgException(file, e != null ? e.line() : line, "[" + name + "] " + key + ": " + message);
    }

    public CfgException error(String message) {
        return new CfgException(file, line, "[" + name + "] " + message);
    }

    private Entry entry(String key) {
        read.add(key);
        return entries.get(key);
    }

    public String getString(String key, String fallback) {
        Entry e = entry(key);
        return e == null ? fallback : e.value();
    }

    public int getInt(String key, int fallback) {
        Entry e = entry(key);
        return e == null ? fallback : parseInt(key, e.value());
    }

    public int requireInt(String key) {
        Entry e = entry(key);
        if (e == null) throw error("missing required key '" + key + "' (expected an integer)");
        return parseInt(key, e.value());
    }

    public float getFloat(String key, float fallback) {
        Entry e = entry(key);
        return e == null ? fallback : parseFloat(key, e.value());
    }

    public boolean getFlag(String key, boolean fallback) {
        Entry e = entry(key);
        if (e == null) return fallback;
        int v = parseInt(key, e.value());
        if (v != 0 && v != 1) throw error(key, "expected 0 or 1, found '" + e.value() + "'");
        return v == 1;
    }

    /** Comma-separated integers; {@code null} when the key is absent. */
    public int[] getIntList(String key) {
        Entry e = entry(key);
        if (e == null) return null;
        String[] parts = splitList(key, e.value());
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = parseInt(key, parts[i]);
        return out;
    }

    /** Comma-separated numbers; {@code null} when the key is absent. */
    public float[] getFloatList(String key) {
        Entry e = entry(key);
        if (e == null) return null;
        String[] parts = splitList(key, e.value());
        float[] out = new float[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = parseFloat(key, parts[i]);
        return out;
    }

    /** One word from a fixed set, case-insensitive. */
    public String getChoice(String key, String fallback, String... allowed) {
        Entry e = entry(key);
        if (e == null) return fallback;
        String v = e.value().toLowerCase(Locale.ROOT);
        for (String a : allowed) if (a.equals(v)) return a;
        throw error(key, "expected one of " + String.join(", ", allowed) + ", found '" + e.value() + "'");
    }

    private String[] splitList(String key, String value) {
        String[] parts = value.split(",", -1);
        // Darknet tolerates one trailing comma ("1,2,3,")
        int n = parts.length;
        if (n > 1 && parts[n - 1].isEmpty()) n--;
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            if (parts[i].isEmpty()) throw error(key, "empty element " + (i + 1) + " in list '" + value + "'");
            out[i] = parts[i];
        }
        return out;
    }

    private int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException ex) {
            throw error(key, "expected an integer, found '" + value + "'");
        }
    }

    private float parseFloat(String key, String value) {
        try {
            // Darknet accepts ".1" and "1." as C's atof does; Java's parser does too. Reject hex/NaN/Infinity.
            if (!value.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) throw new NumberFormatException();
            return Float.parseFloat(value);
        } catch (NumberFormatException ex) {
            throw error(key, "expected a number, found '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return "[" + name + "] at " + CfgException.location(file, line);
    }
}
