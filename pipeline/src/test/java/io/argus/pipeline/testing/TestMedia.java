package io.argus.pipeline.testing;

import io.argus.pipeline.camera.SampleVideo;
import io.argus.pipeline.cli.ProjectPaths;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Test videos made with the ffmpeg CLI (cached under target/test-media), free ports, project paths. */
public final class TestMedia {
    private TestMedia() {}

    public static Path home() { return ProjectPaths.home(); }

    public static Path cfg(String name) { return home().resolve("config/models/cfg").resolve(name); }

    public static Path cocoNames() { return home().resolve("config/models/coco.names"); }

    public static Path dir() throws IOException {
        Path d = home().resolve("pipeline/target/test-media");
        Files.createDirectories(d);
        return d;
    }

    /**
     * Where a shared media file is made before {@link #publish}: a name of this JVM's own, since the unit tier runs two
     * test JVMs side by side and both may make the same file at once ({@code suffix}: the container's, for FFmpeg).
     */
    public static Path scratchFor(Path out, String suffix) {
        return out.resolveSibling(out.getFileName() + "." + ProcessHandle.current().pid() + ".tmp" + suffix);
    }

    /** Puts a finished scratch file in place whole; another JVM that made the same file meanwhile made the same bytes. */
    public static void publish(Path scratch, Path out) throws IOException {
        Files.move(scratch, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** An H.264 testsrc2 video (moving colour pattern with a clock), keyframe every second. */
    public static synchronized Path h264(int width, int height, int fps, int seconds) throws IOException, InterruptedException {
        Path out = dir().resolve("testsrc2-" + width + "x" + height + "-" + fps + "fps-" + seconds + "s.mp4");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path tmp = scratchFor(out, ".mp4");
        run(List.of("ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
                "testsrc2=size=" + width + "x" + height + ":rate=" + fps, "-t", Integer.toString(seconds),
                "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
                "-g", Integer.toString(fps), "-bf", "0", tmp.toString()));
        publish(tmp, out);
        return out;
    }

    /**
     * {@code seconds} of a still grey picture at 25 fps, 320x240, keyframe each second, with a white square crossing
     * it from second {@code moveFrom} to {@code moveTo}: motion at a known time, nothing moving otherwise.
     */
    public static synchronized Path stillWithMotion(int seconds, int moveFrom, int moveTo) throws IOException, InterruptedException {
        Path out = dir().resolve("still-" + seconds + "s-motion-" + moveFrom + "-" + moveTo + ".mp4");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path tmp = scratchFor(out, ".mp4");
        run(List.of("ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=320x240:r=25:d=" + seconds,
                "-f", "lavfi", "-i", "color=c=white:s=60x60:r=25:d=" + seconds, "-filter_complex",
                "[0][1]overlay=x='(t-" + moveFrom + ")*260/" + (moveTo - moveFrom) + "':y=90:enable='between(t," + moveFrom + ","
                        + moveTo + ")'", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "25",
                "-keyint_min", "25", "-x264-params", "scenecut=0", "-bf", "0", tmp.toString()));
        publish(tmp, out);
        return out;
    }

    /** The bundled sample video (synthetic shapes scenes, {@link SampleVideo}) at {@code fps}. */
    public static synchronized Path shapes(int fps) throws IOException {
        Path out = dir().resolve("shapes-" + SampleVideo.WIDTH + "-" + fps + "fps.mp4");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path tmp = scratchFor(out, ".mp4");
        SampleVideo.write(tmp, fps);
        publish(tmp, out);
        return out;
    }

    static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    /**
     * A TCP port free now, for a server a test starts later (often in another process). Not the kernel's pick
     * ({@code bind(0)}): that comes from the ephemeral range, the same range the kernel hands to outgoing connections,
     * and a cluster node's own Hazelcast connections took such a port before its HTTP server bound it (CI, 2026-11-25:
     * "cannot listen on 127.0.0.1:36985: Address already in use"). So a random port below the ephemeral range, checked
     * by binding it; random so that tests running side by side rarely pick the same one.
     */
    public static int freePort() throws IOException {
        int[] ephemeral = ephemeralRange();
        int low = 10_000, high = Math.min(ephemeral[0], 32_768); // [low, high): never handed out by the kernel
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = random.nextInt(low, high);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new java.net.InetSocketAddress(port));
                return port;
            } catch (IOException taken) {
                // in use: try another
            }
        }
        throw new IOException("no free TCP port in [" + low + ", " + high + ") after 200 tries");
    }

    /** The kernel's ephemeral port range ({@code net.ipv4.ip_local_port_range}), Linux's default if unreadable. */
    private static int[] ephemeralRange() {
        try {
            String[] parts = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32_768, 60_999};
        }
    }
}
