package io.argus.detector.cuda;

import io.argus.detector.Picture;
import io.argus.detector.yuv.YuvColour;

/**
 * A decoded NV12 picture that lives on the GPU (an NVDEC surface, or any device memory laid out the same way):
 * device addresses of the luma plane and of the interleaved U, V plane, their row pitches in bytes, the picture's
 * size (odd sizes allowed: the chroma plane covers ceil(width / 2) x ceil(height / 2) pairs) and how its samples
 * become RGB. The memory belongs to whoever decoded it; it must stay valid until the conversion kernel has run.
 */
public record Nv12Surface(long luma, long chroma, int lumaPitch, int chromaPitch, int width, int height,
                          YuvColour colour) implements Picture {
    public Nv12Surface {
        if (luma == 0 || chroma == 0) throw new IllegalArgumentException("NV12 surface without planes");
        if (width < 1 || height < 1) throw new IllegalArgumentException("NV12 surface of " + width + "x" + height);
        if (lumaPitch < width || chromaPitch < 2 * ((width + 1) / 2)) {
            throw new IllegalArgumentException("NV12 pitches " + lumaPitch + "/" + chromaPitch + " too small for width "
                    + width);
        }
        if (colour == null) throw new IllegalArgumentException("NV12 surface without a colour description");
    }
}
