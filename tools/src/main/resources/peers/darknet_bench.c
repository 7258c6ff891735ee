/*
 * Times Debian's original C Darknet (libdarknet.so) on one input tensor, for `argus bench --vs darknet`:
 *   darknet_bench CFG WEIGHTS INPUT.f32 ITERATIONS
 * loads the network at batch 1, runs network_predict ITERATIONS times on the C x H x W float tensor and prints one
 * line "ms <milliseconds>" per run (the darknet CLI's own test loop blocks on an OpenCV window in Debian's build).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "darknet.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: darknet_bench CFG WEIGHTS INPUT.f32 ITERATIONS\n");
        return 2;
    }
    network *net = load_network(argv[1], argv[2], 0);
    set_batch_network(net, 1);
    size_t n = (size_t) net->w * net->h * net->c;
    float *x = malloc(n * sizeof(float));
    FILE *f = fopen(argv[3], "rb");
    if (!f || fread(x, sizeof(float), n, f) != n) { fprintf(stderr, "%s: expected %zu floats\n", argv[3], n); return 2; }
    fclose(f);
    int iterations = atoi(argv[4]);
    for (int i = 0; i < iterations; ++i) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        network_predict(net, x);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
        fflush(stdout);
    }
    return 0;
}
