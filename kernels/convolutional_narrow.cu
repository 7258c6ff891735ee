// A tensor-core convolution for narrow layers (io.argus.detector.cuda.layers.Convolutional, inference): the
// 16 to 64-channel 1x1 and 3x3 convolutions over the large early feature maps (yolov4-tiny's at 104x104), with the
// bias and activation fused, FP16 NHWC in and out, FP32 accumulation.
//
// Why our own: these layers move more bytes than they compute (64 channels in and out: ~9 multiply-adds per byte for
// a 3x3, ~1 for a 1x1), and cuDNN's engines, tiled for wide layers, ran them at about 2.7x their memory traffic.
// Here a block computes an output tile of TH rows x 16 columns for all output channels of one image from its input
// tile (with the halo) copied once into shared memory, so each input byte comes from DRAM about once and each
// output byte is written once.
//
// Per block: 4 warps; warp w owns TH/4 output rows, each row one m16 tile (16 pixels) of an m16n8k16 mma.sync
// (A: pixels x input channels of one tap, B: input channels x output channels, C: FP32). K runs over the taps and
// 16-channel slices of the input. A comes from the shared tile by ldmatrix (a row address per lane, so the tap's
// shift costs nothing); B is the filter, stored by the host in fragment order (per 16 x 8 slice, 32 lanes x 4 halves)
// and read through L1, where every block finds it.
//
// Shared layout: [IH][IW][CIN + 8] halves. The 8 extra halves per pixel make a pixel 3, 5 or 9 16-byte units long, so
// the 8 rows of one ldmatrix (8 consecutive pixels) fall in 8 different bank groups. With stride 2 consecutive output
// pixels read every other input column, so the tile's columns are stored even ones first, then odd ones: the rows of
// one ldmatrix are again consecutive pixels.
//
// Requirements (checked by the Java side): CIN (padded input channels) 16, 32 or 64, the input view 16-byte aligned
// (pixel stride and channel offset multiples of 8); COUT (padded filters) 32 or 64, the output view's pixel stride and
// offset even; channels >= filters are written as zeros.
#include "common.cuh"

// Shared-memory address of a generic pointer (without CUDA headers).
__device__ __forceinline__ unsigned shared_address(const void* p) {
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

// 16 bytes global -> shared without passing through registers; bytes = 0 writes zeros (a tap outside the image).
__device__ __forceinline__ void copy16_async(unsigned dst, const void* src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}

// Four 8x8 matrices of halves from shared memory: lane l gives the address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void load_matrices(unsigned address, unsigned* a) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(address));
}

// c += a (16x16, row-major) x b (16x8, column-major), FP16 in, FP32 accumulate.
__device__ __forceinline__ void mma16816(float* c, const unsigned* a, unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 8 bytes of read-only data through the non-coherent (texture) path, kept in L1.
__device__ __forceinline__ void load_filter(const half_t* p, unsigned& x, unsigned& y) {
    asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(p));
}

template <int CIN, int COUT, int K, int S>
struct NarrowTile {
    static constexpr int TW = 16;                                // output columns: one m16 tile
    static constexpr int MT = (S == 2 && CIN == 64) ? 1 : 2;     // output rows per warp (shared memory <= 48 KB)
    static constexpr int TH = 4 * MT;                            // output rows per block
    static constexpr int IH = (TH - 1) * S + K;                  // input tile with its halo
    static constexpr int IW = (TW - 1) * S + K;
    static constexpr int EVEN = (IW + 1) / 2;                    // stride 2: even columns first, then odd
    static constexpr int PIXEL = CIN + 8;                        // halves per input pixel in shared memory
    static constexpr int OUT_PIXEL = COUT + 8;                   // halves per output pixel in shared memory
    static constexpr int NT = COUT / 8;                          // n8 tiles
    static constexpr int KC = CIN / 16;                          // k16 slices per tap
    static constexpr int TILE = IH * IW * PIXEL;                 // halves of the input tile
    static constexpr int OUT = TH * TW * OUT_PIXEL;              // halves of the output tile (over the input's)
    static constexpr int SHARED = TILE > OUT ? TILE : OUT;
};

