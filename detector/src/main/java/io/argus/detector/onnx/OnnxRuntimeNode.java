package io.argus.detector.onnx;

import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * ONNX Runtime as an independent peer: {@code scripts/onnxruntime/run.mjs} under Node.js with {@code onnxruntime-node}
 * (CPU execution provider, default settings), fed an input tensor through a file; outputs come back the same way
 * ({@link NodeScript}). Used by the ONNX export test (our raw heads against ONNX Runtime's on the exported model) and
 * by {@code argus bench --vs onnxruntime}.
 *
 * <p>Install it with {@code npm ci --prefix scripts/onnxruntime --onnxruntime-node-install=skip} (scripts/test.sh does;
 * "skip": the CPU provider ships in the package, the install script would only fetch CUDA's).
 */
public final class OnnxRuntimeNode {
    /** Every graph output by name (dims and values, NCHW) and the wall time of each timed run, ms. */
    public record Result(Map<String, long[]> dims, Map<String, float[]> outputs, List<Double> ms, int threads) {}

    private final Path tool;

    /** {@code toolDir}: the folder with run.mjs and node_modules (scripts/onnxruntime). */
    public OnnxRuntimeNode(Path toolDir) {
        this.tool = toolDir;
    }

    /** Why it cannot run here (no node, no onnxruntime-node installed), or null when it can. */
    public String unavailable() {
        return NodeScript.unavailable(tool, "onnxruntime-node",
                "onnxruntime-node is not installed: run `npm ci --prefix " + tool + " --onnxruntime-node-install=skip`");
    }

    /**
     * Runs {@code model} on {@code input} (n*c*h*w floats from its position 0), {@code warmup} untimed runs then
     * {@code runs} timed ones; the outputs are the last run's.
     */
    public Result run(Path model, FloatBuffer input, int n, int c, int h, int w, int runs, int warmup)
            throws IOException, InterruptedException {
        NodeScript.Printed p = NodeScript.run("onnxruntime-node", tool, model, input, n, c, h, w, runs, warmup);
        return new Result(p.dims(), p.outputs(), p.ms(), p.threads());
    }
}
