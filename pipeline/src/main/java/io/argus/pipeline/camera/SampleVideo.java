package io.argus.pipeline.camera;

import io.argus.pipeline.base.StartupProgress;
import io.argus.pipeline.video.Mp4Writer;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.loss.Truth;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo camera of the bundled config ({@code url: sample:}): an H.264 video of the synthetic shapes scenes the demo
 * model (config/models/demo.*) was trained on, generated once into the cache directory with JavaCV (no ffmpeg binary
 * needed). Each scene is {@link SyntheticScenes#render rendered} at the demo's 128x128 input, shown scaled up
 * {@value #SCALE}x for {@value #SCENE_MS} ms while it zooms in slowly, so a new user sees real detections that move.
 * The scenes come from a seed the demo model never saw in training ({@value #SCENE_SEED}; it was trained on seed 7).
 *
 * <p>The ground truth of any frame follows from its presentation time ({@link #truthsAt}), so tests and the annotation
 * workflow can check boxes against what was drawn.
 */
public final class SampleVideo {
    public static final int SCENE_SIZE = 128;
    public static final int SCALE = 3;
    public static final int WIDTH = SCENE_SIZE * SCALE;
    public static final int HEIGHT = SCENE_SIZE * SCALE;
    public static final int FPS = 25;
    public static final int SCENES = 40;
    public static final long SCENE_MS = 2000;
    public static final long SCENE_SEED = 11;
    /** The zoom reached at the end of a scene (about the image centre). */
    static final double ZOOM = 0.08;
    private static final String NAME = "sample-shapes-v1.mp4";

    private SampleVideo() {}

    /** The sample video in {@code cacheDir}, generated first when missing. */
    public static Path ensure(Path cacheDir) throws IOException {
        return ensure(cacheDir, StartupProgress.NONE);
    }

    /** As {@link #ensure(Path)}; a generation (first start only, seconds) is a step of {@code progress}. */
    public static synchronized Path ensure(Path cacheDir, StartupProgress progress) throws IOException {
        Path out = cacheDir.resolve(NAME);
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        StartupProgress.Step step = progress.step("generating the sample video (first start only, " + SCENES + " scenes)");
        try {
            generate(cacheDir, out);
            step.done();
        } catch (IOException | RuntimeException e) {
            step.failed(e);
            throw e;
        }
        return out;
    }

    private static void generate(Path cacheDir, Path out) throws IOException {
        Files.createDirectories(cacheDir);
        Path tmp = cacheDir.resolve(NAME + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            write(tmp, FPS);
            Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Length of the video in ms (it loops). */
    public static long durationMs() { return SCENES * SCENE_MS; }

    /** Scene index and progress (0..1) through it at presentation time {@code ptsMs} (looping). */
    static int scene(double ptsMs) {
        long t = Math.floorMod(Math.round(ptsMs), durationMs());
        return (int) (t / SCENE_MS);
    }

    static double progress(double ptsMs) {
        long t = Math.floorMod(Math.round(ptsMs), durationMs());
        return (t % SCENE_MS) / (double) SCENE_MS;
    }

    /**
     * The objects visible in the frame shown at {@code ptsMs}, in video pixels: each rendered scene box zoomed as the
     * frame was, clipped to the frame; boxes mostly out of view are left out.
     */
    public static List<Labeled> truthsAt(double ptsMs) {
        SyntheticScenes.Scene s = SyntheticScenes.render(SCENE_SIZE, SCENE_SIZE, SCENE_SEED, scene(ptsMs));
        double z = zoom(progress(ptsMs));
        List<Labeled> out = new ArrayList<>();
        for (Truth t : s.truths()) {
            double x0 = map(t.left() * WIDTH, WIDTH, z), x1 = map(t.right() * WIDTH, WIDTH, z);
            double y0 = map(t.top() * HEIGHT, HEIGHT, z), y1 = map(t.bottom() * HEIGHT, HEIGHT, z);
            double cx0 = Math.max(0, x0), cx1 = Math.min(WIDTH, x1), cy0 = Math.max(0, y0), cy1 = Math.min(HEIGHT, y1);
            if (cx1 <= cx0 || cy1 <= cy0) continue;
            if ((cx1 - cx0) * (cy1 - cy0) < 0.5 * (x1 - x0) * (y1 - y0)) continue;
            out.add(new Labeled(t.classId(), SyntheticScenes.CLASSES.get(t.classId()), cx0, cy0, cx1 - cx0, cy1 - cy0));
        }
        return out;
    }

    /** An object of the sample video: class and box (left, top, width, height) in video pixels. */
    public record Labeled(int classId, String className, double x, double y, double w, double h) {}

    private static double zoom(double progress) { return 1 + ZOOM * progress; }

    /** Where a coordinate of the unzoomed frame lands after zooming about the centre. */
    private static double map(double v, int size, double zoom) { return size / 2.0 + (v - size / 2.0) * zoom; }

    /** Writes the whole video at {@code fps} (tests use a lower rate than {@link #FPS}). */
    public static void write(Path file, int fps) throws IOException {
        BufferedImage canvas = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_3BYTE_BGR);
        int[] rendered = {-1};
        BufferedImage[] scene = {null};
        Mp4Writer.write(file, WIDTH, HEIGHT, fps, 2_000_000, durationMs() * fps / 1000, n -> {
            double pts = (n - 1) * 1000.0 / fps;
            int s = scene(pts);
            if (s != rendered[0]) {   // a scene is rendered once, then zoomed frame by frame
                scene[0] = SyntheticScenes.render(SCENE_SIZE, SCENE_SIZE, SCENE_SEED, s).image();
                rendered[0] = s;
            }
            draw(canvas, scene[0], zoom(progress(pts)));
            return canvas;
        });
    }

    /** The scene scaled to the frame and zoomed about its centre. */
    private static void draw(BufferedImage canvas, BufferedImage scene, double zoom) {
        Graphics2D g = canvas.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        double w = WIDTH * zoom, h = HEIGHT * zoom;
        g.translate(WIDTH / 2.0 - w / 2, HEIGHT / 2.0 - h / 2);
        g.scale(w / SCENE_SIZE, h / SCENE_SIZE);
        g.drawImage(scene, 0, 0, null);
        g.dispose();
    }
}
