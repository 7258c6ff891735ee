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

    /** An H.264 testsrc2 video (moving colour pattern with a clock), keyframe every second. */
    public static synchronized Path h264(int width, int height, int fps, int seconds) throws IOException, InterruptedException {
        Path out = dir().resolve("testsrc2-" + width + "x" + height + "-" + fps + "fps-" + seconds + "s.mp4");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path tmp = dir().resolve(out.getFileName() + ".tmp.mp4");
        run(List.of("ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
                "testsrc2=size=" + width + "x" + height + ":rate=" + fps, "-t", Integer.toString(seconds),
                "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
                "-g", Integer.toString(fps), "-bf", "0", tmp.toString()));
        Files.move(tmp, out);
        return out;
    }

    /** The bundled sample video (synthetic shapes scenes, {@link SampleVideo}) at {@code fps}. */
    public static synchronized Path shapes(int fps) throws IOException {
        Path out = dir().resolve("shapes-" + SampleVideo.WIDTH + "-" + fps + "fps.mp4");
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Path tmp = dir().resolve(out.getFileName() + ".tmp.mp4");
        SampleVideo.write(tmp, fps);
        Files.move(tmp, out);
        return out;
    }

    static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
