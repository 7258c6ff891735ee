package io.argus.detector;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import javax.imageio.stream.ImageInputStream;

/**
 * An 8-bit BGR image, as FFmpeg, OpenCV and Darknet hand them around: {@code height} rows of {@code stride} bytes,
 * 3 bytes per pixel. The buffer may be direct (a pooled off-heap frame) or heap; it is read from index 0.
 */
public record BgrImage(int width, int height, int stride, ByteBuffer pixels) implements Picture {
    public BgrImage {
        if (width <= 0 || height <= 0) throw new IllegalArgumentException("image size " + width + "x" + height);
        if (stride < 3 * width) throw new IllegalArgumentException("stride " + stride + " < 3 x width " + width);
        long need = (long) stride * (height - 1) + 3L * width;
        if (pixels.capacity() < need) {
            throw new IllegalArgumentException("pixel buffer holds " + pixels.capacity() + " bytes, a " + width + "x"
                    + height + " BGR image with stride " + stride + " needs " + need);
        }
    }

    public static BgrImage of(int width, int height, byte[] bgr) {
        return new BgrImage(width, height, width * 3, ByteBuffer.wrap(bgr));
    }

    /** Decodes a JPEG/PNG/BMP file; fails with the path and the reason when it cannot. */
    public static BgrImage read(Path file) {
        BufferedImage img;
        try {
            if (!Files.isRegularFile(file)) throw noSuchImage(file);
            img = ImageIO.read(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": cannot decode image: " + e.getMessage(), e));
        }
        if (img == null) throw notAnImage(file);
        return fromBufferedImage(img);
    }

    /**
     * Fails as {@link #read} would on a file that is missing or not in a format it decodes, from the file's first bytes
     * alone (no decoding): a command checks every image it is given before building a network.
     */
    public static void checkReadable(Path file) {
        if (!Files.isRegularFile(file)) throw noSuchImage(file);
        try (ImageInputStream in = ImageIO.createImageInputStream(file.toFile())) {
            if (in == null || !ImageIO.getImageReaders(in).hasNext()) throw notAnImage(file);
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException(file + ": cannot read image: " + e.getMessage(), e));
        }
    }

    private static UncheckedIOException noSuchImage(Path file) {
        return new UncheckedIOException(new IOException(file + ": no such image file"));
    }

    private static UncheckedIOException notAnImage(Path file) {
        return new UncheckedIOException(new IOException(file + ": not a readable image (expected JPEG, PNG or BMP)"));
    }

    public static BgrImage fromBufferedImage(BufferedImage img) {
        BufferedImage bgr = img;
        if (img.getType() != BufferedImage.TYPE_3BYTE_BGR) {
            bgr = new BufferedImage(img.getWidth(), img.getHeight(), BufferedImage.TYPE_3BYTE_BGR);
            bgr.getGraphics().drawImage(img, 0, 0, null);
        }
        byte[] data = ((DataBufferByte) bgr.getRaster().getDataBuffer()).getData();
        return of(bgr.getWidth(), bgr.getHeight(), data);
    }

    /** Copies into a BufferedImage (for drawing annotated output). */
    public BufferedImage toBufferedImage() {
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        byte[] data = ((DataBufferByte) out.getRaster().getDataBuffer()).getData();
        for (int y = 0; y < height; y++) pixels.get(y * stride, data, y * width * 3, width * 3);
        return out;
    }

    /** Byte of channel c (0=B, 1=G, 2=R) at (x, y), as 0..255. */
    public int at(int x, int y, int c) {
        return pixels.get(y * stride + 3 * x + c) & 0xff;
    }
}