template <int S, int EVEN>
__device__ __forceinline__ int tile_column(int c) {
    if constexpr (S == 1) return c;
    else return (c & 1) ? EVEN + (c >> 1) : (c >> 1);
}

// Bias and activation of a warp's accumulators into the shared output tile (the activation a constant here, so the
// per-value switch is compiled away).
template <int MT, int NT, int OUT_PIXEL, int ACT>
__device__ __forceinline__ void narrow_epilogue(const float (&acc)[MT][NT][4], half_t* out, const float* bias,
                                                int warp, int lane) {
    int column = lane >> 2, channel = (lane & 3) * 2;   // C fragment: columns lane / 4 and + 8, channels + 0, 1
#pragma unroll
    for (int m = 0; m < MT; m++) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            half_t* o = out + ((warp * MT + m) * 16 + column + 8 * h) * OUT_PIXEL;
#pragma unroll
            for (int j = 0; j < NT; j++) {
                int c = j * 8 + channel;
                float v0 = activate(acc[m][j][2 * h] + bias[c], ACT);
                float v1 = activate(acc[m][j][2 * h + 1] + bias[c + 1], ACT);
                *reinterpret_cast<unsigned*>(o + c) = pack2(v0, v1);
            }
        }
    }
}

template <int CIN, int COUT, int K, int S>
__device__ void conv_narrow(const half_t* x, long long xImage, int xPixel, int xOffset, int inH, int inW,
                            half_t* y, long long yImage, int yPixel, int yOffset, int outH, int outW,
                            const half_t* filter, const float* bias, int filters, int pad, int tilesX, int tilesY,
                            int act) {
    using T = NarrowTile<CIN, COUT, K, S>;
    __shared__ __align__(16) half_t shared[T::SHARED];
    __shared__ float sBias[COUT];   // zero past the filters
    int tx = blockIdx.x % tilesX;
    int rest = blockIdx.x / tilesX;
    int ty = rest % tilesY;
    int b = rest / tilesY;
    int oy0 = ty * T::TH, ox0 = tx * T::TW;
    int iy0 = oy0 * S - pad, ix0 = ox0 * S - pad;
    const half_t* image = x + b * xImage + xOffset;
    unsigned base = shared_address(shared);

    // the input tile, 16 bytes (8 channels) a copy; taps outside the image are zeros
    constexpr int CHUNKS = CIN / 8;
    for (int i = threadIdx.x; i < T::IH * T::IW * CHUNKS; i += blockDim.x) {
        int q = i % CHUNKS;
        int p = i / CHUNKS;
        int c = p % T::IW;
        int r = p / T::IW;
        int iy = iy0 + r, ix = ix0 + c;
        bool inside = iy >= 0 && iy < inH && ix >= 0 && ix < inW;
        const half_t* src = inside ? image + ((long long) iy * inW + ix) * xPixel + q * 8 : image;
        copy16_async(base + 2u * ((r * T::IW + tile_column<S, T::EVEN>(c)) * T::PIXEL + q * 8), src, inside ? 16 : 0);
    }
    for (int i = threadIdx.x; i < COUT; i += blockDim.x) sBias[i] = i < filters ? bias[i] : 0.f;
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();

    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float acc[T::MT][T::NT][4];
#pragma unroll
    for (int m = 0; m < T::MT; m++)
#pragma unroll
        for (int j = 0; j < T::NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[m][j][e] = 0.f;

    int pixel = ((lane >> 3) & 1) * 8 + (lane & 7);   // this lane's ldmatrix row: an output column of the m16 tile
    int half8 = (lane >> 4) * 8;                      // ... and which 8 of the 16 channels
    const half_t* laneFilter = filter + lane * 4;
#pragma unroll 1
    for (int r = 0; r < K; r++) {   // rolled: unrolled, the compiler hoists every tap's filter loads and spills
#pragma unroll
        for (int s = 0; s < K; s++) {
            int col = tile_column<S, T::EVEN>(pixel * S + s);
            unsigned rows[T::MT];
#pragma unroll
            for (int m = 0; m < T::MT; m++) {
                int row = (warp * T::MT + m) * S + r;
                rows[m] = base + 2u * ((row * T::IW + col) * T::PIXEL + half8);
            }
#pragma unroll
            for (int kc = 0; kc < T::KC; kc++) {
                int slice = (r * K + s) * T::KC + kc;
                unsigned b0[T::NT], b1[T::NT];
#pragma unroll
                for (int j = 0; j < T::NT; j++) load_filter(laneFilter + (slice * T::NT + j) * 128, b0[j], b1[j]);
#pragma unroll
                for (int m = 0; m < T::MT; m++) {
                    unsigned a[4];
                    load_matrices(rows[m] + 32u * kc, a);
#pragma unroll
                    for (int j = 0; j < T::NT; j++) mma16816(acc[m][j], a, b0[j], b1[j]);
                }
            }
        }
    }

    // bias and activation into the shared output tile (over the input tile, once every warp is done reading it),
    // then whole pixels out in 16-byte stores; channels past the filters are written as zeros
    __syncthreads();
    half_t* out = shared;
    switch (act) {
        case ACT_LEAKY: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_LEAKY>(acc, out, sBias, warp, lane); break;
        case ACT_RELU: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_RELU>(acc, out, sBias, warp, lane); break;
        case ACT_LOGISTIC: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_LOGISTIC>(acc, out, sBias, warp, lane); break;
        case ACT_MISH: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_MISH>(acc, out, sBias, warp, lane); break;
        case ACT_SWISH: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_SWISH>(acc, out, sBias, warp, lane); break;
        default: narrow_epilogue<T::MT, T::NT, T::OUT_PIXEL, ACT_LINEAR>(acc, out, sBias, warp, lane); break;
    }
    __syncthreads();
    constexpr int OUT_CHUNKS = COUT / 8;
    for (int i = threadIdx.x; i < T::TH * T::TW * OUT_CHUNKS; i += blockDim.x) {
        int q = i % OUT_CHUNKS;
        int p = i / OUT_CHUNKS;
        int oy = oy0 + p / T::TW, ox = ox0 + p % T::TW;
        if (oy < outH && ox < outW) {
            vec16 v = *reinterpret_cast<const vec16*>(out + p * T::OUT_PIXEL + q * 8);
            if (q * 8 + 8 > filters) {   // a vector reaching past the filters: those channels are zeros
                unsigned* w = &v.x;
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    int c = q * 8 + 2 * k;
                    if (c >= filters) w[k] = 0u;
                    else if (c + 1 >= filters) w[k] &= 0xffffu;
                }
            }
            *reinterpret_cast<vec16*>(y + at(b, yImage, oy * outW + ox, yPixel, yOffset, q * 8)) = v;
        }
    }
}

