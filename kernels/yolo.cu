// [yolo] forward (io.argus.detector.cuda.layers.Yolo): the head convolution's NHWC output (half or float) to FP32 in
// Darknet's layout [anchor][x, y, w, h, objectness, classes...][row][col], logistic on x, y, objectness and classes
// (not with new_coords, where the convolution already applied it), x and y scaled by scale_x_y around 0.5, as
// io.argus.detector.cpu.YoloLayer. The training loss (train_yolo_loss.cu) applies the same activation to the raw
// input itself.
#include "train_common.cuh"

#define YOLO_PARAMS(T) (VIEW_PARAMS(const T, in), float* out, int anchors, int entries, int plane, int newCoords, \
                        float scale, int n)

// A transpose: the input is NHWC (a pixel's channels adjacent), the output planar (a channel's pixels adjacent). A
// block moves a tile of 32 pixels x 32 channels through shared memory so that both its reads (along channels) and its
// writes (along pixels) are contiguous; read straight across, every thread of a warp touched another pixel's cache
// line (the kernel took 79 us of a yolov4-tiny b64 forward at 12% of DRAM's peak). Blocks of 256 threads:
// blockIdx.x the pixel tile, blockIdx.y image * channel tiles + the channel tile.
#define YOLO_TILE 32

template <typename T>
__device__ void yolo_activate YOLO_PARAMS(T) {
    __shared__ float tile[YOLO_TILE][YOLO_TILE + 1];
    int channels = anchors * entries;
    int channelTiles = (channels + YOLO_TILE - 1) / YOLO_TILE;
    int b = blockIdx.y / channelTiles;
    if (b >= n) return;
    int c0 = (blockIdx.y % channelTiles) * YOLO_TILE;
    int p0 = blockIdx.x * YOLO_TILE;
    int tx = threadIdx.x % YOLO_TILE, ty = threadIdx.x / YOLO_TILE, rows = blockDim.x / YOLO_TILE;
    float shift = -0.5f * (scale - 1.f);
    int ae = c0 + tx;
    int e = ae % entries;
    for (int j = ty; j < YOLO_TILE; j += rows) {
        int p = p0 + j;
        if (p < plane && ae < channels) {
            float v = ld(in + vat(b, inImage, p, inPixel, inOffset, ae));
            if (!newCoords && (e < 2 || e >= 4)) v = logistic(v);
            if (e < 2 && scale != 1.f) v = v * scale + shift;
            tile[j][tx] = v;
        }
    }
    __syncthreads();
    float* image = out + (long long) b * channels * plane;
    for (int j = ty; j < YOLO_TILE; j += rows) {
        int c = c0 + j, p = p0 + tx;
        if (c < channels && p < plane) image[(long long) c * plane + p] = tile[tx][j];
    }
}
INSTANTIATE(yolo_activate, YOLO_PARAMS, (in, inImage, inPixel, inOffset, out, anchors, entries, plane, newCoords,
        scale, n))
