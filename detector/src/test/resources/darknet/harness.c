/*
 * Drives Debian's original C Darknet (libdarknet.so) as an independent reference for Argus' tests.
 *
 *   harness net CFG WEIGHTS INPUT.f32 W H THRESH NMS OUT.txt
 *       network_predict on one C x H x W float tensor (planar RGB in [0,1]); writes every [yolo] layer's output
 *       ("yolo <layer> <count>" then the floats) and the boxes after get_network_boxes + do_nms_sort, relative to
 *       the network input ("det x y w h objectness" then "prob <class> <p>" for each p > 0).
 *   harness resize IMAGE.f32 W H C NEW_W NEW_H LETTERBOX OUT.f32
 *       resize_image (LETTERBOX=0) or letterbox_image (1) of a planar float image; writes the result's floats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "darknet.h"

static float *read_floats(const char *path, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    float *data = malloc(n * sizeof(float));
    if (fread(data, sizeof(float), n, f) != n) { fprintf(stderr, "%s: short read\n", path); exit(2); }
    fclose(f);
    return data;
}

static int run_net(char **argv) {
    char *cfg = argv[2], *weights = argv[3], *input = argv[4];
    int w = atoi(argv[5]), h = atoi(argv[6]);
    float thresh = atof(argv[7]), nms = atof(argv[8]);
    network *net = load_network(cfg, weights, 0);
    set_batch_network(net, 1);
    if (net->w != w || net->h != h) { fprintf(stderr, "network is %dx%d, expected %dx%d\n", net->w, net->h, w, h); return 2; }
    float *x = read_floats(input, (size_t) 3 * w * h);
    network_predict(net, x);
    FILE *out = fopen(argv[9], "w");
    int classes = 0;
    for (int i = 0; i < net->n; ++i) {
        layer l = net->layers[i];
        if (l.type != YOLO) continue;
        classes = l.classes;
        fprintf(out, "yolo %d %d\n", i, l.outputs);
        for (int j = 0; j < l.outputs; ++j) fprintf(out, "%.9g\n", l.output[j]);
    }
    int nboxes = 0;
    detection *dets = get_network_boxes(net, w, h, thresh, 0.5f, 0, 1, &nboxes);
    if (nms > 0) do_nms_sort(dets, nboxes, classes, nms);
    for (int i = 0; i < nboxes; ++i) {
        box b = dets[i].bbox;
        fprintf(out, "det %.9g %.9g %.9g %.9g %.9g\n", b.x, b.y, b.w, b.h, dets[i].objectness);
        for (int k = 0; k < classes; ++k) {
            if (dets[i].prob[k] > 0) fprintf(out, "prob %d %.9g\n", k, dets[i].prob[k]);
        }
    }
    free_detections(dets, nboxes);
    fclose(out);
    return 0;
}

static int run_resize(char **argv) {
    int w = atoi(argv[3]), h = atoi(argv[4]), c = atoi(argv[5]);
    int nw = atoi(argv[6]), nh = atoi(argv[7]), letter = atoi(argv[8]);
    image im = make_image(w, h, c);
    float *src = read_floats(argv[2], (size_t) w * h * c);
    memcpy(im.data, src, sizeof(float) * w * h * c);
    image out = letter ? letterbox_image(im, nw, nh) : resize_image(im, nw, nh);
    FILE *f = fopen(argv[9], "wb");
    fwrite(out.data, sizeof(float), (size_t) out.w * out.h * out.c, f);
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 10 && strcmp(argv[1], "net") == 0) return run_net(argv);
    if (argc == 10 && strcmp(argv[1], "resize") == 0) return run_resize(argv);
    fprintf(stderr, "usage: harness net CFG WEIGHTS INPUT.f32 W H THRESH NMS OUT.txt\n"
                    "       harness resize IMAGE.f32 W H C NEW_W NEW_H LETTERBOX OUT.f32\n");
    return 2;
}
