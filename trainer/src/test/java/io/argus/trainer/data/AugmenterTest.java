package io.argus.trainer.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The augmenter's fast resampling (column and row positions computed once, bytes read straight from the image) gives
 * the very floats of the direct formula, each pixel sampled through {@link BgrImage#at}, which training results and
 * the demo model's reproducibility were made with: crops inside and beyond the image, flipped or not, whole inputs and
 * mosaic tiles, images with padded rows and in direct buffers.
 */
class AugmenterTest {
    /** The direct formula: per output pixel and channel, four neighbours read through at(), grey outside. */
    static void reference(BgrImage img, double left, double top, double cropW, double cropH, boolean flip, int netW,
                          int netH, int tx, int ty, int tw, int th, float[] out, int offset) {
        int plane = netW * netH;
        int w = img.width();
        int h = img.height();
        double sx = cropW / tw;
        double sy = cropH / th;
        for (int v = 0; v < th; v++) {
            double fy = top + (v + 0.5) * sy - 0.5;
            int y0 = (int) Math.floor(fy);
            float ay = (float) (fy - y0);
            int row = offset + (ty + v) * netW + tx;
            for (int u = 0; u < tw; u++) {
                int su = flip ? tw - 1 - u : u;
                double fx = left + (su + 0.5) * sx - 0.5;
                int x0 = (int) Math.floor(fx);
                float ax = (float) (fx - x0);
                for (int c = 0; c < 3; c++) {
                    int bgr = 2 - c;
                    float p00 = px(img, x0, y0, bgr, w, h);
                    float p10 = px(img, x0 + 1, y0, bgr, w, h);
                    float p01 = px(img, x0, y0 + 1, bgr, w, h);
                    float p11 = px(img, x0 + 1, y0 + 1, bgr, w, h);
                    float top2 = p00 + ax * (p10 - p00);
                    float bottom2 = p01 + ax * (p11 - p01);
                    out[row + u + c * plane] = top2 + ay * (bottom2 - top2);
                }
            }
        }
    }

    static float px(BgrImage img, int x, int y, int channel, int w, int h) {
        if (x < 0 || y < 0 || x >= w || y >= h) return 0.5f;
        return img.at(x, y, channel) / 255f;
    }

    static BgrImage randomImage(SplittableRandom rnd, int w, int h, int padding, boolean direct) {
        int stride = 3 * w + padding;
        byte[] bytes = new byte[stride * h];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) rnd.nextInt(256);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length).put(bytes).clear() : ByteBuffer.wrap(bytes);
        return new BgrImage(w, h, stride, b);
    }

    @Test
    void fastResamplingGivesTheDirectFormulasFloatsBitForBit() {
        SplittableRandom rnd = new SplittableRandom(5);
        int compared = 0;
        for (int trial = 0; trial < 200; trial++) {
            BgrImage img = randomImage(rnd, 20 + rnd.nextInt(140), 20 + rnd.nextInt(140), trial % 3 == 0 ? 5 : 0,
                    trial % 7 == 0);
            int netW = 32 + rnd.nextInt(100);
            int netH = 32 + rnd.nextInt(100);
            // a crop that may reach past any edge (jitter), or lie wholly inside
            double left = rnd.nextDouble(-0.4, 0.4) * img.width();
            double top = rnd.nextDouble(-0.4, 0.4) * img.height();
            double cropW = Math.max(1, img.width() * rnd.nextDouble(0.3, 1.6));
            double cropH = Math.max(1, img.height() * rnd.nextDouble(0.3, 1.6));
            boolean flip = rnd.nextBoolean();
            boolean mosaicTile = rnd.nextBoolean();
            int tx = mosaicTile ? rnd.nextInt(netW / 2) : 0;
            int ty = mosaicTile ? rnd.nextInt(netH / 2) : 0;
            int tw = mosaicTile ? 1 + rnd.nextInt(netW - tx) : netW;
            int th = mosaicTile ? 1 + rnd.nextInt(netH - ty) : netH;
            int offset = rnd.nextInt(3) * 3 * netW * netH;
            float[] expected = new float[offset + 3 * netW * netH];
            float[] actual = expected.clone();
            reference(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, expected, offset);
            Augmenter.resample(img, left, top, cropW, cropH, flip, netW, netH, tx, ty, tw, th, actual, offset);
            assertArrayEquals(expected, actual, "trial " + trial);
            compared += tw * th;
        }
        assertTrue(compared > 100_000, compared + " pixels compared");
    }
}
