package io.argus.pipeline.camera;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameRecorder;
import org.bytedeco.javacv.Java2DFrameConverter;

/**
 * The demo camera of the bundled config ({@code url: sample:}): a 640x360 H.264 video generated once into the cache
 * directory with JavaCV (no ffmpeg binary needed): a slow pan over the shipped sample photos (config/samples), so a
 * trained model finds dogs, people and horses in it.
 */
public final class SampleVideo {
    public static final int WIDTH = 640;
    public static final int HEIGHT = 360;
    public static final int FPS = 25;
    private static final int SECONDS_PER_IMAGE = 3;
    private static final String NAME = "sample-v1.mp4";

    private SampleVideo() {}

    /** The sample video in {@code cacheDir}, generated first when missing. {@code photos}: a directory of JPEGs or null. */
    public static synchronized Path ensure(Path cacheDir, Path photos) throws IOException {
        Path out = cacheDir.resolve(NAME);
        if (Files.isRegularFile(out) && Files.size(out) > 0) return out;
        Files.createDirectories(cacheDir);
        Path tmp = cacheDir.resolve(NAME + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            write(tmp, images(photos));
            Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return out;
    }

    private static List<BufferedImage> images(Path photos) throws IOException {
        List<BufferedImage> out = new ArrayList<>();
        if (photos != null && Files.isDirectory(photos)) {
            try (Stream<Path> files = Files.list(photos)) {
                for (Path p : files.filter(f -> f.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".jpg")).sorted().toList()) {
                    BufferedImage img = ImageIO.read(p.toFile());
                    if (img != null) out.add(img);
                }
            }
        }
        if (out.isEmpty()) out.add(synthetic());
        return out;
    }

    private static BufferedImage synthetic() {
        BufferedImage img = new BufferedImage(WIDTH * 2, HEIGHT * 2, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = img.createGraphics();
        for (int i = 0; i < 12; i++) {
            g.setColor(Color.getHSBColor(i / 12f, 0.7f, 0.9f));
            g.fillRect((i * 97) % (WIDTH * 2 - 200), (i * 53) % (HEIGHT * 2 - 150), 200, 150);
        }
        g.dispose();
        return img;
    }

    private static void write(Path file, List<BufferedImage> images) throws IOException {
        try {
            record(file, images, "libopenh264", avcodec.AV_CODEC_ID_H264);
        } catch (Exception e) {
            Files.deleteIfExists(file);
            try {
                record(file, images, null, avcodec.AV_CODEC_ID_MPEG4); // FFmpeg's own encoder, always present
            } catch (Exception e2) {
                throw new IOException("cannot write the sample video " + file + ": " + e2.getMessage(), e2);
            }
        }
    }

    private static void record(Path file, List<BufferedImage> images, String codecName, int codecId) throws Exception {
        try (FFmpegFrameRecorder r = new FFmpegFrameRecorder(file.toFile(), WIDTH, HEIGHT, 0);
             Java2DFrameConverter conv = new Java2DFrameConverter()) {
            r.setFormat("mp4");
            r.setFrameRate(FPS);
            r.setGopSize(FPS);
            r.setVideoCodec(codecId);
            if (codecName != null) r.setVideoCodecName(codecName);
            r.setPixelFormat(avutil.AV_PIX_FMT_YUV420P);
            r.setVideoBitrate(1_500_000);
            r.start();
            BufferedImage canvas = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_3BYTE_BGR);
            int perImage = FPS * SECONDS_PER_IMAGE;
            int frame = 0;
            for (BufferedImage img : images) {
                for (int i = 0; i < perImage; i++, frame++) {
                    draw(canvas, img, i / (double) perImage, frame);
                    r.record(conv.convert(canvas));
                }
            }
            r.stop();
        }
    }

    /** Cover-fits the photo and pans/zooms it slowly with progress t in [0, 1). */
    private static void draw(BufferedImage canvas, BufferedImage img, double t, int frame) {
        Graphics2D g = canvas.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        double cover = Math.max(WIDTH / (double) img.getWidth(), HEIGHT / (double) img.getHeight());
        double zoom = cover * (1.0 + 0.12 * t);
        int w = (int) Math.ceil(img.getWidth() * zoom);
        int h = (int) Math.ceil(img.getHeight() * zoom);
        int x = (int) Math.round(-(w - WIDTH) * t);
        int y = (int) Math.round(-(h - HEIGHT) * (0.5 + 0.3 * (t - 0.5)));
        g.setColor(Color.BLACK);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        g.drawImage(img, x, y, w, h, null);
        g.setFont(new Font(Font.MONOSPACED, Font.BOLD, 14));
        g.setColor(Color.WHITE);
        g.drawString("argus sample  frame " + frame, 8, HEIGHT - 10);
        g.dispose();
    }
}
