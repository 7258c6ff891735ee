package io.argus.tools.peers;

import io.argus.detector.Model;
import io.argus.detector.onnx.OnnxExport;
import io.argus.detector.onnx.OpenVinoNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * OpenVINO (openvino-node, CPU plugin, PERFORMANCE_HINT LATENCY) on an ONNX model with the very input tensor we time:
 * {@code --vs openvino} in FP32 (INFERENCE_PRECISION_HINT f32), {@code --vs openvino-best} at the CPU plugin's
 * default precision (bf16 where the CPU has AVX512_BF16 or AMX, else f32). The caller picks the model file:
 * our export of a Darknet model ({@link #ofExport}) or a user's own .onnx. It runs in its own Node.js process, which
 * compiles the model once and times each infer call itself: see {@link #run}.
 */
public final class OpenVinoPeer implements Peer {
    private final OpenVinoNode runtime;
    private final Path model;
    private final Path temporary;   // our export, deleted on close; null for a caller's file
    private final FloatBuffer tensor;
    private final int channels, height, width;
    private final OpenVinoNode.Precision precision;

    /** {@code model}: the .onnx file to run, left in place; {@code tensor}: NCHW input of channels x height x width. */
    public OpenVinoPeer(Path toolDir, Path model, FloatBuffer tensor, int channels, int height, int width,
                        OpenVinoNode.Precision precision) {
        this(toolDir, model, null, tensor, channels, height, width, precision);
    }

    private OpenVinoPeer(Path toolDir, Path model, Path temporary, FloatBuffer tensor, int channels, int height,
                         int width, OpenVinoNode.Precision precision) {
        this.runtime = new OpenVinoNode(toolDir);
        this.precision = precision;
        String why = runtime.unavailable();
        if (why != null) throw new IllegalStateException("--vs " + name() + ": " + why);
        this.model = model;
        this.temporary = temporary;
        this.tensor = tensor;
        this.channels = channels;
        this.height = height;
        this.width = width;
    }

    /** The peer on our ONNX export of {@code m} ({@code argus export onnx}), written to a temporary file. */
    public static OpenVinoPeer ofExport(Path toolDir, Model m, FloatBuffer tensor, OpenVinoNode.Precision precision) {
        String why = new OpenVinoNode(toolDir).unavailable();   // before exporting: fail at once, saying how to install
        if (why != null) throw new IllegalStateException("--vs openvino: " + why);
        var in = m.spec().inputShape();
        try {
            Path file = Files.createTempFile("argus-bench", ".onnx");
            Files.write(file, OnnxExport.export(m.spec(), m.weights(), "bench"));
            return new OpenVinoPeer(toolDir, file, file, tensor, in.channels(), in.height(), in.width(), precision);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the exported model: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() { return precision == OpenVinoNode.Precision.F32 ? "openvino" : "openvino-best"; }

    /** Not used: OpenVINO runs in its own process; see {@link #run}. */
    @Override
    public void forward(int n) {
        run(n, 1, 0);
    }

    /** {@code runs} timed infer calls on batches of {@code n} after {@code warmup} untimed ones: times, precision, CPU. */
    public OpenVinoNode.Result run(int n, int runs, int warmup) {
        try {
            return runtime.run(model, tensor, n, channels, height, width, runs, warmup, precision);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        if (temporary == null) return;
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
            // a temp file left behind
        }
    }
}
