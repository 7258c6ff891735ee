package io.argus.detector.onnx;

import io.argus.detector.BgrImage;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * How a family's models expect their input, and writing it: letterboxed (aspect kept) on a grey canvas of 114, resized
 * bilinearly with OpenCV's pixel-centre convention (cv2.resize INTER_LINEAR, in floating point); Ultralytics' families
 * (YOLOv5, YOLOv8, YOLO11, YOLOv9) centre the picture and feed RGB in 0..1, YOLOX puts it top-left and feeds BGR in
 * 0..255. Holds a scratch row so steady-state frames allocate nothing but the returned geometry.
 */
public final class OnnxInput {
    /** The two conventions. */
    public enum Convention { ULTRALYTICS, YOLOX }

    /** Where the picture landed: input pixel = source pixel x gain + pad. */
    public record Geometry(int imageWidth, int imageHeight, float gain, float padX, float padY) {
        /** A box of input pixels (centre, size) as fractions of the source image: {x, y, w, h}. */
        public float[] toImage(float cx, float cy, float w, float h) {
            return new float[] {(cx - padX) / gain / imageWidth, (cy - padY) / gain / imageHeight,
                    w / gain / imageWidth, h / gain / imageHeight};
        }
    }

    private static final float GREY = 114f;
    private final Convention convention;
    private final int[] placement = new int[4];   // resized width, height, left, top of the last write

    public OnnxInput(Convention convention) {
        this.convention = convention;
    }

    public Convention convention() { return convention; }

    /** Writes one image as 3 x netH x netW floats into {@code out} at {@code offset}. */
    public Geometry write(BgrImage image, int netWidth, int netHeight, FloatBuffer out, int offset) {
        int w = image.width(), h = image.height();
        Geometry geometry = place(convention, w, h, netWidth, netHeight, placement);
        int newW = placement[0], newH = placement[1], left = placement[2], top = placement[3];
        boolean rgb = convention == Convention.ULTRALYTICS;
        float scale = rgb ? 1f / 255 : 1f;
        int plane = netWidth * netHeight;
        float grey = GREY * scale;
        for (int i = 0; i < 3 * plane; i++) out.put(offset + i, grey);
        ByteBuffer px = image.pixels();
        int stride = image.stride();
        float fx = (float) w / newW, fy = (float) h / newH;
        for (int y = 0; y < newH; y++) {
            float sy = Math.max(0f, (y + 0.5f) * fy - 0.5f);
            int y0 = Math.min((int) sy, h - 1), y1 = Math.min(y0 + 1, h - 1);
            float dy = Math.min(sy - y0, 1f);
            int row = (top + y) * netWidth + left;
            for (int x = 0; x < newW; x++) {
                float sx = Math.max(0f, (x + 0.5f) * fx - 0.5f);
                int x0 = Math.min((int) sx, w - 1), x1 = Math.min(x0 + 1, w - 1);
                float dx = Math.min(sx - x0, 1f);
                int p00 = y0 * stride + 3 * x0, p01 = y0 * stride + 3 * x1;
                int p10 = y1 * stride + 3 * x0, p11 = y1 * stride + 3 * x1;
                for (int c = 0; c < 3; c++) {      // c: B, G, R in the source
                    float top0 = (px.get(p00 + c) & 0xff) * (1 - dx) + (px.get(p01 + c) & 0xff) * dx;
                    float bottom = (px.get(p10 + c) & 0xff) * (1 - dx) + (px.get(p11 + c) & 0xff) * dx;
                    float v = (top0 * (1 - dy) + bottom * dy) * scale;
                    int channel = rgb ? 2 - c : c;
                    out.put(offset + channel * plane + row + x, v);
                }
            }
        }
        return geometry;
    }

    /**
     * Where a w x h picture goes in the input, for the CPU's {@link #write} and the GPU's preprocess kernel alike: gain
     * min(netH / h, netW / w); Ultralytics' LetterBox rounds the resized size and splits the padding with
     * round(d -/+ 0.1); YOLOX truncates and puts the picture top-left. {@code placement} receives the resized width and
     * height (at least 1, at most the input's) and the left and top offsets.
     */
    public static Geometry place(Convention convention, int w, int h, int netWidth, int netHeight, int[] placement) {
        float gain = Math.min((float) netHeight / h, (float) netWidth / w);
        int newW, newH, left, top;
        if (convention == Convention.ULTRALYTICS) {
            newW = Math.round(w * gain);
            newH = Math.round(h * gain);
            left = Math.round((netWidth - newW) / 2f - 0.1f);
            top = Math.round((netHeight - newH) / 2f - 0.1f);
        } else {
            newW = (int) (w * gain);
            newH = (int) (h * gain);
            left = 0;
            top = 0;
        }
        placement[0] = Math.max(1, Math.min(netWidth, newW));
        placement[1] = Math.max(1, Math.min(netHeight, newH));
        placement[2] = left;
        placement[3] = top;
        return new Geometry(w, h, gain, left, top);
    }
}
