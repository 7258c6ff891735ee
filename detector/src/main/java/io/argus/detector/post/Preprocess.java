package io.argus.detector.post;

import io.argus.detector.BgrImage;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * Darknet's pre-processing on the CPU: BGR bytes to planar RGB floats in [0,1], resized with Darknet's own
 * separable bilinear {@code resize_image} (not OpenCV's), optionally letterboxed on a 0.5 grey canvas.
 * Holds scratch space that grows to the largest image seen, so steady-state frames allocate nothing.
 */
public final class Preprocess {
    private float[] source = new float[0];   // planar RGB of the source image
    private float[] part = new float[0];     // after the horizontal pass

    /** Writes one image into {@code out} at {@code offset} as 3 x netH x netW floats; returns where it landed. */
    public InputGeometry into(BgrImage image, int netWidth, int netHeight, boolean letterbox, FloatBuffer out,
                              int offset) {
        write(image, netWidth, netHeight, letterbox, out, offset);
        return InputGeometry.of(netWidth, netHeight, image.width(), image.height(), letterbox);
    }

    /** As {@link #into} without the geometry: allocates nothing once the scratch space has grown. */
    public void write(BgrImage image, int netWidth, int netHeight, boolean letterbox, FloatBuffer out, int offset) {
        int w = image.width();
        int h = image.height();
        loadRgb(image);
        if (!letterbox) {
            resize(source, w, h, out, offset, netWidth, netHeight, 0, 0, netWidth, netHeight);
            return;
        }
        // Darknet's letterbox_image; the same rule as InputGeometry.of, kept in locals so a frame allocates nothing
        int newW;
        int newH;
        if ((float) netWidth / w < (float) netHeight / h) {
            newW = netWidth;
            newH = h * netWidth / w;
        } else {
            newH = netHeight;
            newW = w * netHeight / h;
        }
        int plane = netWidth * netHeight;
        for (int i = 0; i < 3 * plane; i++) out.put(offset + i, 0.5f);
        resize(source, w, h, out, offset, netWidth, netHeight, (netWidth - newW) / 2, (netHeight - newH) / 2, newW,
                newH);
    }

    private void loadRgb(BgrImage image) {
        int w = image.width();
        int h = image.height();
        int plane = w * h;
        if (source.length < 3 * plane) source = new float[3 * plane];
        ByteBuffer px = image.pixels();
        int stride = image.stride();
        for (int y = 0; y < h; y++) {
            int row = y * stride;
            int o = y * w;
            for (int x = 0; x < w; x++) {
                int p = row + 3 * x;
                source[o + x] = (px.get(p + 2) & 0xff) / 255f;             // R
                source[plane + o + x] = (px.get(p + 1) & 0xff) / 255f;     // G
                source[2 * plane + o + x] = (px.get(p) & 0xff) / 255f;     // B
            }
        }
    }

    /**
     * Darknet's resize_image of a planar (imW x imH x 3) image to (w x h), written into a canvas of canvasW x canvasH
     * at (dx, dy). Float arithmetic as in the C code so results match Darknet bit for bit where the compiler does.
     */
    void resize(float[] im, int imW, int imH, FloatBuffer out, int offset, int canvasW, int canvasH, int dx, int dy,
                int w, int h) {
        int imPlane = imW * imH;
        int canvasPlane = canvasW * canvasH;
        if (part.length < w * imH * 3) part = new float[w * imH * 3];
        float wScale = (float) (imW - 1) / (w - 1);
        float hScale = (float) (imH - 1) / (h - 1);
        int partPlane = w * imH;
        for (int k = 0; k < 3; k++) {
            for (int r = 0; r < imH; r++) {
                int src = k * imPlane + r * imW;
                int dst = k * partPlane + r * w;
                for (int c = 0; c < w; c++) {
                    float val;
                    if (c == w - 1 || imW == 1) {
                        val = im[src + imW - 1];
                    } else {
                        float sx = c * wScale;
                        int ix = (int) sx;
                        float ddx = sx - ix;
                        val = (1 - ddx) * im[src + ix] + ddx * im[src + ix + 1];
                    }
                    part[dst + c] = val;
                }
            }
        }
        for (int k = 0; k < 3; k++) {
            for (int r = 0; r < h; r++) {
                float sy = r * hScale;
                int iy = (int) sy;
                float ddy = sy - iy;
                int dst = offset + k * canvasPlane + (r + dy) * canvasW + dx;
                int p0 = k * partPlane + iy * w;
                boolean last = r == h - 1 || imH == 1;
                int p1 = last ? p0 : p0 + w;
                for (int c = 0; c < w; c++) {
                    float val = (1 - ddy) * part[p0 + c];
                    if (!last) val = val + ddy * part[p1 + c];
                    out.put(dst + c, val);
                }
            }
        }
    }
}
