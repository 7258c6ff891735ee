package io.argus.detector.onnx;

import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.detector.ImportedHead;
import io.argus.detector.Model;
import io.argus.detector.darknet.YoloSpec.NmsKind;
import io.argus.detector.post.Candidate;
import io.argus.detector.post.Nms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * How an imported model's output becomes detections, per family, and how its input is prepared:
 * <ul>
 * <li>{@code yolov8} (YOLOv8, YOLO11, YOLOv9: anchor-free, DFL decoded in the graph): [1, 4 + classes, anchors], per
 * anchor centre x, y, width, height in input pixels and one sigmoid score per class;</li>
 * <li>{@code yolov5} (anchors and objectness, decoded in the graph; also a YOLOX exported with decoding, which keeps
 * YOLOX's input): [1, anchors, 5 + classes], per anchor the box in input pixels, objectness and class probabilities;</li>
 * <li>{@code yolox} (YOLOX's export without decoding, its exporter's default): [1, anchors, 5 + classes] with the box
 * relative to its grid cell (x, y offsets; log width and height in strides), sigmoid objectness and classes, anchors
 * the cells of strides 8, 16 and 32 in order;</li>
 * <li>{@code nms} (graphs with NMS: Ultralytics' nms=True, end-to-end exports): [1, boxes, 6] of corners x1, y1, x2,
 * y2 in input pixels, score and class, already suppressed.</li>
 * </ul>
 * Scores: objectness x class probability where there is objectness, the class score otherwise; every class above the
 * threshold is a candidate, then per-class NMS as for Darknet models.
 */
public record OnnxHead(OnnxTail tail, Family family, int classes, OnnxInput.Convention convention, int inputWidth,
                       int inputHeight, HeadDecoder decoder) implements ImportedHead {
    /** The ONNX head of {@code model}, or null for a model that has none (a Darknet cfg). */
    public static OnnxHead in(Model model) {
        return model.imported() instanceof OnnxHead h ? h : null;
    }

    @Override
    public String describe() { return family.configName() + " head"; }

    /** The families; {@code auto} in the config picks one from the graph's output ({@link #detect}). */
    public enum Family {
        YOLOV5, YOLOV8, YOLOX, NMS;

        public String configName() { return name().toLowerCase(Locale.ROOT); }

        /** A config's {@code head} value; null for auto. */
        public static Family parse(String name) {
            if (name == null || name.equals("auto")) return null;
            for (Family f : values()) if (f.configName().equals(name)) return f;
            throw new IllegalArgumentException("head: expected auto, yolov5, yolov8, yolox or nms, found '" + name + "'");
        }
    }

    private static final int[] STRIDES = {8, 16, 32};

    /**
     * The family and class count of a lowered model from its output's shape (and, for [1, anchors, 5 + classes], whether
     * the graph decodes boxes: YOLOv5's and decoded YOLOX graphs compute with the grid, raw YOLOX ones do not);
     * {@code named} forces the family (checked against the shape). The message of a refusal says what was found.
     */
    public static OnnxHead of(OnnxModel model, OnnxTail tail, Family named) {
        if (model.outputs().size() != 1 || model.outputs().get(0).rank() != 3 || model.outputs().get(0).shape()[0] != 1) {
            List<String> found = new ArrayList<>();
            for (OnnxValue o : model.outputs()) found.add(o.name() + " " + Arrays.toString(o.shape()));
            throw new OnnxModelException(model.file(), "expected one detection output [1, a, b] (YOLOv5, YOLOv8, YOLO11, "
                    + "YOLOv9, YOLOX or NMS layouts), found " + found);
        }
        long[] s = model.outputs().get(0).shape();
        long[] in = model.inputs().get(0).shape();
        long cells = 0;
        for (int stride : STRIDES) cells += (in[2] / stride) * (in[3] / stride);
        boolean decodes = false;
        for (OnnxNode n : tail.nodes()) if (n.op().equals("Exp") || n.op().equals("Pow")) decodes = true;
        Family guess;
        if (s[2] == cells && s[1] > 4) guess = Family.YOLOV8;
        else if (s[1] == 3 * cells && s[2] > 5) guess = Family.YOLOV5;
        else if (s[1] == cells && s[2] > 5) guess = decodes ? Family.YOLOV5 : Family.YOLOX;
        else if (s[2] == 6) guess = Family.NMS;
        else guess = null;
        Family family = named != null ? named : guess;
        if (family == null) {
            throw new OnnxModelException(model.file(), "cannot tell the head from output " + Arrays.toString(s)
                    + " for input " + in[2] + "x" + in[3] + ": expected [1, 4 + classes, " + cells + "] (yolov8), [1, "
                    + 3 * cells + ", 5 + classes] (yolov5), [1, " + cells + ", 5 + classes] (yolox) or [1, boxes, 6] "
                    + "(nms); name it with models[].head");
        }
        int classes = switch (family) {
            case YOLOV8 -> (int) s[1] - 4;
            case YOLOV5, YOLOX -> (int) s[2] - 5;
            case NMS -> model.names().size();
        };
        boolean fits = switch (family) {
            case YOLOV8 -> s[1] > 4;
            case YOLOV5 -> s[2] > 5;
            case YOLOX -> s[2] > 5 && s[1] == cells;
            case NMS -> s[2] == 6 && classes > 0;
        };
        if (!fits) {
            throw new OnnxModelException(model.file(), "head " + family.configName() + " does not fit output "
                    + Arrays.toString(s) + (family == Family.NMS ? " with " + classes + " class names" : ""));
        }
        // YOLOX's output has one box per cell (YOLOv5's three), decoded in the graph or not: its input is YOLOX's
        boolean yoloxLayout = family != Family.YOLOV8 && family != Family.NMS && s[1] == cells;
        OnnxInput.Convention convention = family == Family.YOLOX || yoloxLayout ? OnnxInput.Convention.YOLOX
                : OnnxInput.Convention.ULTRALYTICS;
        return new OnnxHead(tail, family, classes, convention, (int) in[3], (int) in[2], null);
    }

    /** The shape of the graph's (one) output for one image: [1, a, b]. */
    public long[] outputShape() {
        return tail.outputShape(0);
    }

    /** The same head, decoding with {@code d} ({@link HeadDecoder#probe}; null: the tail's output). */
    public OnnxHead withDecoder(HeadDecoder d) {
        return new OnnxHead(tail, family, classes, convention, inputWidth, inputHeight, d);
    }

    /** Detections of one image from the graph's output (one image's values, row-major [1, a, b]). */
    public List<Detection> detections(OnnxInterpreter.Tensor output, OnnxInput.Geometry g, List<String> names,
                                      float threshold, float nms) {
        float[] v = output.data();
        long[] s = output.shape();
        int a = (int) s[1], b = (int) s[2];
        List<Candidate> candidates = new ArrayList<>();
        switch (family) {
            case YOLOV8 -> {
                for (int i = 0; i < b; i++) {
                    float best = 0;
                    float[] prob = new float[classes];
                    for (int k = 0; k < classes; k++) {
                        float p = v[(4 + k) * b + i];
                        if (p > threshold) prob[k] = p;
                        best = Math.max(best, p);
                    }
                    if (!(best > threshold)) continue;
                    candidates.add(candidate(g, v[i], v[b + i], v[2 * b + i], v[3 * b + i], best, prob));
                }
            }
            case YOLOV5, YOLOX -> {
                int level = 0, levelStart = 0;
                for (int i = 0; i < a; i++) {
                    int o = i * b;
                    float objectness = v[o + 4];
                    if (!(objectness > threshold)) continue;
                    float[] prob = new float[classes];
                    boolean any = false;
                    for (int k = 0; k < classes; k++) {
                        float p = objectness * v[o + 5 + k];
                        if (p > threshold) {
                            prob[k] = p;
                            any = true;
                        }
                    }
                    if (!any) continue;
                    float cx = v[o], cy = v[o + 1], w = v[o + 2], h = v[o + 3];
                    if (family == Family.YOLOX) {
                        // anchors are the cells of stride 8, then 16, then 32, row by row
                        while (level < STRIDES.length - 1 && i >= levelStart + cellsOf(level)) {
                            levelStart += cellsOf(level);
                            level++;
                        }
                        int stride = STRIDES[level], gridW = inputWidth / stride, local = i - levelStart;
                        cx = (cx + local % gridW) * stride;
                        cy = (cy + local / gridW) * stride;
                        w = (float) Math.exp(w) * stride;
                        h = (float) Math.exp(h) * stride;
                    }
                    candidates.add(candidate(g, cx, cy, w, h, objectness, prob));
                }
            }
            case NMS -> {
                List<Detection> out = new ArrayList<>();
                for (int i = 0; i < a; i++) {
                    int o = i * b;
                    float score = v[o + 4];
                    int k = Math.round(v[o + 5]);
                    if (!(score > threshold) || k < 0 || k >= classes) continue;
                    float[] box = g.toImage((v[o] + v[o + 2]) / 2, (v[o + 1] + v[o + 3]) / 2, v[o + 2] - v[o],
                            v[o + 3] - v[o + 1]);
                    out.add(new Detection(k, names.get(k), score, pixels(box, g)));
                }
                out.sort(Comparator.comparingDouble((Detection d) -> -d.confidence()));
                return out;
            }
        }
        return finish(candidates, g, names, threshold, nms);
    }

    /** Candidates after per-class NMS as detections in source pixels, the most confident first. */
    public List<Detection> finish(List<Candidate> candidates, OnnxInput.Geometry g, List<String> names, float threshold,
                                  float nms) {
        Nms.apply(candidates, classes, nms, NmsKind.DEFAULT, 0.6f);
        List<Detection> out = new ArrayList<>();
        for (Candidate c : candidates) {
            for (int k = 0; k < c.prob.length; k++) {
                if (c.prob[k] > threshold) {
                    out.add(new Detection(k, names.get(k), c.prob[k], pixels(new float[] {c.x, c.y, c.w, c.h}, g)));
                }
            }
        }
        out.sort(Comparator.comparingDouble((Detection d) -> -d.confidence()));
        return out;
    }

    private int cellsOf(int level) {
        return (inputWidth / STRIDES[level]) * (inputHeight / STRIDES[level]);
    }

    private static Candidate candidate(OnnxInput.Geometry g, float cx, float cy, float w, float h, float objectness,
                                       float[] prob) {
        float[] r = g.toImage(cx, cy, w, h);
        return new Candidate(r[0], r[1], r[2], r[3], objectness, prob);
    }

    /** A box relative to the source image (centre, size) in its pixels, clipped to it. */
    private static Box pixels(float[] r, OnnxInput.Geometry g) {
        float left = clamp((r[0] - r[2] / 2) * g.imageWidth(), g.imageWidth());
        float right = clamp((r[0] + r[2] / 2) * g.imageWidth(), g.imageWidth());
        float top = clamp((r[1] - r[3] / 2) * g.imageHeight(), g.imageHeight());
        float bottom = clamp((r[1] + r[3] / 2) * g.imageHeight(), g.imageHeight());
        return new Box(left, top, right - left, bottom - top);
    }

    private static float clamp(float v, int max) {
        return Math.max(0, Math.min(max, v));
    }
}
