// (a) A decoded NV12 surface (NVDEC's output, still on the GPU) to one slot of the network input in one pass:
// YUV -> RGB bytes with the stream's matrix and range -> Darknet's resize (plain or letterbox on 0.5 grey) -> / 255
// -> FP16 NHWC straight into the batch tensor. The colour step is fixed-point integer arithmetic whose coefficients
// the caller passes (io.argus.detector.yuv.YuvColour computes them, and its CPU reference Nv12Image uses the same
// integers), so every pixel's RGB bytes equal the reference's exactly; the resize is preprocess.cu's float
// arithmetic, rounding pinned, over those bytes. So this kernel equals "NV12 -> BGR bytes, then the BGR path".
#include "common.cuh"

// Fixed-point YUV -> RGB: value = (yScale * (Y - yOffset) + cU * (U - 128) + cV * (V - 128) + 2^15) >> 16, clamped
// to a byte. Chroma is taken at (col / 2, row / 2), as swscale's unscaled 4:2:0 converters do (the CPU decode path).
struct YuvCoefficients {
    int yScale, yOffset, rV, gU, gV, bU;
};

__device__ __forceinline__ int clamp_byte(int v) {
    return v < 0 ? 0 : (v > 255 ? 255 : v);
}

// RGB of source pixel (row, col) as floats in [0, 1] (byte / 255, as preprocess.cu's byte_at).
__device__ __forceinline__ void rgb_at(const unsigned char* luma, const unsigned char* chroma, int lumaPitch,
                                       int chromaPitch, const YuvCoefficients& k, int row, int col, float* rgb) {
    int y = (int) luma[(long long) row * lumaPitch + col] - k.yOffset;
    const unsigned char* uv = chroma + (long long) (row >> 1) * chromaPitch + 2 * (col >> 1);
    int u = (int) uv[0] - 128;
    int v = (int) uv[1] - 128;
    int ys = k.yScale * y + 32768;
    rgb[0] = (float) clamp_byte((ys + k.rV * v) >> 16) / 255.f;
    rgb[1] = (float) clamp_byte((ys + k.gU * u + k.gV * v) >> 16) / 255.f;
    rgb[2] = (float) clamp_byte((ys + k.bU * u) >> 16) / 255.f;
}

// Darknet's horizontal pass (preprocess.cu's `horizontal`, three channels at once): resized column c on `row`.
__device__ __forceinline__ void horizontal3(const unsigned char* luma, const unsigned char* chroma, int lumaPitch,
                                            int chromaPitch, const YuvCoefficients& k, int imW, int w, float wScale,
                                            int row, int c, float* out) {
    if (c == w - 1 || imW == 1) {
        rgb_at(luma, chroma, lumaPitch, chromaPitch, k, row, imW - 1, out);
        return;
    }
    float sx = __fmul_rn((float) c, wScale);
    int ix = (int) sx;
    float dx = __fsub_rn(sx, (float) ix);
    int ix1 = min(ix + 1, imW - 1);   // only differs when dx == 0
    float a[3], b[3];
    rgb_at(luma, chroma, lumaPitch, chromaPitch, k, row, ix, a);
    rgb_at(luma, chroma, lumaPitch, chromaPitch, k, row, ix1, b);
    for (int i = 0; i < 3; i++) {
        out[i] = __fadd_rn(__fmul_rn(__fsub_rn(1.f, dx), a[i]), __fmul_rn(dx, b[i]));
    }
}

// One image (batch slot `slot`) of netW x netH written into an NHWC view (imageStride, pixelStride, channelOffset in
// elements). A view of whole 4- or 8-channel pixels gets 8- or 16-byte stores with the channels past 3 zeroed (as
// preprocess.cu); any other view gets its three channels only.
extern "C" __global__ void nv12_letterbox_rgb_fp16(const unsigned char* luma, const unsigned char* chroma,
                                                   int lumaPitch, int chromaPitch, int width, int height,
                                                   int resizedW, int resizedH, int offsetX, int offsetY,
                                                   int yScale, int yOffset, int rV, int gU, int gV, int bU,
                                                   half_t* out, long long imageStride,
                                                   int pixelStride, int channelOffset, int slot, int netW, int netH) {
    // six ints, not a struct argument: KernelLaunch's slots are 8 bytes each
    YuvCoefficients k = {yScale, yOffset, rV, gU, gV, bU};
    int imW = width, imH = height, w = resizedW, h = resizedH;
    float wScale = (float) (imW - 1) / (float) (w - 1);
    float hScale = (float) (imH - 1) / (float) (h - 1);
    bool whole = (pixelStride == 8 || pixelStride == 4) && channelOffset == 0;
    FOR_EACH(p, netW * netH) {
        int X = p % netW, Y = p / netW;
        int c = X - offsetX, r = Y - offsetY;
        float v[8] = {0.5f, 0.5f, 0.5f, 0.f, 0.f, 0.f, 0.f, 0.f};
        if (c >= 0 && r >= 0 && c < w && r < h) {
            float sy = __fmul_rn((float) r, hScale);
            int iy = (int) sy;
            float dy = __fsub_rn(sy, (float) iy);
            bool lastRow = r == h - 1 || imH == 1;
            int iy1 = min(iy + 1, imH - 1);
            float top[3], bottom[3];
            horizontal3(luma, chroma, lumaPitch, chromaPitch, k, imW, w, wScale, iy, c, top);
            if (!lastRow) horizontal3(luma, chroma, lumaPitch, chromaPitch, k, imW, w, wScale, iy1, c, bottom);
            for (int i = 0; i < 3; i++) {
                float val = __fmul_rn(__fsub_rn(1.f, dy), top[i]);
                if (!lastRow) val = __fadd_rn(val, __fmul_rn(dy, bottom[i]));
                v[i] = val;
            }
        }
        long long o = at(slot, imageStride, p, pixelStride, channelOffset, 0);
        if (whole) {
            store_pixel(out + o, v, pixelStride);
        } else {
            for (int i = 0; i < 3; i++) out[o + i] = f2h(v[i]);
        }
    }
}