// conv_narrow_<CIN>_<COUT>_k<K>s<S>: one block of 128 threads per output tile, blocks ordered (image, tile row,
// tile column).
#define CONV_NARROW(CIN, COUT, K, S)                                                                               \
    extern "C" __global__ void __launch_bounds__(128, 4) conv_narrow_##CIN##_##COUT##_k##K##s##S(                     \
        const half_t* x, long long xImage, int xPixel, int xOffset, int inH, int inW, half_t* y, long long yImage, \
        int yPixel, int yOffset, int outH, int outW, const half_t* filter, const float* bias, int filters,        \
        int pad, int tilesX, int tilesY, int act) {                                                                \
        conv_narrow<CIN, COUT, K, S>(x, xImage, xPixel, xOffset, inH, inW, y, yImage, yPixel, yOffset, outH, outW, \
                                     filter, bias, filters, pad, tilesX, tilesY, act);                             \
    }
#define CONV_NARROW_FORMS(CIN, COUT) \
    CONV_NARROW(CIN, COUT, 1, 1)     \
    CONV_NARROW(CIN, COUT, 3, 1)     \
    CONV_NARROW(CIN, COUT, 3, 2)
CONV_NARROW_FORMS(16, 32)
CONV_NARROW_FORMS(16, 64)
CONV_NARROW_FORMS(32, 32)
CONV_NARROW_FORMS(32, 64)
CONV_NARROW_FORMS(64, 32)
CONV_NARROW_FORMS(64, 64)
