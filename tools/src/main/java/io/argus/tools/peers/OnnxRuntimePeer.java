package io.argus.tools.peers;

import io.argus.detector.Model;
import io.argus.detector.onnx.OnnxExport;
import io.argus.detector.onnx.OnnxRuntimeNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * ONNX Runtime (onnxruntime-node, CPU execution provider, its defaults: all cores, graph optimisations on) on our
 * exported model ({@code argus export onnx}) with the very input tensor we time. It runs in its own Node.js process,
 * which times each {@code session.run} itself: see {@link #times}.
 */
public final class OnnxRuntimePeer implements Peer {
    private final OnnxRuntimeNode runtime;
    private final Path model;
    private final boolean temporary;
    private final FloatBuffer tensor;
    private final int channels, height, width;

    /** An ONNX model as it is (a user's imported model): the very file our side runs. */
    public OnnxRuntimePeer(Path toolDir, Path onnx, Model m, FloatBuffer tensor) {
        this(toolDir, onnx, false, m, tensor);
    }

    /** Our model exported ({@code argus export onnx}) to a temporary file, deleted on close. */
    public OnnxRuntimePeer(Path toolDir, Model m, FloatBuffer tensor) {
        this(toolDir, exported(toolDir, m), true, m, tensor);
    }

    private OnnxRuntimePeer(Path toolDir, Path onnx, boolean temporary, Model m, FloatBuffer tensor) {
        this.runtime = new OnnxRuntimeNode(toolDir);
        var in = m.spec().inputShape();
        this.channels = in.channels();
        this.height = in.height();
        this.width = in.width();
        this.tensor = tensor;
        this.model = onnx;
        this.temporary = temporary;
    }

    /** Checks the peer can run (before exporting: fail at once, saying how to install), then writes the export. */
    private static Path exported(Path toolDir, Model m) {
        String why = new OnnxRuntimeNode(toolDir).unavailable();
        if (why != null) throw new IllegalStateException("--vs onnxruntime: " + why);
        try {
            Path model = Files.createTempFile("argus-bench", ".onnx");
            Files.write(model, OnnxExport.export(m.spec(), m.weights(), "bench"));
            return model;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the exported model: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() { return "onnxruntime"; }

    /** Not used: ONNX Runtime runs in its own process; see {@link #times}. */
    @Override
    public void forward(int n) {
        times(n, 1, 0);
    }

    /** One run's outputs by name (dims and values), for comparing with ours on the same input. */
    public OnnxRuntimeNode.Result outputs(int n) {
        try {
            return runtime.run(model, tensor, n, channels, height, width, 1, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Wall time of each of {@code runs} batches of {@code n} after {@code warmup} untimed ones, ms. */
    public List<Double> times(int n, int runs, int warmup) {
        try {
            return runtime.run(model, tensor, n, channels, height, width, runs, warmup).ms();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        if (!temporary) return;
        try {
            Files.deleteIfExists(model);
        } catch (IOException ignored) {
            // a temp file left behind
        }
    }
}
