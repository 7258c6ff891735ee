// (a) Frames to the network input in one pass: uint8 BGR of any size -> resize -> FP16 NHWC with 4 or 8 channels (3
// used, the rest zero: pixelStride) straight into the batch tensor. Two conventions, chosen per network:
//  - Darknet's (convention 0): its two-pass resize_image, plain or letterboxed on 0.5 grey, RGB / 255, as
//    io.argus.detector.post.Preprocess;
//  - an imported model's (io.argus.detector.onnx.OnnxInput): letterboxed on a grey of 114 (where it lands is the
//    host's choice: centred with Ultralytics' rounding, or top-left for YOLOX), bilinear with pixel centres
//    (cv2.resize INTER_LINEAR in floating point), then RGB x scale (convention 1, scale 1/255) or BGR as is
//    (convention 2, scale 1).
// The float arithmetic is the CPU reference's with rounding pinned (__fmul_rn etc.), so no multiply-add contraction
// changes the result and the tensor equals the reference's bit for bit.
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

#define CONVENTION_DARKNET 0
#define CONVENTION_RGB 1
#define CONVENTION_BGR 2

// OnnxInput.write's value of channel `bgr` (0 B, 1 G, 2 R) at resized pixel (c, r): source sample at
// (c + 0.5) * imW / w - 0.5, clamped at 0, the far neighbour clamped to the last pixel.
__device__ __forceinline__ float bilinear_centres(const unsigned char* im, int stride, int imW, int imH, float fx,
                                                  float fy, int c, int r, int bgr, float scale) {
    float sy = fmaxf(0.f, __fsub_rn(__fmul_rn(__fadd_rn((float) r, 0.5f), fy), 0.5f));
    int y0 = min((int) sy, imH - 1), y1 = min(y0 + 1, imH - 1);
    float dy = fminf(__fsub_rn(sy, (float) y0), 1.f);
    float sx = fmaxf(0.f, __fsub_rn(__fmul_rn(__fadd_rn((float) c, 0.5f), fx), 0.5f));
    int x0 = min((int) sx, imW - 1), x1 = min(x0 + 1, imW - 1);
    float dx = fminf(__fsub_rn(sx, (float) x0), 1.f);
    float p00 = (float) im[(long long) y0 * stride + 3 * x0 + bgr];
    float p01 = (float) im[(long long) y0 * stride + 3 * x1 + bgr];
    float p10 = (float) im[(long long) y1 * stride + 3 * x0 + bgr];
    float p11 = (float) im[(long long) y1 * stride + 3 * x1 + bgr];
    float ndx = __fsub_rn(1.f, dx);
    float top = __fadd_rn(__fmul_rn(p00, ndx), __fmul_rn(p01, dx));
    float bottom = __fadd_rn(__fmul_rn(p10, ndx), __fmul_rn(p11, dx));
    return __fmul_rn(__fadd_rn(__fmul_rn(top, __fsub_rn(1.f, dy)), __fmul_rn(bottom, dy)), scale);
}

// convention: CONVENTION_*; scale and grey (the canvas, already scaled) are the imported conventions' and are
// computed on the host as the CPU reference computes them (1f / 255 and 114f * that).
extern "C" __global__ void letterbox_rgb_fp16(const unsigned char* frames, const FrameInfo* info, half_t* out,
                                              long long outImage, int pixelStride, int netW, int netH, int n,
                                              int convention,
                                              float scale, float grey) {
    int b = blockIdx.y;
    if (b >= n) return;
    FrameInfo f = info[b];
    const unsigned char* im = frames + f.offset;
    int imW = f.width, imH = f.height, w = f.resizedW, h = f.resizedH;
    if (convention != CONVENTION_DARKNET) {
        float fx = __fdiv_rn((float) imW, (float) w), fy = __fdiv_rn((float) imH, (float) h);
        bool rgb = convention == CONVENTION_RGB;
        FOR_EACH(p, netW * netH) {
            int c = p % netW - f.dx, r = p / netW - f.dy;
            float v[8] = {grey, grey, grey, 0.f, 0.f, 0.f, 0.f, 0.f};
            if (c >= 0 && r >= 0 && c < w && r < h) {
                for (int k = 0; k < 3; k++) {
                    v[k] = bilinear_centres(im, f.stride, imW, imH, fx, fy, c, r, rgb ? 2 - k : k, scale);
                }
            }
            store_pixel(out + b * outImage + (long long) p * pixelStride, v, pixelStride);
        }
        return;
    }
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
        store_pixel(out + b * outImage + (long long) p * pixelStride, v, pixelStride);
    }
}
