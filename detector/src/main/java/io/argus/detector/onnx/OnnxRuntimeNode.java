package io.argus.detector.onnx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * ONNX Runtime as an independent peer: {@code scripts/onnxruntime/run.mjs} under Node.js with {@code onnxruntime-node}
 * (CPU execution provider, default settings), fed an input tensor through a file; outputs come back the same way.
 * Used by the ONNX export test (our raw heads against ONNX Runtime's on the exported model) and by
 * {@code argus bench --vs onnxruntime}.
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
        if (!Files.isRegularFile(tool.resolve("run.mjs"))) return tool.resolve("run.mjs") + " is missing";
        if (!Files.isDirectory(tool.resolve("node_modules/onnxruntime-node"))) {
            return "onnxruntime-node is not installed: run `npm ci --prefix " + tool + " --onnxruntime-node-install=skip`";
        }
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) return "node --version failed";
        } catch (IOException | InterruptedException e) {
            return "no Node.js (node) on the PATH: " + e.getMessage();
        }
        return null;
    }

    /**
     * Runs {@code model} on {@code input} (n*c*h*w floats from its position 0), {@code warmup} untimed runs then
     * {@code runs} timed ones; the outputs are the last run's.
     */
    public Result run(Path model, FloatBuffer input, int n, int c, int h, int w, int runs, int warmup)
            throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("argus-onnxruntime");
        try {
            Path in = work.resolve("input.f32");
            int count = n * c * h * w;
            ByteBuffer bytes = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            FloatBuffer src = input.duplicate();
            src.position(0).limit(count);
            bytes.asFloatBuffer().put(src);
            Files.write(in, bytes.array());
            Path outDir = work.resolve("out");
            List<String> command = List.of("node", tool.resolve("run.mjs").toString(), model.toString(), in.toString(),
                    String.valueOf(n), String.valueOf(c), String.valueOf(h), String.valueOf(w), outDir.toString(),
                    String.valueOf(runs), String.valueOf(warmup));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IOException("onnxruntime-node on " + model + " failed (exit "
                        + (p.isAlive() ? "none, killed" : p.exitValue()) + "): " + out.strip());
            }
            Map<String, long[]> dims = new LinkedHashMap<>();
            Map<String, float[]> outputs = new LinkedHashMap<>();
            List<Double> ms = new ArrayList<>();
            int threads = 0;
            for (String line : out.strip().split("\n")) {
                String[] f = line.strip().split(" ");
                switch (f[0]) {
                    case "output" -> {
                        long[] d = Stream.of(f[2].split("x")).mapToLong(Long::parseLong).toArray();
                        dims.put(f[1], d);
                        outputs.put(f[1], readFloats(outDir.resolve(f[1] + ".f32")));
                    }
                    case "ms" -> {
                        for (int i = 1; i < f.length; i++) ms.add(Double.parseDouble(f[i]));
                    }
                    case "threads" -> threads = Integer.parseInt(f[1]);
                    default -> { } // warnings from ONNX Runtime
                }
            }
            if (outputs.isEmpty()) throw new IOException("onnxruntime-node printed no outputs: " + out.strip());
            return new Result(dims, outputs, ms, threads);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static float[] readFloats(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        float[] out = new float[b.length / Float.BYTES];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }
}
