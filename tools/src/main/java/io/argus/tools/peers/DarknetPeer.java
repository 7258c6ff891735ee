package io.argus.tools.peers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's original C Darknet as a peer: a small C program (compiled here with gcc against libdarknet.so) runs
 * network_predict on the same cfg, weights and input tensor and reports each run's milliseconds.
 */
public final class DarknetPeer implements Peer {
    private static final Path LIB = Path.of("/usr/lib/darknet/libdarknet.so");
    private final Path exe;
    private final Path cfg;
    private final Path weights;
    private final Path input;

    /** Runs {@code cfg} at {@code width} x {@code height}, batch 1 (a copy of the cfg says so), on image 0 of {@code tensor}. */
    public DarknetPeer(Path cfg, int width, int height, Path weights, FloatBuffer tensor) {
        if (!Files.exists(LIB)) {
            throw new IllegalStateException(LIB + " not found: install Debian's darknet package (apt-get install darknet)");
        }
        try {
            Path dir = Files.createTempDirectory("argus-darknet");
            Path src = dir.resolve("darknet_bench.c");
            try (InputStream in = DarknetPeer.class.getResourceAsStream("/peers/darknet_bench.c")) {
                Files.write(src, in.readAllBytes());
            }
            exe = dir.resolve("darknet_bench");
            run(List.of("gcc", "-O2", "-o", exe.toString(), src.toString(), "-I/usr/lib/darknet/include",
                    "-L/usr/lib/darknet", "-ldarknet", "-Wl,-rpath,/usr/lib/darknet", "-lm"));
            this.cfg = dir.resolve("net.cfg");
            Files.writeString(this.cfg, Files.readString(cfg).replaceAll("(?m)^\\s*width\\s*=.*$", "width=" + width)
                    .replaceAll("(?m)^\\s*height\\s*=.*$", "height=" + height)
                    .replaceAll("(?m)^\\s*batch\\s*=.*$", "batch=1")
                    .replaceAll("(?m)^\\s*subdivisions\\s*=.*$", "subdivisions=1"));
            this.weights = weights;
            this.input = dir.resolve("input.f32");
            int n = 3 * width * height;
            ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) b.putFloat(tensor.get(i));
            Files.write(input, b.array());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() { return "darknet"; }

    /** Not used: Darknet runs in its own process; see {@link #times(int)}. */
    @Override
    public void forward(int n) {
        times(n);
    }

    /** Milliseconds of each of {@code iterations} network_predict calls, as Darknet's process measured them. */
    public List<Double> times(int iterations) {
        String out = run(List.of(exe.toString(), cfg.toString(), weights.toString(), input.toString(),
                Integer.toString(iterations)));
        List<Double> ms = new ArrayList<>();
        for (String line : out.split("\n")) if (line.startsWith("ms ")) ms.add(Double.parseDouble(line.substring(3)));
        if (ms.size() != iterations) throw new IllegalStateException("darknet printed:\n" + out);
        return ms;
    }

    private static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            StringBuilder out = new StringBuilder();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) out.append(line).append('\n');
            }
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
            }
            return out.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
