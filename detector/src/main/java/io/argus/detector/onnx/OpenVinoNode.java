package io.argus.detector.onnx;

import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * OpenVINO as an independent peer: {@code scripts/openvino/run.mjs} under Node.js with {@code openvino-node} (the CPU
 * plugin, PERFORMANCE_HINT LATENCY), fed an input tensor through a file; outputs come back the same way
 * ({@link NodeScript}). OpenVINO is the runtime Frigate defaults to on CPUs, so it is the peer a user of a CPU NVR
 * would otherwise have. Used by {@code OpenVinoNodeTest} (our raw heads against OpenVINO's on the exported model) and
 * by {@code argus bench --vs openvino,openvino-best}.
 *
 * <p>Install it with {@code npm ci --prefix scripts/openvino}. Unlike onnxruntime-node, the npm package holds only
 * JavaScript: its install step downloads OpenVINO's runtime (the addon and its shared libraries, into
 * {@code node_modules/openvino-node/bin}) from OpenVINO's own download server, not from npm, so it installs only where
 * that server can be reached; there is no npm-only way (no platform package, no flag).
 */
public final class OpenVinoNode {
    /** What run.mjs asks of the CPU plugin. */
    public enum Precision {
        /** INFERENCE_PRECISION_HINT f32: FP32 throughout, as our FP32 and ONNX Runtime. */
        F32,
        /**
         * The CPU plugin's default, what a caller that sets no precision gets: bf16 where the CPU has AVX512_BF16 or
         * AMX, else f32.
         */
        BEST;

        String argument() { return name().toLowerCase(Locale.ROOT); }
    }

    /**
     * Every graph output by name (dims and values, NCHW), the wall time of each timed infer call (ms), the threads of
     * the request, and what OpenVINO reports: its build, the CPU's name and the inference precision it compiled for.
     */
    public record Result(Map<String, long[]> dims, Map<String, float[]> outputs, List<Double> ms, int threads,
                         String version, String device, String precision) {}

    /** The file the install step downloads: without it openvino-node's JavaScript has nothing to load. */
    private static final String ADDON = "openvino-node/bin/ov_node_addon.node";

    private final Path tool;

    /** {@code toolDir}: the folder with run.mjs and node_modules (scripts/openvino). */
    public OpenVinoNode(Path toolDir) {
        this.tool = toolDir;
    }

    /** Why it cannot run here (no node, no openvino-node or no OpenVINO runtime installed), or null when it can. */
    public String unavailable() {
        return NodeScript.unavailable(tool, ADDON, "openvino-node and its runtime are not installed ("
                + tool.resolve("node_modules").resolve(ADDON) + " is missing): run `npm ci --prefix " + tool
                + "` on a machine that reaches OpenVINO's download server (its install step fetches the runtime from "
                + "there, not from npm)");
    }

    /**
     * Runs {@code model} on {@code input} (n*c*h*w floats from its position 0) compiled once for the CPU at
     * {@code precision}, {@code warmup} untimed infer calls then {@code runs} timed ones; the outputs are the last
     * run's.
     */
    public Result run(Path model, FloatBuffer input, int n, int c, int h, int w, int runs, int warmup,
                      Precision precision) throws IOException, InterruptedException {
        NodeScript.Printed p = NodeScript.run("openvino-node", tool, model, input, n, c, h, w, runs, warmup,
                precision.argument());
        return new Result(p.dims(), p.outputs(), p.ms(), p.threads(), p.lines().getOrDefault("openvino", "?"),
                p.lines().getOrDefault("device", "?"), p.lines().getOrDefault("precision", "?"));
    }
}
