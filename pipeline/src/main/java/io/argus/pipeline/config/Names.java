package io.argus.pipeline.config;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The one rule for identifiers that come from outside (REST paths and bodies, the config file, cluster maps): cameras,
 * models, versions, frames, events, zones, lines, runs. An identifier is a name, never a path: a letter or digit, then
 * letters, digits, {@code .}, {@code _} or {@code -}; so it holds no {@code /}, no {@code \}, no NUL, cannot be
 * {@code .} or {@code ..}, and cannot start with a dot or a dash (no hidden files, no command-line options). It is
 * checked where it enters, and a file named after it is resolved under its directory and checked to stay there
 * ({@link #fileIn}), so a rule missed at the door still cannot reach another directory.
 *
 * <p>Names of things Argus derives from other names (a frame is {@code <camera>-<millis>}, an event
 * {@code <camera>-<track>-<seconds>}) may be longer: {@link #DERIVED_MAX}.
 */
public final class Names {
    /** Longest name a person or a config gives (a camera, a model, a zone, a line). */
    public static final int MAX = 64;
    /** Longest name Argus derives from another one (frames, events, versions). */
    public static final int DERIVED_MAX = 128;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /** At most this much of a rejected value is repeated in an error (a 10 KB name is not echoed whole). */
    private static final int QUOTED_MAX = 80;

    private Names() {}

    /** Whether {@code value} is a name of at most {@link #MAX} characters. */
    public static boolean valid(String value) { return valid(value, MAX); }

    public static boolean valid(String value, int max) {
        return value != null && !value.isEmpty() && value.length() <= max && NAME.matcher(value).matches();
    }

    /**
     * {@code value} when it is a name of at most {@link #MAX} characters, else an {@link InvalidName} naming
     * {@code what} (e.g. "camera id") and what was found.
     */
    public static String require(String what, String value) { return require(what, value, MAX); }

    public static String require(String what, String value, int max) {
        if (valid(value, max)) return value;
        throw new InvalidName(what + ": " + expectation(max) + ", found " + quoted(value));
    }

    /** What a name looks like, for messages. */
    public static String expectation(int max) {
        return "expected a name of 1-" + max + " letters, digits, '.', '_' or '-', starting with a letter or digit";
    }

    /**
     * The file {@code <dir>/<name><suffix>}, after checking that {@code name} is a name of at most {@code max}
     * characters and that the file resolves to a direct child of {@code dir}.
     */
    public static Path fileIn(Path dir, String what, String name, String suffix, int max) {
        require(what, name, max);
        if (suffix.contains("/") || suffix.contains("\\") || suffix.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("file suffix must not hold a separator: " + quoted(suffix));
        }
        Path base = dir.toAbsolutePath().normalize();
        Path file = base.resolve(name + suffix).normalize();
        if (!base.equals(file.getParent())) {
            throw new InvalidName(what + ": " + quoted(name) + " does not name a file in " + base);
        }
        return file;
    }

    public static Path fileIn(Path dir, String what, String name, String suffix) {
        return fileIn(dir, what, name, suffix, MAX);
    }

    /** {@code value} for an error message: quoted, control characters escaped, cut after {@value #QUOTED_MAX}. */
    public static String quoted(String value) {
        if (value == null) return "nothing";
        StringBuilder b = new StringBuilder("\"");
        int n = Math.min(value.length(), QUOTED_MAX);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", (int) c));
            else if (c == '"' || c == '\\') b.append('\\').append(c);
            else b.append(c);
        }
        b.append('"');
        if (value.length() > QUOTED_MAX) b.append(" (").append(value.length()).append(" characters)");
        return b.toString();
    }

    /** An identifier that is not a name: the message says which identifier, what was expected and what was found. */
    public static final class InvalidName extends IllegalArgumentException {
        public InvalidName(String message) { super(message); }
    }
}
