package io.argus.pipeline.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's original C Darknet ({@code darknet detector test}) as a peer: one long-running process reading image paths
 * from stdin; its own "Predicted in X seconds" figure (network_predict only) is the time reported.
 */
public final class DarknetPeer implements Peer {
    private static final Pattern PREDICTED = Pattern.compile("Predicted in ([0-9.]+) seconds");
    private final Process process;
    private final Writer stdin;
    private final BufferedReader stdout;
    private final Path image;
    private double lastSeconds;

    /** Runs {@code cfg} at {@code width} x {@code height}, batch 1 (a copy of the cfg says so). */
    public DarknetPeer(Path darknet, Path cfg, int width, int height, Path weights, Path image) {
        if (!Files.isExecutable(darknet)) {
            throw new IllegalStateException(darknet + " not found: install Debian's darknet package (apt-get install darknet)");
        }
        this.image = image;
        try {
            Path data = Files.createTempFile("argus-darknet", ".data");
            Path names = Files.createTempFile("argus-darknet", ".names");
            Files.writeString(names, "a\n".repeat(80));
            Files.writeString(data, "classes=80\nnames=" + names + "\n");
            Path sized = Files.createTempFile("argus-darknet", ".cfg");
            Files.writeString(sized, Files.readString(cfg).replaceAll("(?m)^\\s*width\\s*=.*$", "width=" + width)
                    .replaceAll("(?m)^\\s*height\\s*=.*$", "height=" + height)
                    .replaceAll("(?m)^\\s*batch\\s*=.*$", "batch=1")
                    .replaceAll("(?m)^\\s*subdivisions\\s*=.*$", "subdivisions=1"));
            ProcessBuilder pb = new ProcessBuilder(darknet.toString(), "detector", "test", data.toString(),
                    sized.toString(), weights.toString(), "-thresh", "0.99").redirectErrorStream(true)
                    .directory(Files.createTempDirectory("argus-darknet").toFile());
            // Debian's darknet is built with OpenCV/Qt and opens a window per result: no display needed
            pb.environment().put("QT_QPA_PLATFORM", "offscreen");
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + darknet + ": " + e.getMessage(), e);
        }
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    @Override
    public String name() { return "darknet"; }

    /** Darknet predicts one image per call; batch n runs n predictions. */
    @Override
    public void forward(int n) {
        double total = 0;
        for (int i = 0; i < n; i++) total += predictOnce();
        lastSeconds = total;
    }

    /** Seconds Darknet itself measured for the last forward call. */
    public double lastSeconds() { return lastSeconds; }

    private double predictOnce() {
        try {
            stdin.write(image + "\n");
            stdin.flush();
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = stdout.readLine()) != null) {
                Matcher m = PREDICTED.matcher(line);
                if (m.find()) return Double.parseDouble(m.group(1));
                if (seen.length() < 4000) seen.append(line).append('\n');
            }
            throw new IllegalStateException("darknet exited without a prediction; it printed:\n" + seen);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
    }
}
