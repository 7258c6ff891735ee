package io.argus.pipeline.video;

import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_BGR24;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_NV12;
import static org.bytedeco.ffmpeg.global.swscale.SWS_CS_ITU601;
import static org.bytedeco.ffmpeg.global.swscale.SWS_CS_ITU709;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCoefficients;
import static org.bytedeco.ffmpeg.global.swscale.sws_getContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;
import static org.bytedeco.ffmpeg.global.swscale.sws_setColorspaceDetails;

import io.argus.detector.BgrImage;
import io.argus.detector.yuv.Nv12Image;
import io.argus.detector.yuv.YuvColour;
import java.nio.ByteBuffer;
import java.util.Random;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;

/** NV12 test pictures (smooth colour fields plus noise, padded pitches) and FFmpeg swscale's view of them. */
final class Nv12Pictures {
    private Nv12Pictures() {}

    /**
     * A width x height picture with {@code pad} extra bytes at the end of every row of both planes (pitch > width,
     * as NVDEC's surfaces have), the padding filled with a value that would show if anyone read it. Full range
     * samples cover all 256 values; limited range ones the legal range (its extremes still clamp in RGB).
     */
    static Nv12Image picture(int width, int height, int pad, long seed, YuvColour.Range range) {
        Random random = new Random(seed);
        // limited range: legal samples only (Y 16..235, chroma 16..240); swscale wraps some far-illegal ones around
        int lo = range == YuvColour.Range.LIMITED ? 16 : 0;
        int yHi = range == YuvColour.Range.LIMITED ? 235 : 255;
        int cHi = range == YuvColour.Range.LIMITED ? 240 : 255;
        int lumaPitch = width + pad;
        int chromaPitch = 2 * Nv12Image.chromaWidth(width) + pad;
        int chromaRows = Nv12Image.chromaHeight(height);
        ByteBuffer luma = ByteBuffer.allocateDirect(lumaPitch * height);
        ByteBuffer chroma = ByteBuffer.allocateDirect(chromaPitch * chromaRows);
        for (int i = 0; i < luma.capacity(); i++) luma.put(i, (byte) 0xEE);
        for (int i = 0; i < chroma.capacity(); i++) chroma.put(i, (byte) 0x11);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int v = (int) (255.0 * (x + y) / (width + height)) + random.nextInt(41) - 20;
                luma.put(y * lumaPitch + x, (byte) Math.max(lo, Math.min(yHi, v)));
            }
        }
        for (int y = 0; y < chromaRows; y++) {
            for (int x = 0; x < Nv12Image.chromaWidth(width); x++) {
                int u = 128 + (int) (120 * Math.sin(0.21 * x + 0.05 * y)) + random.nextInt(9) - 4;
                int v = 128 + (int) (120 * Math.cos(0.13 * y - 0.07 * x)) + random.nextInt(9) - 4;
                chroma.put(y * chromaPitch + 2 * x, (byte) Math.max(lo, Math.min(cHi, u)));
                chroma.put(y * chromaPitch + 2 * x + 1, (byte) Math.max(lo, Math.min(cHi, v)));
            }
        }
        return new Nv12Image(width, height, lumaPitch, chromaPitch, luma, chroma);
    }

    /** FFmpeg's swscale NV12 -> BGR24 at the same size with {@code colour}'s matrix and range, output full range. */
    static BgrImage swscale(Nv12Image im, YuvColour colour, int flags) {
        int w = im.width();
        int h = im.height();
        SwsContext sws = sws_getContext(w, h, AV_PIX_FMT_NV12, w, h, AV_PIX_FMT_BGR24, flags, null, null,
                (double[]) null);
        if (sws == null) throw new IllegalStateException("sws_getContext failed");
        try {
            IntPointer matrix = sws_getCoefficients(colour.matrix() == YuvColour.Matrix.BT709 ? SWS_CS_ITU709 : SWS_CS_ITU601);
            int srcRange = colour.range() == YuvColour.Range.FULL ? 1 : 0;
            // brightness 0, contrast and saturation 1.0 in 16.16
            sws_setColorspaceDetails(sws, matrix, srcRange, sws_getCoefficients(SWS_CS_ITU601), 1, 0, 1 << 16, 1 << 16);
            BytePointer out = new BytePointer((long) 3 * w * h + 64);
            PointerPointer<BytePointer> src = new PointerPointer<>(new BytePointer(im.luma()), new BytePointer(im.chroma()),
                    null, null);
            PointerPointer<BytePointer> dst = new PointerPointer<>(out, null, null, null);
            IntPointer srcStride = new IntPointer(im.lumaPitch(), im.chromaPitch(), 0, 0);
            IntPointer dstStride = new IntPointer(3 * w, 0, 0, 0);
            int rows = sws_scale(sws, src, srcStride, 0, h, dst, dstStride);
            if (rows != h) throw new IllegalStateException("sws_scale wrote " + rows + " of " + h + " rows");
            byte[] bgr = new byte[3 * w * h];
            out.get(bgr);
            return BgrImage.of(w, h, bgr);
        } finally {
            sws_freeContext(sws);
        }
    }
}
