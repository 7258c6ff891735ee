// (a) Frames to the network input in one pass: uint8 BGR of any size -> Darknet's resize (plain or letterbox on
// 0.5 grey) -> RGB / 255 -> FP16 NHWC with 8 channels (3 used, 5 zero) straight into the batch tensor.
// The float arithmetic follows Darknet's two-pass resize_image (and io.argus.detector.post.Preprocess), with
// rounding pinned (__fmul_rn etc.) so no multiply-add contraction changes the result.
#include "common.cuh"

// Where image b's bytes lie in the frame area and where it lands in the input; written by FrameInput.java
// (40 bytes, little-endian: long offset, then 8 ints).
struct FrameInfo {
    long long offset;
    int width, height, stride;
    int resizedW, resizedH, dx, dy;
    int pad;
};

__device__ __forceinline__ float byte_at(const unsigned char* im, int stride, int row, int col, int bgr) {
    return (float) im[(long long) row * stride + 3 * col + bgr] / 255.f;
}

// Darknet's horizontal pass: value of resized column c on source row `row`.
__device__ __forceinline__ float horizontal(const unsigned char* im, int stride, int imW, int w, float wScale,
                                            int row, int c, int bgr) {
    if (c == w - 1 || imW == 1) return byte_at(im, stride, row, imW - 1, bgr);
    float sx = __fmul_rn((float) c, wScale);
    int ix = (int) sx;
    float dx = __fsub_rn(sx, (float) ix);
    int ix1 = min(ix + 1, imW - 1);   // only differs when dx == 0
    return __fadd_rn(__fmul_rn(__fsub_rn(1.f, dx), byte_at(im, stride, row, ix, bgr)),
                     __fmul_rn(dx, byte_at(im, stride, row, ix1, bgr)));
}

extern "C" __global__ void letterbox_rgb_fp16(const unsigned char* frames, const FrameInfo* info, half_t* out,
                                              long long outImage, int netW, int netH, int n) {
    int b = blockIdx.y;
    if (b >= n) return;
    FrameInfo f = info[b];
    const unsigned char* im = frames + f.offset;
    int imW = f.width, imH = f.height, w = f.resizedW, h = f.resizedH;
    float wScale = (float) (imW - 1) / (float) (w - 1);
    float hScale = (float) (imH - 1) / (float) (h - 1);
    FOR_EACH(p, netW * netH) {
        int X = p % netW, Y = p / netW;
        int c = X - f.dx, r = Y - f.dy;
        float v[8] = {0.5f, 0.5f, 0.5f, 0.f, 0.f, 0.f, 0.f, 0.f};
        if (c >= 0 && r >= 0 && c < w && r < h) {
            float sy = __fmul_rn((float) r, hScale);
            int iy = (int) sy;
            float dy = __fsub_rn(sy, (float) iy);
            bool lastRow = r == h - 1 || imH == 1;
            int iy1 = min(iy + 1, imH - 1);
            for (int k = 0; k < 3; k++) {
                int bgr = 2 - k;   // channel 0 of the input is R, byte 2 of a BGR pixel
                float val = __fmul_rn(__fsub_rn(1.f, dy), horizontal(im, f.stride, imW, w, wScale, iy, c, bgr));
                if (!lastRow) {
                    val = __fadd_rn(val, __fmul_rn(dy, horizontal(im, f.stride, imW, w, wScale, iy1, c, bgr)));
                }
                v[k] = val;
            }
        }
        store8(out + b * outImage + (long long) p * 8, v);
    }
}
