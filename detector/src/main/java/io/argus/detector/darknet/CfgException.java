package io.argus.detector.darknet;

import java.nio.file.Path;

/** A cfg file that cannot be understood: names the file, the line and what was expected. */
public final class CfgException extends RuntimeException {
    private final Path file;
    private final int line;

    public CfgException(Path file, int line, String message) {
        super(location(file, line) + ": " + message);
        this.file = file;
        this.line = line;
    }

    public Path file() { return file; }

    public int line() { return line; }

    static String location(Path file, int line) {
        String name = file == null ? "<cfg>" : file.toString();
        return line > 0 ? name + ":" + line : name;
    }
}
