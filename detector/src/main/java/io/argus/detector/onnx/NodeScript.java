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
 * The file protocol shared by the Node.js peers ({@link OnnxRuntimeNode}, {@link OpenVinoNode}): a {@code run.mjs}
 * that takes {@code MODEL INPUT.f32 N C H W OUTDIR RUNS WARMUP [more]}, writes {@code OUTDIR/<output>.f32} and prints
 * {@code output NAME D1xD2...}, {@code ms T1 T2 ...} and {@code threads N}. The input goes through a file and the
 * peer runs in its own process, so neither runtime's native code shares our JVM.
 */
final class NodeScript {
    /** What run.mjs printed: the outputs, each timed run's ms, its thread count and any other line by first word. */
    record Printed(Map<String, long[]> dims, Map<String, float[]> outputs, List<Double> ms, int threads,
                   Map<String, String> lines) {}

    private NodeScript() {}

    /**
     * Why {@code tool}'s run.mjs cannot run here, or null: no run.mjs, no {@code required} file under node_modules
     * (then {@code install} says what to run), or no Node.js on the PATH.
     */
    static String unavailable(Path tool, String required, String install) {
        if (!Files.isRegularFile(tool.resolve("run.mjs"))) return tool.resolve("run.mjs") + " is missing";
        if (!Files.exists(tool.resolve("node_modules").resolve(required))) return install;
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
     * Runs {@code tool}'s run.mjs on {@code model} with {@code input} (n*c*h*w floats from its position 0),
     * {@code warmup} untimed runs then {@code runs} timed ones, {@code extra} arguments after those; the outputs are
     * the last run's. {@code peer} names it in errors.
     */
    static Printed run(String peer, Path tool, Path model, FloatBuffer input, int n, int c, int h, int w, int runs,
                       int warmup, String... extra) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("argus-" + peer);
        try {
            Path in = work.resolve("input.f32");
            int count = n * c * h * w;
            ByteBuffer bytes = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            FloatBuffer src = input.duplicate();
            src.position(0).limit(count);
            bytes.asFloatBuffer().put(src);
            Files.write(in, bytes.array());
            Path outDir = work.resolve("out");
            List<String> command = new ArrayList<>(List.of("node", tool.resolve("run.mjs").toString(), model.toString(),
                    in.toString(), String.valueOf(n), String.valueOf(c), String.valueOf(h), String.valueOf(w),
                    outDir.toString(), String.valueOf(runs), String.valueOf(warmup)));
            command.addAll(List.of(extra));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IOException(peer + " on " + model + " failed (exit "
                        + (p.isAlive() ? "none, killed" : p.exitValue()) + "): " + out.strip());
            }
            Map<String, long[]> dims = new LinkedHashMap<>();
            Map<String, float[]> outputs = new LinkedHashMap<>();
            List<Double> ms = new ArrayList<>();
            Map<String, String> lines = new LinkedHashMap<>();
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
                    // what else the peer reports (its version, device, precision) and its warnings
                    default -> lines.putIfAbsent(f[0], line.strip().substring(f[0].length()).strip());
                }
            }
            if (outputs.isEmpty()) throw new IOException(peer + " printed no outputs: " + out.strip());
            return new Printed(dims, outputs, ms, threads, lines);
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
