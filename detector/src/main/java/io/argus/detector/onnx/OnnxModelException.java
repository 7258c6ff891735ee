package io.argus.detector.onnx;

import java.nio.file.Path;

/**
 * An ONNX file the importer cannot take: not ONNX, an opset outside the supported range, a dynamic input size, an
 * operator it does not know, a shape it cannot infer. The message starts with the file and says what was expected
 * and what was found.
 */
public final class OnnxModelException extends RuntimeException {
    private final Path file;

    public OnnxModelException(Path file, String message) {
        super(file + ": " + message);
        this.file = file;
    }

    public OnnxModelException(Path file, String message, Throwable cause) {
        super(file + ": " + message, cause);
        this.file = file;
    }

    public Path file() { return file; }
}
