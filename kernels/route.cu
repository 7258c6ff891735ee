// (d) [route]: copies a channel slice into its place in the concatenated output. Only used for the inputs that
// could not be written into place by their producer (see BufferPlan.java).
#include "common.cuh"

extern "C" __global__ void copy_channels_vec8(const half_t* in, long long inImage, int inPixel, int inOffset,
                                              half_t* out, long long outImage, int outPixel, int outOffset,
                                              int channels, int pixels, int n) {
    int groups = channels >> 3;
    FOR_EACH(t, n * pixels * groups) {
        int g = t % groups;
        int rest = t / groups;
        int p = rest % pixels;
        int b = rest / pixels;
        *reinterpret_cast<vec16*>(out + at(b, outImage, p, outPixel, outOffset, g << 3)) =
                *reinterpret_cast<const vec16*>(in + at(b, inImage, p, inPixel, inOffset, g << 3));
    }
}

extern "C" __global__ void copy_channels_scalar(const half_t* in, long long inImage, int inPixel, int inOffset,
                                                half_t* out, long long outImage, int outPixel, int outOffset,
                                                int channels, int pixels, int n) {
    FOR_EACH(t, n * pixels * channels) {
        int c = t % channels;
        int rest = t / channels;
        int p = rest % pixels;
        int b = rest / pixels;
        out[at(b, outImage, p, outPixel, outOffset, c)] = in[at(b, inImage, p, inPixel, inOffset, c)];
    }
}
