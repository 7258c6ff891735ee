package io.argus.detector.peers;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's original C Darknet (libdarknet.so from the darknet package) driven through a small C harness compiled by
 * gcc at test time. Skips without the package, unless ARGUS_REQUIRE_PEERS=1 (CI), where its absence fails.
 */
public final class DarknetHarness {
    private static final Path LIB = Path.of("/usr/lib/darknet/libdarknet.so");
    private static Path binary;

    private DarknetHarness() {}

    public static synchronized Path binary() {
        boolean present = Files.exists(LIB) && Files.exists(Path.of("/usr/bin/gcc"));
        if (!present && "1".equals(System.getenv("ARGUS_REQUIRE_PEERS"))) {
            throw new IllegalStateException("Debian's darknet package (" + LIB + ") and gcc are required");
        }
        assumeTrue(present, "Debian's darknet package is not installed (apt-get install darknet)");
        if (binary != null) return binary;
        try {
            Path dir = Files.createDirectories(Path.of("target/darknet-harness"));
            Path src = dir.resolve("harness.c");
            try (InputStream in = DarknetHarness.class.getResourceAsStream("/darknet/harness.c")) {
                Files.write(src, in.readAllBytes());
            }
            Path exe = dir.resolve("harness");
            run(List.of("gcc", "-O2", "-o", exe.toString(), src.toString(), "-I/usr/lib/darknet/include",
                    "-L/usr/lib/darknet", "-ldarknet", "-Wl,-rpath,/usr/lib/darknet", "-lm"));
            binary = exe;
            return exe;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static void writeFloats(Path file, float[] data) {
        ByteBuffer b = ByteBuffer.allocate(4 * data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(data);
        try {
            Files.write(file, b.array());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static float[] readFloats(Path file) {
        try {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            float[] out = new float[b.remaining() / 4];
            b.asFloatBuffer().get(out);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One [yolo] layer's output as Darknet computed it. */
    public record YoloOutput(int layer, float[] values) {}

    /** A box after Darknet's NMS, relative to the network input, with its nonzero class probabilities. */
    public record Det(float x, float y, float w, float h, float objectness, List<float[]> probs) {}

    public record NetResult(List<YoloOutput> yolo, List<Det> dets) {}

    public static NetResult parse(Path file) {
        List<YoloOutput> yolo = new ArrayList<>();
        List<Det> dets = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String[] t = lines.get(i).split(" ");
                switch (t[0]) {
                    case "yolo" -> {
                        float[] v = new float[Integer.parseInt(t[2])];
                        for (int j = 0; j < v.length; j++) v[j] = Float.parseFloat(lines.get(++i));
                        yolo.add(new YoloOutput(Integer.parseInt(t[1]), v));
                    }
                    case "det" -> dets.add(new Det(Float.parseFloat(t[1]), Float.parseFloat(t[2]), Float.parseFloat(t[3]),
                            Float.parseFloat(t[4]), Float.parseFloat(t[5]), new ArrayList<>()));
                    case "prob" -> dets.get(dets.size() - 1).probs().add(
                            new float[] {Integer.parseInt(t[1]), Float.parseFloat(t[2])});
                    default -> throw new IllegalStateException("unexpected harness line: " + lines.get(i));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new NetResult(yolo, dets);
    }
}
